package projector

import (
	"context"
)

// stallVerdict is what a stall check decides (decideStall).
type stallVerdict int

const (
	stallNone     stallVerdict = iota // the checkpoint is at the log's end
	stallOnItsWay                     // behind, but a delivery is on its way: look again at the next check
	stallRepull                       // behind and nothing on its way: pull afresh
)

// stallState is what a stall check knows: the log against the
// checkpoint, the durable's counts (one consumer info) and the runner's.
type stallState struct {
	Behind     bool   // the log holds messages after the checkpoint
	NumWaiting int    // pull requests of the durable waiting on the server
	NumPending uint64 // messages the durable has yet to deliver
	Delivered  uint64 // deliveries the durable counts (its consumer sequence)
	Seen       uint64 // the highest of those that reached the runner's handler
	Taken      uint64 // the highest of those the runner took to apply
	// Deferred: the previous check found a delivery on its way and the
	// checkpoint has not moved since.
	Deferred bool
}

// decideStall decides a stall check. An idle runner whose check falls
// between a message's store and its delivery by a pull already waiting
// is behind the log without being stalled: a pull waiting with messages
// pending, a delivery the server counts that has not reached the handler,
// or one at the handler the runner has not taken is on its way. (A
// delivery a stopped pull dropped at its handler also reads as on its
// way: the next check ends it.) Such a check
// waits for the next, which pulls afresh if the checkpoint is still where
// it was: a real stall ends within two checks, whatever the durable says.
func decideStall(s stallState) stallVerdict {
	switch {
	case !s.Behind:
		return stallNone
	case s.Deferred:
		return stallRepull
	case s.NumWaiting > 0 && s.NumPending > 0, // stored, the pull to deliver it waiting
		s.Delivered > s.Seen, // delivered, not yet at the handler
		s.Seen > s.Taken:     // at the handler, not yet taken to apply

		return stallOnItsWay
	}
	return stallRepull
}

// checkStall reads what decideStall needs: the stream's last sequence
// and, only when the runner is behind and has not already waited, its
// durable's counts (a consumer info request), then what reached the
// handler: read in that order, a message stored before the check is seen
// on its way wherever it is. taken is the highest delivery number the
// runner took to apply. A durable that cannot be read leaves nothing on
// its way: the runner pulls afresh, as before.
func (r *Runner) checkStall(ctx context.Context, taken uint64, deferred bool) (stallVerdict, error) {
	behind, err := r.behind(ctx)
	if err != nil {
		return stallNone, err
	}
	s := stallState{Behind: behind, Deferred: deferred, Taken: taken}
	if !behind || deferred {
		return decideStall(s), nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.cfg.PublishTimeout)
	defer cancel()
	c, err := r.cfg.JS.Consumer(ctx, r.cfg.Stream, r.cfg.Durable)
	if err != nil {
		r.log.Debug("stall check: the durable", "err", err)
		return stallRepull, nil
	}
	ci := c.CachedInfo()
	s.NumWaiting, s.NumPending, s.Delivered = ci.NumWaiting, ci.NumPending, ci.Delivered.Consumer
	s.Seen = r.delivered.Load()
	return decideStall(s), nil
}
