package projector

import (
	"context"
	"errors"

	"github.com/toolstream/toolstream/internal/logread"
)

// errUntilReached ends an ephemeral read at UntilSeq.
var errUntilReached = errors.New("projector: until reached")

// read is Run in ModeReplay: it applies the log from the checkpoint by
// direct gets, in batches of at most BatchMax, until UntilSeq (or, without
// it, until ctx ends). Nothing is relayed: the mode drops emitted events.
func (r *Runner) read(ctx context.Context) error {
	if r.cfg.UntilSeq > 0 && r.Checkpoint() >= r.cfg.UntilSeq {
		return nil
	}
	r.running.Store(true)
	defer r.running.Store(false)
	err := r.readLog(ctx, logread.Config{Conn: r.cfg.JS.Conn(), Stream: r.cfg.Stream, From: r.Checkpoint() + 1,
		UpTo: r.cfg.UntilSeq, BatchMax: r.cfg.BatchMax, Follow: r.cfg.UntilSeq == 0}, func() error {
		if r.cfg.UntilSeq > 0 && r.Checkpoint() >= r.cfg.UntilSeq {
			return errUntilReached
		}
		return nil
	})
	if errors.Is(err, errUntilReached) || ctx.Err() != nil {
		return nil
	}
	return err
}
