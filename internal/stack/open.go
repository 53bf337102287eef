package stack

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/keys"
)

// Open opens the bus cfg describes and its data keys (package keys), which
// seal personal data in the log. The admin and the keys role reach the key
// bucket itself: an embedded server's is made on first use; on an external
// server `toolstream setup` made it (Open waits up to ten seconds for it).
// Every other identity (cfg.Identity: the embedded server's own
// connection's, or on an external server the one its credentials hold,
// when the caller says; unknown is taken as the bucket's) asks the keys
// service for its keys (keys.Config.Remote). A producer's identity
// (cfg.ConnectOnly) needs none. The caller closes the bus.
func Open(ctx context.Context, cfg bus.Config) (*bus.Bus, error) {
	keyring := cfg.Identity.Role == auth.RoleKeyring
	if keyring {
		cfg.ConnectOnly = true // it reads no stream of the log, only the key bucket
	}
	b, err := bus.Open(ctx, cfg)
	if err != nil || cfg.ConnectOnly && !keyring {
		return b, err
	}
	kc := keys.Config{JS: b.JS, Logger: cfg.Logger}
	switch cfg.Identity.Role {
	case "", auth.RoleAdmin, auth.RoleKeyring:
		kc.Create, kc.Replicas, kc.SetupMax = b.Embedded(), b.Replicas(), 10*time.Second
	default:
		kc.Remote = true
	}
	kr, err := keys.Open(ctx, kc)
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("%w (toolstream setup makes it on a cluster)", err)
	}
	b.Keys = kr
	return b, nil
}

// StartKeys serves the keys service (package keys), the one writer of the
// data keys, under the keys role's identity: on an embedded server a
// connection of its own as that role; on an external one b's connection,
// which must be that role's (or the admin's). Stop the service, then
// close the returned connection (nil when it is b's).
func StartKeys(ctx context.Context, b *bus.Bus, log *slog.Logger) (micro.Service, *nats.Conn, error) {
	if !b.Embedded() {
		svc, err := keys.StartService(ctx, b.Conn, keys.Config{JS: b.JS, Logger: log, SetupMax: 10 * time.Second})
		if err != nil {
			return nil, nil, fmt.Errorf("the keys service (it needs the keys role's credentials, --creds): %w", err)
		}
		return svc, nil, nil
	}
	opts, err := b.UserOptions(auth.Identity{Role: auth.RoleKeyring})
	if err != nil {
		return nil, nil, err
	}
	nc, err := nats.Connect(b.ClientURL(), append(opts, nats.Name("toolstream-keys"), nats.MaxReconnects(-1))...)
	if err != nil {
		return nil, nil, fmt.Errorf("the keys service: connect: %w", err)
	}
	svc, err := keys.StartService(ctx, nc, keys.Config{Logger: log, SetupMax: 10 * time.Second})
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return svc, nc, nil
}

// Scratch is an embedded server in a temporary directory, for a one-shot
// run (toolstream assemble, memory run, the demo): its log, its keys and
// the views made under Dir go away with it.
type Scratch struct {
	Bus *bus.Bus
	Dir string // the temporary directory: the server's data, and room for views
}

// OpenScratch starts an embedded server named name with its data keys
// (Open) in a new temporary directory, listening on a free local port.
// Close it after use.
func OpenScratch(ctx context.Context, name string, log *slog.Logger) (*Scratch, error) {
	dir, err := os.MkdirTemp("", "toolstream-"+name+"-")
	if err != nil {
		return nil, err
	}
	b, err := Open(ctx, bus.Config{DataDir: dir, Listen: "127.0.0.1:-1", Logger: log, Name: name})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &Scratch{Bus: b, Dir: dir}, nil
}

// Close stops the server and removes its directory.
func (s *Scratch) Close() {
	s.Bus.Close()
	os.RemoveAll(s.Dir)
}
