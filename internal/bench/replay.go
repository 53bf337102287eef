package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/logread"
	"github.com/toolstream/toolstream/projector"
)

// ReplayResult compares rebuilding a view with reading its events.
type ReplayResult struct {
	Events      int
	Replay, Raw time.Duration
}

// Replay rebuilds the view of p (a fresh instance) from sequence 1 to last
// of its stream into the empty directory dir with projector.Replay (direct
// gets, relay off, digest at the end), and times RawRead over the same
// sequences.
func Replay(ctx context.Context, b *bus.Bus, dir string, p projector.Projection, last uint64) (ReplayResult, error) {
	stream, err := events.StreamOfAll(p.Subjects())
	if err != nil {
		return ReplayResult{}, err
	}
	raw, err := RawRead(ctx, b, stream, last)
	if err != nil {
		return ReplayResult{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, waitMax)
	defer cancel()
	start := time.Now()
	if _, err := projector.Replay(ctx, projector.Config{JS: b.JS, Dir: dir}, p, last); err != nil {
		return ReplayResult{}, fmt.Errorf("bench: replay %s: %w", p.Name(), err)
	}
	return ReplayResult{Events: int(last), Replay: time.Since(start), Raw: raw}, nil
}

// RawRead reads every message of stream from sequence 1 to last by direct
// gets in batches of BatchMax, the way replay reads them, and does nothing
// with them: the baseline of replay.
func RawRead(ctx context.Context, b *bus.Bus, stream string, last uint64) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, waitMax)
	defer cancel()
	start := time.Now()
	err := b.Read(ctx, logread.Config{Stream: stream, UpTo: last, BatchMax: BatchMax}, func([]*logread.Msg) error { return nil })
	return time.Since(start), err
}
