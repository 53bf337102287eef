package stack

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/logread"
)

// OneShotGOGC is the garbage collector's target (debug.SetGCPercent) that
// `toolstream assemble` runs with unless GOGC says otherwise: the process
// lives for one input and its live heap is small (the views are on disk,
// the log in the embedded server), so fewer collections for more memory
// shorten it (measured: the "whole path" rows of toolstream bench).
const OneShotGOGC = 400

// OneShotMemoryLimit is the soft memory limit (debug.SetMemoryLimit) that
// goes with OneShotGOGC unless GOMEMLIMIT says otherwise: the collector
// works harder as the heap nears it, so a hostile input cannot turn the
// fewer collections into hundreds of MiB (TestInputBudgets: 1 MiB of
// input within 256 MiB).
const OneShotMemoryLimit = 160 << 20

// AssembleConfig is one one-shot assembly (toolstream assemble).
type AssembleConfig struct {
	// Bus is the log: one that holds nothing but what the one-shot writes
	// (a fresh embedded server, and the registry when there is one), since
	// every call and response outcome in it is read back. Its Keys seal.
	Bus *bus.Bus
	// Dir holds the assembler's view.
	Dir string
	// Assembler configures the assembler projection.
	Assembler assembler.Config
	// Stream names the provider stream and its envelope (Raw is ignored:
	// the one-shot normalises here).
	Stream client.Stream
	// Logger; nil discards.
	Logger *slog.Logger
}

// Assemble runs the assembler over the provider stream read from r: the
// stream is normalised here and published, sealed and without message ids
// (client.WithoutMsgIDs: nothing else writes this log), as model events
// (client.Writer), while the assembler applies them; once it has
// decided everything, every call and response outcome of the log is read
// back, whole streams unfiltered (a filtered read of a stream with many
// subjects costs the server far more), and returned one line each, sorted
// (assembler.SortLines).
func Assemble(ctx context.Context, cfg AssembleConfig, r io.Reader) ([]assembler.Line, error) {
	b := cfg.Bus
	n := NewNode(b, cfg.Dir, cfg.Logger)
	defer n.Stop()
	if _, err := n.Start(ctx, assembler.New(cfg.Assembler), nil); err != nil {
		return nil, err
	}
	// The one-shot's log is its own and written once by this one writer,
	// which never retries a publish: no message ids (client.WithoutMsgIDs).
	c, err := client.Connect(ctx, client.WithConn(b.Conn), client.WithKeys(b.Keys), client.WithMsgIDKey(b.MsgIDKey()), client.WithoutMsgIDs(), client.WithLogger(cfg.Logger))
	if err != nil {
		return nil, err
	}
	defer c.Close()
	s := cfg.Stream
	s.Raw = false
	if _, err := c.Publish(ctx, r, client.WithStream(s)); err != nil {
		return nil, err
	}
	if err := n.Settle(ctx, assembler.Name); err != nil {
		return nil, err
	}
	var lines []assembler.Line
	for _, stream := range []string{events.StreamCalls, events.StreamOut} {
		err := b.Read(ctx, logread.Config{Stream: stream}, func(batch []*logread.Msg) error {
			for _, m := range batch {
				ev, err := events.DecodeAtWith(m.Subject, m.Data, b.Keys)
				if err != nil {
					return fmt.Errorf("stack: one-shot outcome at %s seq %d: %w", stream, m.Seq, err)
				}
				if l, ok := assembler.LineOf(ev); ok {
					lines = append(lines, l)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	assembler.SortLines(lines)
	return lines, nil
}
