package stack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"

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
	keys := make(map[string]mcp.Key, len(file.Keys))
	for _, k := range file.Keys {
		keys[k.SHA256] = mcp.Key{Tenant: k.Tenant, User: k.User}
	}
	f, err := registry.Follow(s.ctx, registry.FollowConfig{JS: b.JS, Trust: s.cfg.Projections.Trust, Logger: log})
	if err != nil {
		return fmt.Errorf("--mcp: %w", err)
	}
	c, err := client.Connect(s.ctx, client.WithConn(b.Conn), client.WithKeys(b.Keys), client.WithMsgIDKey(b.MsgIDKey()), client.WithLogger(log))
	if err != nil {
		f.Stop()
		return fmt.Errorf("--mcp: %w", err)
	}
	srv, err := mcp.New(mcp.Config{Keys: keys, Registry: f.Current, Client: c, Logger: log})
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
