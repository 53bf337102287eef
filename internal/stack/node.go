package stack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/projector"
)

// Node runs projections over one bus, each with its view in Dir/<name>.
type Node struct {
	Bus *bus.Bus
	Dir string
	Log *slog.Logger

	mu      sync.Mutex
	runners map[string]*projector.Runner
	stops   []func() error
	errs    chan error
}

// NewNode returns a node over b with views under dir.
func NewNode(b *bus.Bus, dir string, log *slog.Logger) *Node {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Node{Bus: b, Dir: dir, Log: log, runners: map[string]*projector.Runner{}, errs: make(chan error, 16)}
}

// Start runs p until Stop. mut may adjust the runner's config.
func (n *Node) Start(ctx context.Context, p projector.Projection, mut func(*projector.Config)) (*projector.Runner, error) {
	cfg := projector.Config{JS: n.Bus.JS, Dir: filepath.Join(n.Dir, p.Name()), Logger: n.Log, Keys: n.Bus.Keys, MsgIDKey: n.Bus.MsgIDKey()}
	if mut != nil {
		mut(&cfg)
	}
	r, err := projector.New(cfg, p)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := r.Run(ctx); err != nil {
			n.Log.Error("projection stopped", "projection", p.Name(), "err", err)
			select {
			case n.errs <- fmt.Errorf("projection %s: %w", p.Name(), err):
			default:
			}
		}
	}()
	n.mu.Lock()
	n.runners[p.Name()] = r
	n.stops = append(n.stops, func() error { cancel(); <-done; return r.Close() })
	n.mu.Unlock()
	return r, nil
}

// Errors delivers the first errors of projections that stopped.
func (n *Node) Errors() <-chan error { return n.errs }

// Runner returns a running projection by name.
func (n *Node) Runner(name string) (*projector.Runner, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	r, ok := n.runners[name]
	return r, ok
}

// Runners returns every running projection by name.
func (n *Node) Runners() map[string]*projector.Runner {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make(map[string]*projector.Runner, len(n.runners))
	for k, v := range n.runners {
		out[k] = v
	}
	return out
}

// Stop stops every projection, last started first.
func (n *Node) Stop() error {
	n.mu.Lock()
	stops := n.stops
	n.stops = nil
	n.mu.Unlock()
	var errs []error
	for i := len(stops) - 1; i >= 0; i-- {
		errs = append(errs, stops[i]())
	}
	return errors.Join(errs...)
}

// Settle waits until the named projection has applied the last message now
// in the stream it reads and relayed its outbox. A projection that emits
// into the stream it reads (ingest's sealed copies of raw events) has then
// more to apply: Settle waits again until what it relayed adds nothing.
func (n *Node) Settle(ctx context.Context, name string) error {
	r, ok := n.Runner(name)
	if !ok {
		return fmt.Errorf("stack: projection %s is not running", name)
	}
	return settle(ctx, n.Bus, name, r)
}

func settle(ctx context.Context, b *bus.Bus, name string, r *projector.Runner) error {
	last, err := b.LastSeq(ctx, r.Stream())
	for err == nil {
		if err := r.WaitFor(ctx, last); err != nil {
			return fmt.Errorf("stack: settle %s at %d: %w", name, last, err)
		}
		if err := r.WaitRelayed(ctx); err != nil {
			return err
		}
		var now uint64
		if now, err = b.LastSeq(ctx, r.Stream()); err == nil && now == last {
			return nil
		}
		last = now
	}
	return err
}
