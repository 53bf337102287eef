package stack

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"

	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/console"
	"github.com/toolstream/toolstream/internal/metrics"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/registry"
)

// Console is the web console of a stack. Its errors name serve's flags
// (--console, --tls-cert…), as the bus's do.
type Console struct {
	// Addr to listen on ("": no console). With MetricsAddr the same, one
	// listener carries /metrics and /healthz too.
	Addr string
	// KeyFile signs the sign-in tokens; made on first use.
	KeyFile string
	// UsedFile remembers the redeemed sign-in tokens across restarts
	// (console.Config.UsedFile); default console-used beside KeyFile.
	UsedFile string
	// URLFile receives the console's URL (for whoever mints sign-ins).
	URLFile string
	// TLSCert and TLSKey (PEM files) serve it over TLS; without them only
	// a loopback address, or AllowPlaintext, may serve it in the clear (a
	// sign-in token and a session cookie must not cross a network
	// unencrypted).
	TLSCert, TLSKey string
	AllowPlaintext  bool
	// Forget erases a memory record for the console's forget button (nil:
	// Forget over the stack's connection).
	Forget func(ctx context.Context, tenant, user, id string) (any, error)
}

// startConsole serves the console until the stack stops, when its Addr is
// set. When metricsAddr is the console's address the console's listener
// also serves /metrics and /healthz, and the answer is "" so serveMetrics
// does not listen twice.
func (s *Stack) startConsole(runners map[string]*projector.Runner, metricsAddr string) (string, error) {
	c, b, log, ctx := s.cfg.Console, s.cfg.Bus, s.log, s.ctx
	if c.Addr == "" {
		return metricsAddr, nil
	}
	key, err := console.LoadKey(c.KeyFile, true)
	if err != nil {
		return "", err
	}
	if c.UsedFile == "" {
		c.UsedFile = filepath.Join(filepath.Dir(c.KeyFile), "console-used")
	}
	cfg := console.Config{Bus: b, Key: key, UsedFile: c.UsedFile, Runners: runners, Executor: s.executor, Logger: log, Forget: c.Forget,
		IdleTimeout: IdleTimeout, MaxHeaderBytes: MaxHeaderBytes}
	if cfg.Forget == nil {
		cfg.Forget = s.consoleForget
	}
	follower, err := registry.Follow(ctx, registry.FollowConfig{JS: b.JS, Trust: s.cfg.Projections.Trust, Logger: log})
	if err != nil {
		return "", fmt.Errorf("--console: %w", err)
	}
	s.onStop(follower.Stop)
	cfg.Registry = follower.Current
	var m *metrics.Metrics
	if metricsAddr == c.Addr {
		if m, err = metrics.New(metrics.Sources{Bus: b, Runners: runners, Executor: s.executor, Logger: log, Collectors: s.collectors()}); err != nil {
			return "", err
		}
		cfg.Extra = m.Handler()
		metricsAddr = ""
	}
	srv, err := console.New(cfg)
	if err != nil {
		return "", err
	}
	ln, u, err := consoleListen(c, log)
	if err != nil {
		return "", err
	}
	// Atomically: console-token may read the file the moment it exists.
	if err := auth.WritePrivate(c.URLFile, []byte(u+"\n")); err != nil {
		ln.Close()
		return "", fmt.Errorf("--console: %w", err)
	}
	s.consoleURL = u
	if m != nil {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if err := m.Run(ctx); err != nil {
				log.Warn("metrics observer stopped", "err", err)
			}
		}()
	}
	s.goRun("--console", func(ctx context.Context) error { return srv.Serve(ctx, ln) })
	return metricsAddr, nil
}

// consoleListen listens on the console's address and returns its URL:
// over TLS (https) with a certificate, else in the clear, which only a
// loopback address or AllowPlaintext may (as for the embedded NATS server).
func consoleListen(c Console, log *slog.Logger) (net.Listener, string, error) {
	host, _, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return nil, "", fmt.Errorf("--console %q: %w", c.Addr, err)
	}
	tlsOn := c.TLSCert != "" && c.TLSKey != ""
	if !tlsOn && !c.AllowPlaintext && !bus.Loopback(host) {
		return nil, "", fmt.Errorf("%w: --console %s: a non-loopback address needs TLS: give --tls-cert and --tls-key "+
			"(PEM files), or --allow-plaintext to accept unencrypted sign-ins from the network", bus.ErrInvalidConfig, c.Addr)
	}
	var cfg *tls.Config
	if tlsOn {
		cert, err := tls.LoadX509KeyPair(c.TLSCert, c.TLSKey)
		if err != nil {
			return nil, "", fmt.Errorf("--console: %w", err)
		}
		cfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return nil, "", fmt.Errorf("--console: listen %s: %w", c.Addr, err)
	}
	// A bounded share of the descriptors (listen.go); over TLS a refused
	// connection is closed without an answer.
	ln = limitListen(ln, ConsoleConnsMax(noFile()), cfg == nil, log, "console")
	if cfg != nil {
		return tls.NewListener(ln, cfg), "https://" + ln.Addr().String(), nil
	}
	return ln, "http://" + ln.Addr().String(), nil
}

// serveMetrics serves the process's metrics and health on addr until the
// stack stops; nothing happens when addr is empty. An error (the address
// is taken) stops the stack.
func (s *Stack) serveMetrics(addr string, runners map[string]*projector.Runner) {
	if addr == "" {
		return
	}
	src := metrics.Sources{Bus: s.cfg.Bus, Runners: runners, Executor: s.executor, Logger: s.log, Collectors: s.collectors()}
	s.goRun("--metrics", func(ctx context.Context) error {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("metrics: listen %s: %w", addr, err)
		}
		return metrics.ServeListener(ctx, limitListen(ln, metricsConnsMax, true, s.log, "metrics"), src)
	})
}
