package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/bus"
	"github.com/toolstream/toolstream/projector"
)

// ReplayResult compares rebuilding a view with reading its events.
type ReplayResult struct {
	Events      int
	Replay, Raw time.Duration
}

// Replay rebuilds the view of p (a fresh instance) from sequence 1 to last
// into the empty directory dir with projector.Replay (ordered consumer,
// relay off, digest at the end), and times RawOrdered over the same
// sequences.
func Replay(ctx context.Context, b *bus.Bus, dir string, p projector.Projection, last uint64) (ReplayResult, error) {
	raw, err := RawOrdered(ctx, b.JS, last)
	if err != nil {
		return ReplayResult{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, waitMax)
	defer cancel()
	start := time.Now()
	if _, err := projector.Replay(ctx, projector.Config{JS: b.JS, Stream: bus.StreamName, Dir: dir}, p, last); err != nil {
		return ReplayResult{}, fmt.Errorf("bench: replay %s: %w", p.Name(), err)
	}
	return ReplayResult{Events: int(last), Replay: time.Since(start), Raw: raw}, nil
}

// RawOrdered reads every message from sequence 1 to last with an ordered
// consumer, the way replay reads them (batches of BatchMax), and does
// nothing with them: the baseline of replay.
func RawOrdered(ctx context.Context, js jetstream.JetStream, last uint64) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, waitMax)
	defer cancel()
	start := time.Now()
	c, err := js.OrderedConsumer(ctx, bus.StreamName, jetstream.OrderedConsumerConfig{})
	if err != nil {
		return 0, err
	}
	got := make(chan struct{})
	cc, err := c.Consume(func(m jetstream.Msg) {
		md, err := m.Metadata()
		if err == nil && md.Sequence.Stream == last {
			close(got)
		}
	}, jetstream.PullMaxMessages(BatchMax))
	if err != nil {
		return 0, err
	}
	defer cc.Stop()
	select {
	case <-got:
		return time.Since(start), nil
	case <-ctx.Done():
		return 0, fmt.Errorf("bench: raw ordered consumer: %w", ctx.Err())
	}
}
