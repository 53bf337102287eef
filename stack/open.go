package stack

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/toolstream/toolstream/bus"
	"github.com/toolstream/toolstream/keys"
)

// Open opens the bus cfg describes and its data keys (package keys), which
// seal personal data in the log: an embedded server's are made on first
// use; on an external server `toolstream setup` made the bucket (Open waits
// up to ten seconds for it); a producer's identity (cfg.ConnectOnly) needs
// none. The caller closes the bus.
func Open(ctx context.Context, cfg bus.Config) (*bus.Bus, error) {
	b, err := bus.Open(ctx, cfg)
	if err != nil || cfg.ConnectOnly {
		return b, err
	}
	kr, err := keys.Open(ctx, keys.Config{JS: b.JS, Create: b.Embedded(), Replicas: b.Replicas(), Logger: cfg.Logger, SetupMax: 10 * time.Second})
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("%w (toolstream setup makes it on a cluster)", err)
	}
	b.Keys = kr
	return b, nil
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
