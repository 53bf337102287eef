package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/toolstream/toolstream/agent"
	"github.com/toolstream/toolstream/bus"
	"github.com/toolstream/toolstream/gateway"
	"github.com/toolstream/toolstream/registry"
	"github.com/toolstream/toolstream/runs"
)

// runMode is the gateway's run mode in serve: a RunServer whose driver
// sends the rounds through the gateway, offers the registry in force (the
// tools file serve --tools follows: a tool added there reaches the next
// round without a restart), and, on start, resumes the runs it was
// driving when the process ended.
type runMode struct {
	server   *gateway.RunServer
	follower *registry.Follower
	driver   *agent.Driver
}

func newRunMode(ctx context.Context, b *bus.Bus, trust *registry.Trust, log *slog.Logger) (*runMode, error) {
	f, err := registry.Follow(ctx, registry.FollowConfig{JS: b.JS, Trust: trust, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("--gateway run mode: %w", err)
	}
	return &runMode{server: &gateway.RunServer{Logger: log}, follower: f}, nil
}

// driverName names this gateway in the run leases: the same after a
// restart (so a restarted gateway takes its runs back at once), another for
// another gateway. TOOLSTREAM_GATEWAY_DRIVER overrides it.
func driverName(addr string) string {
	if n := os.Getenv("TOOLSTREAM_GATEWAY_DRIVER"); n != "" {
		return n
	}
	host, _ := os.Hostname()
	return "gateway@" + host + "/" + addr
}

// attach makes the driver over g and resumes the runs it was driving.
func (m *runMode) attach(ctx context.Context, b *bus.Bus, g *gateway.Gateway, addr string, log *slog.Logger) error {
	leases, err := runs.NewLeases(ctx, runs.LeaseConfig{JS: b.JS, Replicas: b.Replicas()})
	if err != nil {
		return fmt.Errorf("--gateway run mode: %w", err)
	}
	name := driverName(addr)
	m.driver, err = agent.New(ctx, agent.Config{Model: gateway.Model(g), Conn: b.Conn, JS: b.JS, Keys: b.Keys, Leases: leases,
		Registry: m.follower.Current, Driver: name, Replicas: b.Replicas(), Logger: log})
	if err != nil {
		return fmt.Errorf("--gateway run mode: %w", err)
	}
	m.server.Driver = m.driver
	n, err := m.driver.Resume(ctx)
	if err != nil {
		return fmt.Errorf("--gateway run mode: %w", err)
	}
	log.Info("gateway run mode", "driver", name, "resumed", n)
	return nil
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
	m.follower.Stop()
}
