package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/auth"
	"github.com/toolstream/toolstream/bus"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/console"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/metrics"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/registry"
)

// consoleKeyFile signs the console's sign-in tokens; consoleURLFile says
// where the console of this --data listens (console-token reads both).
const (
	consoleKeyFile = "console.key"
	consoleURLFile = "console.url"
)

// consoleFlag adds serve's --console ADDR flag.
func consoleFlag(cmd *cobra.Command, addr *string) {
	cmd.Flags().StringVar(addr, "console", "", "serve the web console on ADDR (e.g. 127.0.0.1:8080); sign in with the URL `toolstream console-token` prints. "+
		"With --metrics at the same ADDR one listener carries /metrics and /healthz too; off loopback it needs --tls-cert/--tls-key (or --allow-plaintext)")
}

// startConsole serves the console on d.console until ctx ends, in the
// background (counted by wg); nothing happens when the flag is empty. It
// makes the sign-in key on first use and writes the console's URL into
// --data for console-token. When --metrics names the same address the
// console's listener also serves /metrics and /healthz (and metricsAddr is
// answered "" so serveMetrics does not listen twice).
func startConsole(ctx context.Context, wg *sync.WaitGroup, errc chan<- error, d *deps, b *bus.Bus, runners map[string]*projector.Runner, ex *executor.Executor, metricsAddr string) (string, error) {
	if d.console == "" {
		return metricsAddr, nil
	}
	g, log := d.g, d.log
	key, err := console.LoadKey(filepath.Join(g.authDir(), consoleKeyFile), true)
	if err != nil {
		return "", err
	}
	cfg := console.Config{Bus: b, Key: key, Runners: runners, Executor: ex, Logger: log,
		Forget: func(ctx context.Context, tenant, user, id string) (any, error) {
			c, err := client.Connect(ctx, client.WithConn(b.Conn), client.WithKeys(b.Keys), client.WithLogger(log))
			if err != nil {
				return nil, err
			}
			defer c.Close()
			return forgetRecord(ctx, c, &memory.Op{Op: "forget", Tenant: tenant, User: user, ID: id}, 30*time.Second)
		}}
	follower, err := registry.Follow(ctx, registry.FollowConfig{JS: b.JS, Trust: d.trust, Logger: log})
	if err != nil {
		return "", fmt.Errorf("--console: %w", err)
	}
	cfg.Registry = follower.Current
	var m *metrics.Metrics
	if metricsAddr == d.console {
		if m, err = metrics.New(metrics.Sources{Bus: b, Runners: runners, Executor: ex, Logger: log}); err != nil {
			follower.Stop()
			return "", err
		}
		cfg.Extra = m.Handler()
		metricsAddr = ""
	}
	srv, err := console.New(cfg)
	if err != nil {
		follower.Stop()
		return "", err
	}
	ln, u, err := consoleListen(g, d.console)
	if err != nil {
		follower.Stop()
		return "", err
	}
	if err := os.WriteFile(filepath.Join(g.data, consoleURLFile), []byte(u+"\n"), 0o644); err != nil {
		ln.Close()
		follower.Stop()
		return "", fmt.Errorf("--console: %w", err)
	}
	log.Info("console", "url", u, "sign_in", "toolstream console-token --data "+g.data)
	if m != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := m.Run(ctx); err != nil {
				log.Warn("metrics observer stopped", "err", err)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer follower.Stop()
		if err := srv.Serve(ctx, ln); err != nil {
			select {
			case errc <- fmt.Errorf("--console: %w", err):
			case <-ctx.Done():
			}
		}
	}()
	return metricsAddr, nil
}

// consoleListen listens on addr for the console and returns its URL: with
// --tls-cert and --tls-key over TLS (https), else in the clear, which only
// a loopback address or --allow-plaintext may (as for the embedded NATS
// server: a sign-in token and a session cookie must not cross a network
// unencrypted).
func consoleListen(g *globals, addr string) (net.Listener, string, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, "", fmt.Errorf("--console %q: %w", addr, err)
	}
	tlsOn := g.tlsCert != "" && g.tlsKey != ""
	if !tlsOn && !g.plaintext && !bus.Loopback(host) {
		return nil, "", fmt.Errorf("%w: --console %s: a non-loopback address needs TLS: give --tls-cert and --tls-key "+
			"(PEM files), or --allow-plaintext to accept unencrypted sign-ins from the network", bus.ErrInvalidConfig, addr)
	}
	var cfg *tls.Config
	if tlsOn {
		cert, err := tls.LoadX509KeyPair(g.tlsCert, g.tlsKey)
		if err != nil {
			return nil, "", fmt.Errorf("--console: %w", err)
		}
		cfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("--console: listen %s: %w", addr, err)
	}
	if cfg != nil {
		return tls.NewListener(ln, cfg), "https://" + ln.Addr().String(), nil
	}
	return ln, "http://" + ln.Addr().String(), nil
}

func consoleTokenCmd(g *globals) *cobra.Command {
	var tenant, role, base string
	var ttl time.Duration
	cmd := &cobra.Command{
		Use:   "console-token [--tenant T] [--role operator|reader]",
		Short: "Print a one-time sign-in URL for the web console (serve --console)",
		Long: `console-token prints a URL that signs a browser in to the console of the serve running on this
--data, once: the token in it is signed with --data/auth/console.key (made by serve --console),
expires after --ttl and is refused a second time. The session it opens has the role given
(operator: sees every tenant, approves, denies, corrects and forgets; reader: sees, changes
nothing) and, with --tenant, sees that tenant only.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			key, err := console.LoadKey(filepath.Join(g.authDir(), consoleKeyFile), false)
			if err != nil {
				return err
			}
			if base == "" {
				data, err := os.ReadFile(filepath.Join(g.data, consoleURLFile))
				if errors.Is(err, fs.ErrNotExist) {
					return fmt.Errorf("no console has run on --data %s (serve --console ADDR), or give --url", g.data)
				}
				if err != nil {
					return err
				}
				base = strings.TrimSpace(string(data))
			}
			tok, err := console.Mint(key, console.Grant{Role: auth.Role(role), Tenant: tenant}, time.Now().Add(ttl))
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(g.stdout, "%s/signin?token=%s\n", strings.TrimRight(base, "/"), url.QueryEscape(tok))
			return err
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "sign in a viewer of this tenant only (default: every tenant)")
	cmd.Flags().StringVar(&role, "role", string(auth.RoleOperator), "operator (may act) or reader (sees only)")
	cmd.Flags().StringVar(&base, "url", "", "the console's address (default: what the serve on --data wrote to --data/"+consoleURLFile+")")
	cmd.Flags().DurationVar(&ttl, "ttl", 10*time.Minute, "how long the link may be used (once)")
	return cmd
}
