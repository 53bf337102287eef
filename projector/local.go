package projector

import (
	"context"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/toolstream/toolstream/events"
	"github.com/vmihailenco/msgpack/v5"
)

// Local applies messages to a projection synchronously, without a bus, on
// the same code path a Runner uses: Tx, one Pebble batch per call with the
// checkpoint and the outbox, rejections. Instead of a relay, Apply hands the
// emitted events back and clears the outbox. For fuzz tests, property tests
// and benchmarks of a projection's own cost.
type Local struct {
	r *Runner
}

// Emitted is one event a projection emitted, with its subject.
type Emitted struct {
	Subject string
	Event   *events.Event
}

// NewLocal opens a projection's view in dir for synchronous application.
func NewLocal(dir string, p Projection) (*Local, error) {
	r, err := New(Config{Dir: dir, Mode: ModeHold, local: true}, p)
	if err != nil {
		return nil, err
	}
	return &Local{r: r}, nil
}

// Apply applies msgs (each with a sequence above the last) in one batch and
// returns what they emitted, in order. When the projection faulted on any
// of them (a panic: fault.go), they are applied as a runner applies them,
// the faulted rejected, and the error wraps ErrFault (the last fault's
// *FaultError): a fuzz or property test finds a fault as it found a
// panic, and one that injects faults checks for it and goes on.
func (l *Local) Apply(ctx context.Context, msgs ...*Msg) ([]Emitted, error) {
	faults := l.r.faults.Load()
	if err := l.r.applyMsgs(ctx, msgs); err != nil {
		return nil, err
	}
	var err error
	if n := l.r.faults.Load() - faults; n > 0 {
		err = fmt.Errorf("projector: %d of the messages faulted, the last: %w", n, l.r.lastFault.Load())
	}
	out, oerr := l.outbox()
	if oerr != nil {
		return nil, oerr
	}
	return out, err
}

// outbox hands back and clears the outbox.
func (l *Local) outbox() ([]Emitted, error) {
	if l.r.backlog.Load() == 0 {
		return nil, nil
	}
	it, err := l.r.db.NewIter(&pebble.IterOptions{LowerBound: l.r.outboxFrom(), UpperBound: prefixUpper(prefixOutbox)})
	if err != nil {
		return nil, err
	}
	var out []Emitted
	del := l.r.db.NewBatch()
	defer del.Close()
	var last []byte
	for ok := it.First(); ok; ok = it.Next() {
		if err := del.Delete(it.Key(), nil); err != nil {
			it.Close()
			return nil, err
		}
		last = append(last[:0], it.Key()...)
		e, err := l.r.emitted(it.Value())
		if err != nil {
			it.Close()
			return nil, err
		}
		out = append(out, e)
	}
	if err := it.Close(); err != nil {
		return nil, err
	}
	if err := del.Commit(pebble.NoSync); err != nil {
		return nil, err
	}
	l.r.backlog.Store(0)
	if last != nil {
		l.r.outboxLow = append(last, 0)
	}
	return out, nil
}

// emitted decodes an outbox row.
func (r *Runner) emitted(v []byte) (Emitted, error) {
	var row outboxRow
	if err := msgpack.Unmarshal(v, &row); err != nil {
		return Emitted{}, fmt.Errorf("projector: outbox row: %w", err)
	}
	ev, err := events.DecodeWith(row.Data, r.cfg.Keys)
	if err != nil {
		return Emitted{}, fmt.Errorf("projector: emitted event %s: %w", row.ID, err)
	}
	return Emitted{Subject: row.Subject, Event: ev}, nil
}

// Outbox returns the emitted events not yet relayed, in the order they
// were emitted: in ModeHold, everything the view emitted since it was
// created. Crash and restart tests compare it with what a clean run
// emits. It is safe to call concurrently with Run.
func (r *Runner) Outbox() ([]Emitted, error) {
	r.dbMu.RLock()
	defer r.dbMu.RUnlock()
	it, err := r.db.NewIter(&pebble.IterOptions{LowerBound: prefixOutbox, UpperBound: prefixUpper(prefixOutbox)})
	if err != nil {
		return nil, err
	}
	var out []Emitted
	for ok := it.First(); ok; ok = it.Next() {
		e, err := r.emitted(it.Value())
		if err != nil {
			it.Close()
			return nil, err
		}
		out = append(out, e)
	}
	return out, it.Close()
}

// Runner exposes the underlying runner (View, Digest, Rejections).
func (l *Local) Runner() *Runner { return l.r }

// Close closes the view.
func (l *Local) Close() error { return l.r.Close() }
