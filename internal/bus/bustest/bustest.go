// Package bustest starts a real embedded nats-server with JetStream for
// tests: file storage in a temporary directory, a free loopback port, so
// child processes can connect too.
package bustest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/keys"
)

// Start opens a Bus on an embedded server and closes it when t ends.
func Start(t testing.TB) *bus.Bus {
	t.Helper()
	return StartIn(t, t.TempDir())
}

// StartIn is Start with a chosen data directory.
func StartIn(t testing.TB, dir string) *bus.Bus {
	t.Helper()
	return start(t, bus.Config{DataDir: dir, Listen: "127.0.0.1:-1", Name: "test"})
}

// StartWith is Start with cfg (its KeysUserMax, DuplicateWindow, …); the
// data directory, listen address and name are the test's.
func StartWith(t testing.TB, cfg bus.Config) *bus.Bus {
	t.Helper()
	cfg.DataDir, cfg.Listen, cfg.Name = t.TempDir(), "127.0.0.1:-1", "test"
	return start(t, cfg)
}

// StartTenants is Start in the layout with per-tenant ingress streams
// (bus.Config.TenantStreams), each of tenants' ensured.
func StartTenants(t testing.TB, tenants ...string) *bus.Bus {
	t.Helper()
	return StartTenantsIn(t, t.TempDir(), tenants...)
}

// StartTenantsIn is StartTenants with a chosen data directory.
func StartTenantsIn(t testing.TB, dir string, tenants ...string) *bus.Bus {
	t.Helper()
	return StartTenantsWith(t, bus.Config{DataDir: dir}, tenants...)
}

// StartTenantsWith is StartTenants with cfg (its DataDir, DuplicateWindow,
// …); the listen address, name and layout are the test's.
func StartTenantsWith(t testing.TB, cfg bus.Config, tenants ...string) *bus.Bus {
	t.Helper()
	cfg.Listen, cfg.Name, cfg.TenantStreams = "127.0.0.1:-1", "test", true
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	b := start(t, cfg)
	for _, tenant := range tenants {
		if err := b.EnsureTenant(context.Background(), tenant); err != nil {
			t.Fatalf("bustest: %v", err)
		}
	}
	return b
}

func start(t testing.TB, cfg bus.Config) *bus.Bus {
	t.Helper()
	b, err := bus.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("bustest: %v", err)
	}
	// As serve does: personal data is sealed under the data keys, and the
	// keys service (under the keys role) answers the other identities.
	if b.Keys, err = keys.Open(context.Background(), keys.Config{JS: b.JS, Create: true, UserKeysMax: cfg.KeysUserMax, RecordKeysMax: cfg.KeysRecordMax}); err != nil {
		b.Close()
		t.Fatalf("bustest: %v", err)
	}
	stop, err := StartKeys(b)
	if err != nil {
		b.Close()
		t.Fatalf("bustest: %v", err)
	}
	t.Cleanup(func() { stop(); b.Close() })
	return b
}

// StartKeys serves the keys service on b's embedded server under the keys
// role's identity, as serve does (bus.StartKeys), and returns what stops
// it. The bucket must exist (b.Keys made it).
func StartKeys(b *bus.Bus) (stop func(), err error) {
	svc, nc, err := b.StartKeys(context.Background(), nil)
	if err != nil {
		return nil, err
	}
	return func() { svc.Stop(); nc.Close() }, nil
}

// Creds writes a .creds file of a new user id of b's embedded server and
// returns its path, for child processes (auth.CredsOptions reads it).
func Creds(t testing.TB, b *bus.Bus, id auth.Identity) string {
	t.Helper()
	u, err := b.Auth().Issue(id, 0)
	if err != nil {
		t.Fatalf("bustest: %v", err)
	}
	data, err := u.Creds()
	if err != nil {
		t.Fatalf("bustest: %v", err)
	}
	path := filepath.Join(t.TempDir(), id.String()+".creds")
	if err := auth.WritePrivate(path, data); err != nil {
		t.Fatalf("bustest: %v", err)
	}
	return path
}

// Admin is the identity of every bus Start opens.
var Admin = auth.Identity{Role: auth.RoleAdmin}

// WaitEvents polls the log until ok accepts the events on subjects
// (b.ReadEvents), or ctx ends; it returns the events ok accepted, or the
// last read with ctx's error.
func WaitEvents(ctx context.Context, b *bus.Bus, subjects []string, ok func([]*events.Event) bool) ([]*events.Event, error) {
	for {
		evs, err := b.ReadEvents(ctx, subjects)
		if err != nil {
			return nil, err
		}
		if ok(evs) {
			return evs, nil
		}
		select {
		case <-ctx.Done():
			return evs, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// RoleJS is a nats.go client of b's embedded server holding a new user id
// of id's role (a forging client, in attack tests), closed when t ends.
func RoleJS(t testing.TB, b *bus.Bus, id auth.Identity) jetstream.JetStream {
	t.Helper()
	opts, err := b.UserOptions(id)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(b.ClientURL(), append(opts, nats.Name("test-"+id.String()), nats.NoCallbacksAfterClientClose(),
		nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}
