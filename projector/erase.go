package projector

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/toolstream/toolstream/events"
)

// Erasure (docs/design.md, invariant 8 and "Erasure"). An erasure
// destroys the keys that sealed a user's (or a memory record's) events,
// then writes an events.Erased tombstone into every stream. A runner that
// reads a tombstone rebuilds its view from the log up to it, into a new
// directory, and replaces the old view's directory with it: the rebuild
// cannot open what the destroyed keys sealed, so the new files never held
// the erased text, and the old files — every SST, WAL and log of Pebble
// that did — are deleted whole. The view after the tombstone is therefore
// exactly its replay (invariant 6). A replay that reads the tombstone has
// nothing to do: it never opened what was erased.

// Resetter is implemented by projections that keep caches of their view:
// an erasure calls Reset before it rebuilds the view and after it replaces
// it, so nothing read from the old view survives. Reset also drops what a
// batch not committed yet left in memory: after a fault of the
// projection's, the runner drops the batch, calls Reset and applies the
// batch again without the faulted message (fault.go).
type Resetter interface {
	Reset()
}

// UserForgetter is implemented by projections that keep a user's text in
// memory outside their view (the assembler's live previews): an erasure
// tells them whose it was before the view is rebuilt, since Reset keeps
// what is committed.
type UserForgetter interface {
	ForgetUser(tenant, user string)
}

// Forgetter is implemented by keyrings that cache keys: a tombstone makes
// the runner ask the store again for the erased user's keys.
type Forgetter interface {
	Forget(tenant, user string)
}

// applyMsgs applies msgs, committing runs of them (applyRun) and carrying
// out each erasure tombstone of the runner's stream between them.
func (r *Runner) applyMsgs(ctx context.Context, msgs []*Msg) error {
	tomb := events.EraseSubjects[r.cfg.Stream]
	from := 0
	for i, m := range msgs {
		if tomb == "" || m.Subject != tomb || m.Seq <= r.Checkpoint() {
			continue
		}
		if err := r.applyRun(ctx, msgs[from:i]); err != nil {
			return err
		}
		if err := r.erase(ctx, m); err != nil {
			return err
		}
		from = i + 1
	}
	return r.applyRun(ctx, msgs[from:])
}

// erase carries out the tombstone m.
func (r *Runner) erase(ctx context.Context, m *Msg) error {
	ev, err := events.DecodeAt(m.Subject, m.Data)
	if er, ok := events.As[*events.Erased](ev); err == nil && ok {
		if f, ok := r.cfg.Keys.(Forgetter); ok {
			f.Forget(er.Tenant, er.User)
		}
		if f, ok := r.p.(UserForgetter); ok {
			f.ForgetUser(er.Tenant, er.User)
		}
		r.log.Info("erasure: rebuilding the view without it", "seq", m.Seq, "tenant", er.Tenant)
	} else {
		r.log.Warn("erasure tombstone unreadable; the view is rebuilt all the same", "seq", m.Seq, "err", err)
	}
	if r.cfg.Mode == ModeReplay || r.cfg.local {
		// A replay (or a synchronous test runner) never opened what the
		// tombstone erased: it only moves past it.
		return r.checkpointAt(m.Seq)
	}
	if r.cfg.Mode.relays() {
		if err := r.WaitRelayed(ctx); err != nil { // what the old view emitted leaves first
			return err
		}
	}
	return r.rebuild(ctx, m.Seq)
}

// checkpointAt commits seq as the checkpoint.
func (r *Runner) checkpointAt(seq uint64) error {
	b := r.db.NewBatch()
	defer b.Close()
	if err := b.Set(keyCheckpoint, binary.BigEndian.AppendUint64(nil, seq), nil); err != nil {
		return err
	}
	if err := b.Commit(r.wo); err != nil {
		return fmt.Errorf("projector: commit: %w", err)
	}
	r.advance(seq)
	return nil
}

// rebuild replays the stream up to seq into Dir.rebuild and swaps it in
// for Dir. A crash at any point leaves either the old view (rebuilt again
// when the tombstone is applied again) or the new one (cleanup in
// recoverRebuild).
func (r *Runner) rebuild(ctx context.Context, seq uint64) error {
	fs := r.cfg.FS
	dir, tmp, old := r.cfg.Dir, r.cfg.Dir+".rebuild", r.cfg.Dir+".old"
	if err := fs.RemoveAll(tmp); err != nil {
		return fmt.Errorf("projector: erasure: %w", err)
	}
	if rs, ok := r.p.(Resetter); ok {
		rs.Reset()
	}
	cfg := r.cfg
	cfg.Dir, cfg.Mode, cfg.UntilSeq = tmp, ModeReplay, seq
	cfg.Hooks, cfg.Progress = nil, nil
	rb, err := New(cfg, r.p)
	if err != nil {
		return fmt.Errorf("projector: erasure: %w", err)
	}
	err = rb.Run(ctx)
	if cerr := rb.Close(); err == nil {
		err = cerr
	}
	if err == nil && rb.Checkpoint() < seq {
		err = fmt.Errorf("stopped at %d of %d", rb.Checkpoint(), seq)
	}
	if err != nil {
		fs.RemoveAll(tmp)
		if rs, ok := r.p.(Resetter); ok {
			rs.Reset()
		}
		return fmt.Errorf("projector: erasure: rebuild %s: %w", r.p.Name(), err)
	}
	r.dbMu.Lock()
	defer r.dbMu.Unlock()
	if err := r.db.Close(); err != nil {
		return fmt.Errorf("projector: erasure: %w", err)
	}
	if err := fs.Rename(dir, old); err != nil {
		return fmt.Errorf("projector: erasure: %w", err)
	}
	if err := fs.Rename(tmp, dir); err != nil {
		return fmt.Errorf("projector: erasure: %w", err)
	}
	if err := fs.RemoveAll(old); err != nil {
		return fmt.Errorf("projector: erasure: remove the old view: %w", err)
	}
	db, err := openPebble(fs, dir, r.cfg.Logger)
	if err != nil {
		return err
	}
	r.db, r.outboxLow = db, nil
	if rs, ok := r.p.(Resetter); ok {
		rs.Reset()
	}
	r.log.Info("erasure: view rebuilt", "seq", seq)
	r.advance(seq)
	return nil
}

// recoverRebuild finishes or undoes a view swap a crash interrupted.
func recoverRebuild(fs vfs.FS, dir string) error {
	tmp, old := dir+".rebuild", dir+".old"
	if err := fs.RemoveAll(tmp); err != nil {
		return err
	}
	if _, err := fs.Stat(old); err != nil {
		return nil
	}
	if _, err := fs.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return fs.Rename(old, dir) // the swap stopped between its renames
	}
	return fs.RemoveAll(old)
}
