package projector

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/nats-io/nats.go/jetstream"
)

// keyReplay marks a directory a Replayer made, with the projection's name:
// only such a directory may be resumed (a live view's outbox would be lost
// to a replay, which drops what it emits).
var keyReplay = []byte("m/replay")

// Replay rebuilds a projection from sequence 1 into the empty directory
// cfg.Dir, applying every message up to until (its live checkpoint) in
// ModeReplay, and returns the rebuilt view's digest at until. p must be a
// fresh instance of the projection. It returns ErrInvalidConfig for a
// directory that is not empty and ErrPastLog for an until past the end of
// the log.
func Replay(ctx context.Context, cfg Config, p Projection, until uint64) (Digest, error) {
	fs := cfg.FS
	if fs == nil {
		fs = vfs.Default
	}
	if entries, err := fs.List(cfg.Dir); err == nil && len(entries) > 0 {
		return Digest{}, fmt.Errorf("%w: replay directory %s is not empty", ErrInvalidConfig, cfg.Dir)
	}
	rp, err := NewReplayer(cfg, p)
	if err != nil {
		return Digest{}, err
	}
	d, err := rp.To(ctx, until, nil)
	if cerr := rp.Close(); err == nil && cerr != nil {
		return Digest{}, cerr
	}
	return d, err
}

// ReplayProgress is where a replay stands: it resumed after From, has
// applied the log up to Seq, and ends at Until.
type ReplayProgress struct {
	From, Seq, Until uint64
}

// Replayer rebuilds a projection's view from the log, in ModeReplay, into a
// directory of its own, up to a sequence it is told; told a later one, it
// goes on from where it stopped. A replay is resumed from its checkpoint,
// by the same Replayer or by a new one on the same directory in a later
// process (after an interruption, or to extend an older rebuild): what it
// applied before is not applied again. Its methods must not be called
// concurrently.
type Replayer struct {
	r *Runner
}

// NewReplayer opens cfg.Dir for a replay of p: an empty directory (the
// replay starts at sequence 1) or one an earlier Replayer of the same
// projection left (it resumes at that replay's checkpoint). cfg.Mode,
// UntilSeq, Hooks and Progress are ignored (To takes a progress callback). p must be a fresh instance of the
// projection, configured as the one that made the directory. It returns
// ErrNotReplay for a directory that holds something else (a live view,
// another projection's replay) and ErrInvalidConfig for a configuration
// New refuses.
func NewReplayer(cfg Config, p Projection) (*Replayer, error) {
	if err := checkReplayDir(cfg, p.Name()); err != nil {
		return nil, err
	}
	cfg.Mode, cfg.UntilSeq, cfg.Hooks, cfg.Progress = ModeReplay, 0, nil, nil
	r, err := New(cfg, p)
	if err != nil {
		return nil, err
	}
	// Synced: a crash that keeps any of the replay keeps the mark, so the
	// directory is resumed, not refused.
	if err := r.db.Set(keyReplay, []byte(p.Name()), pebble.Sync); err != nil {
		r.Close()
		return nil, fmt.Errorf("projector: replay %s: %w", cfg.Dir, err)
	}
	return &Replayer{r: r}, nil
}

// checkReplayDir refuses a directory that holds anything but a replay of
// the projection name.
func checkReplayDir(cfg Config, name string) error {
	fs := cfg.FS
	if fs == nil {
		fs = vfs.Default
	}
	if entries, err := fs.List(cfg.Dir); err != nil || len(entries) == 0 {
		return nil // created by New
	}
	db, err := openPebble(fs, cfg.Dir, cfg.Logger)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrNotReplay, cfg.Dir, err)
	}
	defer db.Close()
	v, ok, err := getClone(db, keyReplay)
	if err != nil {
		return fmt.Errorf("projector: replay %s: %w", cfg.Dir, err)
	}
	if !ok {
		return fmt.Errorf("%w: %s is not a replay's directory", ErrNotReplay, cfg.Dir)
	}
	if string(v) != name {
		return fmt.Errorf("%w: %s holds a replay of %s, not %s", ErrNotReplay, cfg.Dir, v, name)
	}
	return nil
}

// Checkpoint is the last sequence the replay applied (0 for a new one).
func (rp *Replayer) Checkpoint() uint64 { return rp.r.Checkpoint() }

// Stream is the stream of the log the replay reads.
func (rp *Replayer) Stream() string { return rp.r.Stream() }

// LastSeq is the last sequence of the log the replay reads.
func (rp *Replayer) LastSeq(ctx context.Context) (uint64, error) {
	s, err := rp.r.cfg.JS.Stream(ctx, rp.r.cfg.Stream)
	if err != nil {
		return 0, fmt.Errorf("projector: replay: stream %s: %w", rp.r.cfg.Stream, err)
	}
	return s.CachedInfo().State.LastSeq, nil
}

// To applies the log from the checkpoint up to until and returns the
// view's digest at until (a sequence the projection does not read, or
// that was deleted, is reached all the same). progress, when not nil, is
// called with Seq = From before the first batch and again after every
// committed batch, on the caller's goroutine: it must return quickly. A
// context that ends stops the replay at its last committed batch (a later
// To resumes there) and returns the context's error. It returns ErrPastLog
// for an until past the end of the log and ErrReplayAhead for one below
// the checkpoint.
func (rp *Replayer) To(ctx context.Context, until uint64, progress func(ReplayProgress)) (Digest, error) {
	from := rp.r.Checkpoint()
	if until < from {
		return Digest{}, fmt.Errorf("%w: at %d, asked for %d", ErrReplayAhead, from, until)
	}
	if until > from {
		last, err := rp.LastSeq(ctx)
		if err != nil {
			return Digest{}, err
		}
		if until > last {
			return Digest{}, fmt.Errorf("%w: sequence %d, the log ends at %d", ErrPastLog, until, last)
		}
		rp.r.cfg.UntilSeq = until
		rp.r.cfg.Progress = nil
		if progress != nil {
			progress(ReplayProgress{From: from, Seq: from, Until: until})
			rp.r.cfg.Progress = func(seq uint64) { progress(ReplayProgress{From: from, Seq: seq, Until: until}) }
		}
		err = rp.r.read(ctx)
		rp.r.cfg.Progress = nil
		if err != nil {
			return Digest{}, fmt.Errorf("projector: replay %s: %w", rp.r.p.Name(), err)
		}
		if err := ctx.Err(); err != nil {
			return Digest{}, err
		}
	}
	d, err := rp.r.Digest()
	if err != nil {
		return Digest{}, err
	}
	if d.Seq > until {
		return Digest{}, fmt.Errorf("projector: replay overshot: %d > %d", d.Seq, until)
	}
	d.Seq = until
	return d, nil
}

// View returns a snapshot of the replayed view. Close it before To.
func (rp *Replayer) View() *View { return rp.r.View() }

// Close closes the replay's view; the directory keeps it for a later
// Replayer to resume.
func (rp *Replayer) Close() error { return rp.r.Close() }

// SeqAtTime returns the last sequence of the log the replay reads whose
// stream timestamp is at or before t (0 when none): the view "as it was at
// t" is the replay to it.
func (rp *Replayer) SeqAtTime(ctx context.Context, t time.Time) (uint64, error) {
	s, err := rp.r.cfg.JS.Stream(ctx, rp.r.cfg.Stream)
	if err != nil {
		return 0, fmt.Errorf("projector: replay: stream %s: %w", rp.r.cfg.Stream, err)
	}
	return seqAtTime(ctx, s, t)
}

// seqAtTime binary-searches the stream for the last message stored at or
// before t. Stream timestamps grow with the sequence; a deleted message is
// stepped over by asking for the next stored one (a get by subject ">").
func seqAtTime(ctx context.Context, s jetstream.Stream, t time.Time) (uint64, error) {
	info, err := s.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("projector: stream info: %w", err)
	}
	lo, hi := info.State.FirstSeq, info.State.LastSeq
	var found uint64
	for lo <= hi && hi > 0 {
		mid := lo + (hi-lo)/2
		m, err := s.GetMsg(ctx, mid, jetstream.WithGetMsgSubject(">"))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			hi = mid - 1
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("projector: message %d: %w", mid, err)
		}
		if m.Time.After(t) {
			if mid == 0 {
				break
			}
			hi = mid - 1
			continue
		}
		found = m.Sequence
		lo = m.Sequence + 1
	}
	return found, nil
}
