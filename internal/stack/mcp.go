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
	"syscall"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/gateway"
	"github.com/toolstream/toolstream/internal/mcp"
	"github.com/toolstream/toolstream/registry"
)

// MCP is the Model Context Protocol endpoint of a stack (package mcp):
// the registry's tools over Streamable HTTP at /mcp, for the keys of the
// gateway's configuration file (Gateway.ConfigFile). Its errors name
// serve's flags (--mcp, --gateway-config).
type MCP struct {
	// Addr to listen on ("": none).
	Addr string
}

// startMCP serves the MCP endpoint until the stack stops, when its Addr is
// set.
func (s *Stack) startMCP() error {
	addr, b, log := s.cfg.MCP.Addr, s.cfg.Bus, s.log
	if addr == "" {
		return nil
	}
	if s.cfg.Gateway.ConfigFile == "" {
		return errors.New("--mcp needs --gateway-config FILE (its keys are the MCP clients' keys)")
	}
	file, err := gateway.LoadFile(s.cfg.Gateway.ConfigFile)
	if err != nil {
		return err
	}
	// The MCP server publishes each call on its key's tenant's subjects:
	// on a log with per-tenant ingress streams that tenant's stream must
	// exist, as for the gateway's keys (serve --mcp without --gateway
	// made none, and every call was refused: the README's script found it).
	if err := ensureKeyTenants(s.ctx, b, log, file); err != nil {
		return fmt.Errorf("--mcp: %w", err)
	}
	keys := mcpKeys(file)
	f, err := registry.Follow(s.ctx, registry.FollowConfig{JS: b.JS, Trust: s.cfg.Projections.Trust, Logger: log})
	if err != nil {
		return fmt.Errorf("--mcp: %w", err)
	}
	c, err := client.Connect(s.ctx, client.WithConn(b.Conn), client.WithKeys(b.Keys), client.WithMsgIDKey(b.MsgIDKey()), client.WithLogger(log))
	if err != nil {
		f.Stop()
		return fmt.Errorf("--mcp: %w", err)
	}
	// A key holds no more of /mcp than of the gateway: the same
	// key_requests_max and body_read_timeout (their defaults when unset).
	srv, err := mcp.New(mcp.Config{Keys: keys, Registry: f.Current, Client: c, Logger: log,
		KeyRequestsMax: file.Limits.KeyRequestsMax, BodyReadTimeout: file.Limits.BodyReadTimeout})
	if err != nil {
		f.Stop()
		return fmt.Errorf("--mcp: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		f.Stop()
		return fmt.Errorf("--mcp: %w", err)
	}
	conns := file.Limits.ConnsMax
	if conns == 0 {
		conns = GatewayConnsMax(noFile())
	}
	ln = limitListen(ln, conns, true, log, "mcp")
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: ReadHeaderTimeout, IdleTimeout: IdleTimeout, MaxHeaderBytes: MaxHeaderBytes,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	log.Info("mcp", "addr", ln.Addr().String(), "path", mcp.Path, "keys", len(keys), "conns_max", conns)
	// The keys follow the config and its keys file as the gateway's do
	// (on change, and on SIGHUP): a key taken out is refused here too.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	s.goRun("--mcp keys", func(ctx context.Context) error {
		defer signal.Stop(hup)
		gateway.WatchFile(ctx, log.With("for", "mcp"), s.cfg.Gateway.ConfigFile, file, 0, hup,
			func(f *gateway.File) error {
				if err := ensureKeyTenants(ctx, b, log, f); err != nil {
					log.Error("mcp keys reloaded; a tenant's ingress stream was not made", "err", err)
				}
				return srv.SetKeys(mcpKeys(f))
			})
		return nil
	})
	s.goRun("--mcp", func(ctx context.Context) error {
		go func() {
			<-ctx.Done()
			stop, cancel := context.WithTimeout(context.Background(), ShutdownMax)
			defer cancel()
			hs.Shutdown(stop)
			f.Stop()
		}()
		if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
	return nil
}

// mcpKeys are the MCP endpoint's keys of a gateway configuration: each
// key's tenant, user and expiry.
func mcpKeys(f *gateway.File) map[string]mcp.Key {
	keys := make(map[string]mcp.Key, len(f.Keys))
	for _, k := range f.Keys {
		keys[k.SHA256] = mcp.Key{Tenant: k.Tenant, User: k.User, Expires: k.Expires}
	}
	return keys
}
