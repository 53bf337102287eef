package auth_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestProducerConnectionsAreBounded (rev11's flood, sec13): through the
// embedded server with the guard running, 300 connections opened with
// acme's producer creds leave at most ProducerConnsMax open (the others
// are closed by the server); globex's producer and the executor role still
// connect and stay, and acme's first connections are the ones kept.
func TestProducerConnectionsAreBounded(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sysOpts, err := b.UserOptions(auth.Identity{Role: auth.RoleSys})
	if err != nil {
		t.Fatal(err)
	}
	sys, err := nats.Connect(b.ClientURL(), sysOpts...)
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close()
	g := auth.NewConnGuard(sys, b.Auth().AccountPublicKey(), 0, slog.New(slog.DiscardHandler))
	done := make(chan error, 1)
	go func() { done <- g.Run(ctx) }()
	time.Sleep(200 * time.Millisecond) // subscribed
	connect := func(id auth.Identity) *nats.Conn {
		opts, err := b.UserOptions(id)
		if err != nil {
			t.Fatal(err)
		}
		nc, err := nats.Connect(b.ClientURL(), append(opts, nats.NoReconnect())...)
		if err != nil {
			return nil
		}
		t.Cleanup(nc.Close)
		return nc
	}
	acme := auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}
	var conns []*nats.Conn
	for range 300 {
		if nc := connect(acme); nc != nil {
			conns = append(conns, nc)
		}
	}
	others := []*nats.Conn{connect(auth.Identity{Role: auth.RoleProducer, Tenant: "globex"}), connect(auth.Identity{Role: auth.RoleExecutor})}
	open := func() int {
		n := 0
		for _, nc := range conns {
			if !nc.IsClosed() {
				n++
			}
		}
		return n
	}
	deadline := time.Now().Add(15 * time.Second)
	for open() > auth.ProducerConnsMax && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	if n := open(); n > auth.ProducerConnsMax {
		t.Fatalf("acme's producer creds hold %d connections open, over %d", n, auth.ProducerConnsMax)
	}
	for i, nc := range conns[:auth.ProducerConnsMax/2] {
		if nc.IsClosed() {
			t.Errorf("acme's connection %d, within the bound, was closed", i)
		}
	}
	for i, nc := range others {
		if nc == nil || nc.IsClosed() || nc.Flush() != nil {
			t.Errorf("connection %d of another identity was refused or closed", i)
		}
	}
	t.Logf("%d connections opened, %d left open, %d kicked", len(conns), open(), g.Kicks())
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
