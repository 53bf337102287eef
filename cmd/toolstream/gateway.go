package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/bus"
	"github.com/toolstream/toolstream/gateway"
	"github.com/toolstream/toolstream/registry"
)

// gatewayFlags are serve's --gateway ADDR and --gateway-config FILE.
type gatewayFlags struct {
	addr, config string
}

func gatewayFlag(cmd *cobra.Command, f *gatewayFlags) {
	cmd.Flags().StringVar(&f.addr, "gateway", "", "serve the HTTP gateway (OpenAI Chat Completions and Responses, Anthropic Messages) on ADDR, e.g. 127.0.0.1:8080")
	cmd.Flags().StringVar(&f.config, "gateway-config", "", "the gateway's YAML config: upstreams, the clients' hashed keys, heartbeat (see README, Gateway)")
}

// startGateway serves the gateway until ctx ends, when --gateway is set.
// A shutdown lets the upstream reads of clients that went away end and be
// logged, for up to 30 seconds.
func startGateway(ctx context.Context, wg *sync.WaitGroup, errc chan<- error, f gatewayFlags, b *bus.Bus, trust *registry.Trust, log *slog.Logger) error {
	if f.addr == "" {
		if f.config != "" {
			return errors.New("--gateway-config needs --gateway ADDR")
		}
		return nil
	}
	if f.config == "" {
		return errors.New("--gateway needs --gateway-config FILE")
	}
	file, err := gateway.LoadFile(f.config)
	if err != nil {
		return err
	}
	rm, err := newRunMode(ctx, b, trust, log)
	if err != nil {
		return err
	}
	rm.server.Heartbeat = file.Heartbeat
	g, err := gateway.New(gateway.Config{File: *file, JS: b.JS, Keys: b.Keys, Logger: log, Runner: rm.server})
	if err != nil {
		rm.follower.Stop()
		return err
	}
	if err := rm.attach(ctx, b, g, f.addr, log); err != nil {
		rm.follower.Stop()
		return err
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("--gateway: %w", err)
	}
	srv := &http.Server{Handler: g, ReadHeaderTimeout: 10 * time.Second}
	log.Info("gateway", "addr", ln.Addr().String(), "upstreams", len(file.Upstreams), "keys", len(file.Keys))
	wg.Add(1)
	go func() {
		defer wg.Done()
		go func() {
			<-ctx.Done()
			stop, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			srv.Shutdown(stop)
			g.Wait(stop)
			rm.stop(stop)
		}()
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			select {
			case errc <- fmt.Errorf("--gateway: %w", err):
			case <-ctx.Done():
			}
		}
	}()
	return nil
}
