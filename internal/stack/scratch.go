package stack

import (
	"context"
	"log/slog"
	"os"
	"time"

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
	s, err := OpenScratchIn(ctx, dir, name, log)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// OpenScratchIn is OpenScratch in dir, an empty directory the caller made
// (a benchmark's, which times what toolstream assemble does); Close
// removes it as well.
func OpenScratchIn(ctx context.Context, dir, name string, log *slog.Logger) (*Scratch, error) {
	b, err := bus.OpenWithKeys(ctx, bus.Config{DataDir: dir, Listen: "127.0.0.1:-1", Logger: log, Name: name})
	if err != nil {
		return nil, err
	}
	return &Scratch{Bus: b, Dir: dir}, nil
}

// scratchDeleteMax bounds the deletion of a scratch server's streams at
// Close; past it the server is shut down as it is.
const scratchDeleteMax = 10 * time.Second

// Close deletes the server's streams, stops it and removes its directory.
// Call it once everything that uses the bus has returned.
//
// What the streams hold goes away with the directory, so Close deletes
// them first (a request each, answered once the server has applied what
// came before it) and closes the connection without draining it (nothing
// it would still deliver has a reader): a server shut down with its
// streams writes and syncs every stream's and consumer's state for nobody,
// which took 60 ms of a 350 ms toolstream assemble on the whole path's
// input, and a drain waits out nats.go's 10 ms polls (about 20 ms).
func (s *Scratch) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), scratchDeleteMax)
	defer cancel()
	b := s.Bus
	if b.Conn != nil && b.JS != nil && b.Embedded() {
		var names []string
		l := b.JS.StreamNames(ctx)
		for name := range l.Name() {
			names = append(names, name)
		}
		for _, name := range names {
			if err := b.JS.DeleteStream(ctx, name); err != nil {
				break // shut down as it is: the directory goes anyway
			}
		}
		b.Conn.Close()
	}
	b.Close()
	os.RemoveAll(s.Dir)
}
