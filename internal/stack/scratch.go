package stack

import (
	"context"
	"log/slog"
	"os"

	"github.com/toolstream/toolstream/internal/bus"
)

// Scratch is an embedded server in a temporary directory, for a one-shot
// run (toolstream assemble, memory run, the demo): its log, its keys and
// the views made under Dir go away with it.
type Scratch struct {
	Bus *bus.Bus
	Dir string // the temporary directory: the server's data, and room for views
}

// OpenScratch starts an embedded server named name with its data keys
// (bus.OpenWithKeys) in a new temporary directory, listening on a free local port.
// Close it after use.
func OpenScratch(ctx context.Context, name string, log *slog.Logger) (*Scratch, error) {
	dir, err := os.MkdirTemp("", "toolstream-"+name+"-")
	if err != nil {
		return nil, err
	}
	b, err := bus.OpenWithKeys(ctx, bus.Config{DataDir: dir, Listen: "127.0.0.1:-1", Logger: log, Name: name})
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
