package stack

import (
	"context"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/viewdump"
	"github.com/toolstream/toolstream/memory"
)

// Forgotten is what a forget did: the record erased (client.Forget) and
// whether the memory projection's rebuild was seen.
type Forgotten struct {
	client.Forgotten
	NotConfirmed bool `json:"not_confirmed,omitempty"`
}

// Forget forgets a memory record (client.Forget: the service tombstones
// it, its data keys are destroyed, the erasure's tombstone written into
// TS_MEM) and waits up to wait for the running memory projection to
// rebuild its view without it. `toolstream memory forget` and the
// console's forget button go through it.
func Forget(ctx context.Context, c *client.Client, tenant, user, id string, wait time.Duration) (*Forgotten, error) {
	f, err := c.Forget(ctx, tenant, user, id)
	if err != nil {
		return nil, err
	}
	out := &Forgotten{Forgotten: f}
	if f.Tombstone > 0 {
		out.NotConfirmed = !WaitApplied(ctx, c.Conn(), memory.Name, f.Tombstone, wait)
	}
	return out, nil
}

// WaitApplied waits until a running serve's projection name has applied
// seq of its stream (its live digest, viewdump.Digest) and reports whether
// it saw it do so within wait.
func WaitApplied(ctx context.Context, nc *nats.Conn, name string, seq uint64, wait time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for {
		if dg, err := viewdump.Digest(ctx, nc, name); err == nil && dg.Seq >= seq {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// WaitErased waits, up to wait in all, until each projection of the
// catalogue that a running serve answers for has applied its stream's
// tombstone (tombs: the erasure's sequence by stream), in the order of
// Names, and returns those it did not see do so (once the wait is spent,
// every one not yet seen).
func WaitErased(ctx context.Context, nc *nats.Conn, tombs map[string]uint64, wait time.Duration) []string {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var pending []string
	for _, name := range Names() {
		p, err := New(Projections{}, name)
		if err != nil {
			continue
		}
		stream, err := events.StreamOfAll(p.Subjects())
		if err != nil {
			continue
		}
		seq := tombs[stream]
		for {
			dg, err := viewdump.Digest(ctx, nc, name)
			if err == nil && dg.Seq >= seq {
				break
			}
			if ctx.Err() != nil {
				pending = append(pending, name)
				break
			}
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	return pending
}

// consoleForget is the console's forget button when the caller gave none:
// Forget over the stack's connection, waiting up to thirty seconds.
func (s *Stack) consoleForget(ctx context.Context, tenant, user, id string) (any, error) {
	b := s.cfg.Bus
	c, err := client.Connect(ctx, client.WithConn(b.Conn), client.WithKeys(b.Keys), client.WithLogger(s.log))
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return Forget(ctx, c, tenant, user, id, 30*time.Second)
}
