package clustertest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
)

// TB is the part of testing.TB a Cluster uses (the package does not
// import testing, so a program that is no test may start a cluster too).
type TB interface {
	Helper()
	Fatal(args ...any)
	TempDir() string
	Cleanup(func())
}

// Name is the cluster name of a test cluster.
const Name = "toolstream"

// readyMax bounds the waits for a cluster to form, a server to catch up or
// a stream to elect a leader.
const readyMax = 60 * time.Second

// Config configures a test cluster. Zero values take the defaults given.
type Config struct {
	// Servers in the cluster; default 3.
	Servers int
	// Dir holds each server's JetStream store (Dir/n<i>); default t.TempDir().
	Dir string
	// Options, when set, returns server i's options before the cluster sets
	// its own: a configuration file's accounts, users and permissions
	// (ServerOptions). Listen addresses, routes, the cluster name and the
	// store directory are always the cluster's; the server name is kept if
	// set. Each call must return a fresh value: servers share nothing.
	Options func(i int) (*server.Options, error)
	// Account that holds the log's stream; default the log account of
	// Auth, or the global account with Options and no Auth.
	Account string
	// Auth is the material every server trusts; without Options it
	// defaults to new material in Dir/auth, so a test cluster refuses
	// anonymous clients as the embedded server does. With Options the
	// configuration file says what the servers trust; Auth then only
	// issues the test's users.
	Auth *auth.Material
}

// Cluster is a JetStream cluster of embedded nats-servers on loopback ports
// in this process. Servers can be stopped and restarted on the same ports
// and store, which is how tests kill a stream leader or pause a server.
// Its methods are safe for concurrent use.
type Cluster struct {
	t       TB
	account string
	auth    *auth.Material // nil: the servers trust no operator
	mu      sync.Mutex     // guards nodes[i].srv
	nodes   []*node
}

type node struct {
	name  string
	port  int                             // client port
	build func() (*server.Options, error) // fresh options for each start
	srv   *server.Server                  // nil while stopped
}

// Start starts a cluster and waits until it has a JetStream meta leader and
// every server is current. The cluster is shut down when t ends.
func Start(t TB, cfg Config) *Cluster {
	t.Helper()
	if cfg.Servers == 0 {
		cfg.Servers = 3
	}
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	configure := cfg.Options == nil
	if cfg.Auth == nil && configure {
		m, err := auth.Ensure(filepath.Join(cfg.Dir, "auth"))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Auth = m
	}
	if cfg.Account == "" {
		cfg.Account = server.DEFAULT_GLOBAL_ACCOUNT
		if cfg.Auth != nil {
			cfg.Account = cfg.Auth.AccountPublicKey()
		}
	}
	ports := freePorts(t, 2*cfg.Servers)
	c := &Cluster{t: t, account: cfg.Account, auth: cfg.Auth}
	for i := 0; i < cfg.Servers; i++ {
		n := &node{name: fmt.Sprintf("n%d", i+1), port: ports[2*i]}
		n.build = func() (*server.Options, error) {
			o := &server.Options{MaxPayload: 8 << 20}
			if cfg.Options != nil {
				var err error
				if o, err = cfg.Options(i); err != nil {
					return nil, err
				}
			}
			if o.ServerName == "" {
				o.ServerName = fmt.Sprintf("n%d", i+1)
			}
			o.Host, o.Port = "127.0.0.1", ports[2*i]
			o.HTTPHost, o.HTTPPort, o.HTTPSPort = "", 0, 0
			o.JetStream = true
			o.StoreDir = filepath.Join(cfg.Dir, fmt.Sprintf("n%d", i+1))
			o.NoSigs, o.NoLog = true, true
			o.Cluster.Name, o.Cluster.Host, o.Cluster.Port = Name, "127.0.0.1", ports[2*i+1]
			if configure {
				bus.ConfigureServer(o, cfg.Auth)
			}
			o.Routes = nil
			for j := 0; j < cfg.Servers; j++ {
				if j != i {
					o.Routes = append(o.Routes, &url.URL{Scheme: "nats-route", Host: fmt.Sprintf("127.0.0.1:%d", ports[2*j+1])})
				}
			}
			return o, nil
		}
		o, err := n.build()
		if err != nil {
			t.Fatal(err)
		}
		n.name = o.ServerName
		c.nodes = append(c.nodes, n)
	}
	t.Cleanup(c.Shutdown)
	for i := range c.nodes {
		if err := c.start(i); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyMax)
	defer cancel()
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}

// freePorts returns n distinct free loopback ports, below the kernel's
// ephemeral range (ip_local_port_range): a server restarted later binds the
// same port again, and a port the kernel hands to some other listener of
// port 0 meanwhile (another test's server, in a full parallel run) would
// leave it unable to; below that range only a listener that names the
// port takes it. They are free when returned.
func freePorts(t TB, n int) []int {
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if v, err := strconv.Atoi(f[0]); err == nil {
				low = v
			}
		}
	}
	const floor = 10000
	var ls []net.Listener
	var ports []int
	for tries := 0; len(ports) < n; tries++ {
		port := 0 // the kernel's choice, where the range below is too small or taken
		if low-floor > 1000 && tries < 1000 {
			port = floor + rand.IntN(low-floor)
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			if port == 0 {
				t.Fatal(err)
			}
			continue
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

func (c *Cluster) start(i int) error {
	n := c.nodes[i]
	o, err := n.build()
	if err != nil {
		return fmt.Errorf("cluster: server %s: %w", n.name, err)
	}
	srv, err := server.NewServer(o)
	if err != nil {
		return fmt.Errorf("cluster: server %s: %w", n.name, err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(readyMax) {
		srv.Shutdown()
		return fmt.Errorf("cluster: server %s not ready in %s", n.name, readyMax)
	}
	c.mu.Lock()
	n.srv = srv
	c.mu.Unlock()
	return nil
}

// Size is the number of servers, running or not.
func (c *Cluster) Size() int { return len(c.nodes) }

// ServerName is the name of server i ("n1"…).
func (c *Cluster) ServerName(i int) string { return c.nodes[i].name }

// Server returns server i, nil while it is stopped.
func (c *Cluster) Server(i int) *server.Server {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodes[i].srv
}

// URLs is every server's client URL, comma-separated: bus.Config.NATSURL.
func (c *Cluster) URLs() string {
	var us []string
	for _, n := range c.nodes {
		us = append(us, fmt.Sprintf("nats://127.0.0.1:%d", n.port))
	}
	return strings.Join(us, ",")
}

// URL is server i's client URL.
func (c *Cluster) URL(i int) string { return fmt.Sprintf("nats://127.0.0.1:%d", c.nodes[i].port) }

// Stop shuts server i down (its clients fail over to the others) and waits
// until it is gone. Stopping a stopped server does nothing.
func (c *Cluster) Stop(i int) {
	c.mu.Lock()
	srv := c.nodes[i].srv
	c.nodes[i].srv = nil
	c.mu.Unlock()
	if srv != nil {
		srv.Shutdown()
		srv.WaitForShutdown()
	}
}

// Restart starts a stopped server i again on its ports and store and waits
// until it is current with the cluster.
func (c *Cluster) Restart(ctx context.Context, i int) error {
	if c.Server(i) != nil {
		return fmt.Errorf("cluster: server %s is running", c.nodes[i].name)
	}
	if err := c.start(i); err != nil {
		return err
	}
	return c.WaitReady(ctx)
}

// Shutdown stops every server.
func (c *Cluster) Shutdown() {
	for i := range c.nodes {
		c.Stop(i)
	}
}

// WaitReady polls until every running server is routed to every other
// running one, one of them is the JetStream meta leader and all are
// current.
func (c *Cluster) WaitReady(ctx context.Context) error {
	return poll(ctx, "cluster ready", func() bool {
		var running []*server.Server
		for i := range c.nodes {
			if s := c.Server(i); s != nil {
				running = append(running, s)
			}
		}
		leader := false
		for _, s := range running {
			if s.NumRoutes() < len(running)-1 || !s.JetStreamIsCurrent() {
				return false
			}
			leader = leader || s.JetStreamIsLeader()
		}
		return leader
	})
}

// StreamLeader returns the index of the server leading stream (in
// Config.Account), -1 when none does.
func (c *Cluster) StreamLeader(stream string) int {
	for i := range c.nodes {
		if s := c.Server(i); s != nil && s.JetStreamIsStreamLeader(c.account, stream) {
			return i
		}
	}
	return -1
}

// WaitStreamLeader polls until a running server other than not leads
// stream (not = -1: any) and returns its index.
func (c *Cluster) WaitStreamLeader(ctx context.Context, stream string, not int) (int, error) {
	leader := -1
	err := poll(ctx, "stream leader of "+stream, func() bool {
		leader = c.StreamLeader(stream)
		return leader >= 0 && leader != not
	})
	return leader, err
}

// Open opens a bus over the whole cluster (every URL, fast reconnects) and
// closes it when the test ends.
func (c *Cluster) Open(t TB, cfg bus.Config) *bus.Bus {
	t.Helper()
	cfg.NATSURL = c.URLs()
	if cfg.MsgIDKey == nil {
		cfg.MsgIDKey = c.MsgIDKey()
	}
	if len(cfg.Options) == 0 {
		cfg.Options = c.UserOptions(t, auth.Identity{Role: auth.RoleAdmin})
	} else {
		cfg.Options = append(ClientOptions(), cfg.Options...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyMax)
	defer cancel()
	b, err := bus.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// MsgIDKey is the message-id key every bus Open opens shares (as the
// processes of one installation, which share its material, do), so a
// publish repeated by another process is still a duplicate.
func (c *Cluster) MsgIDKey() []byte {
	if c.auth != nil {
		return c.auth.MsgIDKey()
	}
	return events.DeriveMsgIDKey([]byte("cluster without an operator: " + c.account))
}

// UserOptions are ClientOptions plus the credentials and inbox prefix of a
// new user id (none when the servers trust no operator).
func (c *Cluster) UserOptions(t TB, id auth.Identity) []nats.Option {
	t.Helper()
	if c.auth == nil {
		return ClientOptions()
	}
	u, err := c.auth.Issue(id, 0)
	if err != nil {
		t.Fatal(err)
	}
	return append(ClientOptions(), u.Options()...)
}

// Creds writes a .creds file of a new user id for a child process and
// returns its path ("" when the servers trust no operator).
func (c *Cluster) Creds(t TB, id auth.Identity) string {
	t.Helper()
	if c.auth == nil {
		return ""
	}
	u, err := c.auth.Issue(id, 0)
	if err != nil {
		t.Fatal(err)
	}
	data, err := u.Creds()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), id.String()+".creds")
	if err := auth.WritePrivate(path, data); err != nil {
		t.Fatal(err)
	}
	return path
}

// ServerOptions reads a nats-server configuration file with nats-server's
// own parser, for Config.Options.
func ServerOptions(file string) func(int) (*server.Options, error) {
	return func(int) (*server.Options, error) { return server.ProcessConfigFile(file) }
}

// ClientOptions are the connection options test clients of a cluster use:
// reconnect forever, quickly, and keep publishing into the reconnect buffer
// meanwhile.
func ClientOptions() []nats.Option {
	return []nats.Option{nats.MaxReconnects(-1), nats.ReconnectWait(50 * time.Millisecond), nats.ReconnectJitter(10*time.Millisecond, 10*time.Millisecond)}
}

// errPoll is returned by poll when its context ends first.
var errPoll = errors.New("cluster: condition not met")

// poll checks cond every 10ms until it holds or ctx ends. Waits in this
// package poll with a deadline; nothing sleeps to wait.
func poll(ctx context.Context, what string, cond func() bool) error {
	for !cond() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %s: %v", errPoll, what, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}
