package stack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/agent"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/gateway"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/registry"
)

// Gateway is the HTTP gateway of a stack (OpenAI Chat Completions and
// Responses, Anthropic Messages), with its run mode. Its errors name
// serve's flags (--gateway, --gateway-config).
type Gateway struct {
	// Addr to listen on ("": no gateway).
	Addr string
	// ConfigFile is the gateway's YAML config (gateway.LoadFile): required
	// with Addr.
	ConfigFile string
	// Driver names this gateway in the run leases: the same after a
	// restart, so a restarted gateway takes its runs back at once (""
	// gateway@<host>/<Addr>).
	Driver string
}

// ShutdownMax is how long a stopping gateway lets the upstream reads of
// clients that went away, and the runs it drives, end and be logged.
const ShutdownMax = 30 * time.Second

// startGateway serves the gateway until the stack stops, when its Addr is
// set.
func (s *Stack) startGateway() error {
	f, b, log, ctx := s.cfg.Gateway, s.cfg.Bus, s.log, s.ctx
	if f.Addr == "" {
		if f.ConfigFile != "" && s.cfg.MCP.Addr == "" {
			return errors.New("--gateway-config needs --gateway ADDR or --mcp ADDR")
		}
		return nil
	}
	if f.ConfigFile == "" {
		return errors.New("--gateway needs --gateway-config FILE")
	}
	file, err := gateway.LoadFile(f.ConfigFile)
	if err != nil {
		return err
	}
	rm, err := s.newRunMode()
	if err != nil {
		return err
	}
	rm.server.Heartbeat = file.Heartbeat
	// Connections, and requests under way (each may hold an upstream
	// connection), are a share of the descriptors: the rest is the log's.
	conns := file.Limits.ConnsMax
	if conns == 0 {
		conns = GatewayConnsMax(noFile())
	}
	fail := func(err error) error {
		rm.follower.Stop()
		return err
	}
	if err := ensureKeyTenants(ctx, b, log, file); err != nil {
		return fail(err)
	}
	onReload := func(f *gateway.File) {
		if err := ensureKeyTenants(ctx, b, log, f); err != nil {
			log.Error("gateway keys reloaded; a tenant's ingress stream was not made", "err", err)
		}
		rm.reload(f)
	}
	// A file that leaves requests_max 0 gets conns, at start and on a
	// reload's comparison (a reload of the same file said its limits
	// changed: review rev15).
	g, err := gateway.New(gateway.Config{File: *file, RequestsMaxDefault: conns, JS: b.JS, Keys: b.Keys, Logger: log, Runner: rm.server, MsgIDKey: b.MsgIDKey(),
		Telemetry: s.telemetry, OnReload: onReload})
	if err != nil {
		return fail(err)
	}
	if err := rm.attach(ctx, s, g, agent.MemoryConfig{Off: file.Memory.Off, RecallBudgetTokens: file.Memory.RecallBudgetTokens}, file.Run); err != nil {
		return fail(err)
	}
	ln, err := net.Listen("tcp", f.Addr)
	if err != nil {
		return fail(fmt.Errorf("--gateway: %w", err))
	}
	// Keys, prices and run mode's run: and memory: settings follow the
	// config and its keys file without a restart: when they change, and
	// on SIGHUP. The watcher compares the files with what file was read
	// from, so a change made since the load above is seen too.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	s.goRun("--gateway-config", func(ctx context.Context) error {
		defer signal.Stop(hup)
		g.Watch(ctx, f.ConfigFile, file, 0, hup)
		return nil
	})
	ln = limitListen(ln, conns, true, log, "gateway")
	srv := &http.Server{Handler: g, ReadHeaderTimeout: ReadHeaderTimeout, IdleTimeout: IdleTimeout, MaxHeaderBytes: MaxHeaderBytes,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	log.Info("gateway", "addr", ln.Addr().String(), "upstreams", len(file.Upstreams), "keys", len(file.Keys),
		"conns_max", conns, "requests_max", g.Limits().RequestsMax)
	s.goRun("--gateway", func(ctx context.Context) error {
		// Serve returns as the shutdown begins: the stack goes on stopping
		// while the gateway's reads and drives end, as a process whose
		// next start resumes what is cut.
		go func() {
			<-ctx.Done()
			stop, cancel := context.WithTimeout(context.Background(), ShutdownMax)
			defer cancel()
			srv.Shutdown(stop)
			g.Wait(stop)
			rm.stop(stop)
		}()
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
	return nil
}

// ensureKeyTenants makes the ingress stream of every tenant a key of f
// names, on a log with per-tenant ingress streams (bus.EnsureTenant; a
// no-op on the shared layout): the gateway writes each key's tenant's
// ts.model and ts.in subjects, which no stream takes until then. Serve on
// one machine is the admin and makes them; on a cluster `toolstream setup
// --tenants` makes them, and serve only says which are missing.
func ensureKeyTenants(ctx context.Context, b *bus.Bus, log *slog.Logger, f *gateway.File) error {
	seen := map[string]bool{}
	for _, k := range f.Keys {
		if seen[k.Tenant] || k.Tenant == "" {
			continue
		}
		seen[k.Tenant] = true
		if err := b.EnsureTenant(ctx, k.Tenant); err != nil {
			if !b.Embedded() {
				log.Warn("gateway key's tenant has no ingress stream this serve may make; run toolstream setup --tenants as the admin", "tenant", k.Tenant, "err", err)
				continue
			}
			return fmt.Errorf("gateway key's tenant %s: %w", k.Tenant, err)
		}
	}
	return nil
}

// runMode is the gateway's run mode: a RunServer whose driver sends the
// rounds through the gateway, offers the registry in force (the tools file
// the stack follows: a tool added there reaches the next round without a
// restart), and, on start, resumes the runs it was driving when the process
// ended.
type runMode struct {
	server   *gateway.RunServer
	follower *registry.Follower
	driver   *agent.Driver

	conn *nats.Conn // the driver's own, as the driver role (nil: the bus's)

	mu sync.Mutex
	d  *agent.Driver // the driver once attached, for reload; guarded by mu
}

// settingsOf are the driver's settings the gateway config's memory: and run: say.
func settingsOf(mem agent.MemoryConfig, run gateway.RunConfig) agent.Settings {
	return agent.Settings{PlansOff: !run.PlansOn(), DelegateOff: !run.DelegateOn(), ReplansMax: run.ReplansMax,
		DelegateDepthMax: run.DelegateDepthMax, Memory: mem}
}

// reload puts a reloaded gateway config's run: and memory: settings in force
// (gateway.Config.OnReload).
func (m *runMode) reload(f *gateway.File) {
	m.mu.Lock()
	d := m.d
	m.mu.Unlock()
	if d != nil {
		d.SetSettings(settingsOf(agent.MemoryConfig{Off: f.Memory.Off, RecallBudgetTokens: f.Memory.RecallBudgetTokens}, f.Run))
	}
}

func (s *Stack) newRunMode() (*runMode, error) {
	f, err := registry.Follow(s.ctx, registry.FollowConfig{JS: s.cfg.Bus.JS, Trust: s.cfg.Projections.Trust, Logger: s.log})
	if err != nil {
		return nil, fmt.Errorf("--gateway run mode: %w", err)
	}
	return &runMode{server: &gateway.RunServer{Logger: s.log}, follower: f}, nil
}

// attach makes the driver over g and resumes the runs it was driving.
func (m *runMode) attach(ctx context.Context, s *Stack, g *gateway.Gateway, mem agent.MemoryConfig, run gateway.RunConfig) (err error) {
	defer func() {
		if err != nil && m.conn != nil {
			m.conn.Close()
		}
	}()
	b, log := s.cfg.Bus, s.log
	leases, err := runs.NewLeases(ctx, runs.LeaseConfig{JS: b.JS, Replicas: b.Replicas()})
	if err != nil {
		return fmt.Errorf("--gateway run mode: %w", err)
	}
	name := s.cfg.Gateway.Driver
	if name == "" {
		host, _ := os.Hostname()
		name = "gateway@" + host + "/" + s.cfg.Gateway.Addr
	}
	set := settingsOf(mem, run)
	conn, js, ks, err := m.driverConn(ctx, b, log)
	if err != nil {
		return fmt.Errorf("--gateway run mode: %w", err)
	}
	if js != b.JS {
		if leases, err = runs.NewLeases(ctx, runs.LeaseConfig{JS: js, Replicas: b.Replicas()}); err != nil {
			return fmt.Errorf("--gateway run mode: %w", err)
		}
	}
	d, err := agent.New(ctx, agent.Config{Model: gateway.Model(g), Conn: conn, JS: js, Keys: ks, MsgIDKey: b.MsgIDKey(), Leases: leases,
		Registry: m.follower.Current, Driver: name, Replicas: b.Replicas(), Logger: log, Memory: set.Memory,
		PlansOff: set.PlansOff, DelegateOff: set.DelegateOff, ReplansMax: set.ReplansMax, DelegateDepthMax: set.DelegateDepthMax})
	if err != nil {
		return fmt.Errorf("--gateway run mode: %w", err)
	}
	m.driver = d
	m.mu.Lock()
	m.d = d
	m.mu.Unlock()
	m.server.Driver = m.driver
	n, err := m.driver.Resume(ctx)
	if err != nil {
		return fmt.Errorf("--gateway run mode: %w", err)
	}
	log.Info("gateway run mode", "driver", name, "resumed", n)
	return nil
}

// driverConn is the driver's connection, JetStream and keys. On the
// embedded server the driver has a connection of its own as the driver
// role (auth.RoleDriver), which may write the runs' requests (ts_agent,
// made here by the admin first) but not the log's other buckets, calls or
// keys, and asks the keys service for its keys; on an external server it
// is the process's connection, whose --creds must be the driver's (or the
// admin's), the bucket made by toolstream setup.
func (m *runMode) driverConn(ctx context.Context, b *bus.Bus, log *slog.Logger) (*nats.Conn, jetstream.JetStream, events.Keyring, error) {
	if !b.Embedded() {
		return b.Conn, b.JS, b.Keys, nil
	}
	if err := agent.CreateStore(ctx, b.JS, b.Replicas()); err != nil {
		return nil, nil, nil, err
	}
	opts, err := b.UserOptions(auth.Identity{Role: auth.RoleDriver})
	if err != nil {
		return nil, nil, nil, err
	}
	nc, err := nats.Connect(b.ClientURL(), append(opts, nats.Name("toolstream-driver"), nats.MaxReconnects(-1))...)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("the driver's connection: %w", err)
	}
	js, err := jetstream.New(nc)
	if err == nil {
		var ks *keys.Store
		if ks, err = keys.Open(ctx, keys.Config{JS: js, Remote: true, Logger: log}); err == nil {
			m.conn = nc
			return nc, js, ks, nil
		}
	}
	nc.Close()
	return nil, nil, nil, fmt.Errorf("the driver's connection: %w", err)
}

// stop waits for the drives whose clients went away and the resumed ones,
// until ctx ends; what is cut is resumed at the next start.
func (m *runMode) stop(ctx context.Context) {
	m.server.Wait(ctx)
	if m.driver != nil {
		done := make(chan struct{})
		go func() { m.driver.Wait(); close(done) }()
		select {
		case <-done:
		case <-ctx.Done():
		}
	}
	if m.conn != nil {
		m.conn.Close()
	}
	m.follower.Stop()
}

// collectors are the metrics of the stack's parts beyond the projections
// and the executor: the gateway's, when it serves one.
func (s *Stack) collectors() []prometheus.Collector {
	if s.cfg.Gateway.Addr == "" {
		return nil
	}
	return gateway.Collectors()
}
