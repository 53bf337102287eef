package projector

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/invariants"
)

// Containment of a projection's faults (docs/design.md, invariant 9: bad
// input is not a bug). A panic of a projection's own code on one message —
// which input any producer can write may reach: a raw provider event, a
// model event, a memory message — would stop its runner for every tenant,
// and again at every replay. The runner contains it: the message is
// rejected as bad input (a *FaultError, wrapping ErrFault and
// events.ErrBadInput, its reason the panic's value), logged with its stack
// at error level, counted with the rejections, and the next message is
// applied. The view is left exactly as it was before the message:
//
//   - what the message wrote is in its Tx's overlay, dropped as any
//     rejected message's writes are;
//   - a projection that keeps anything in memory between messages (a
//     Flusher's batch, caches) implements Resetter: what its memory holds
//     may be part of the faulted message, so the batch is dropped
//     uncommitted, Reset is called, the batch's messages before the faulted
//     one are applied again from the committed view and committed, and the
//     faulted message is rejected without being applied again (Rejecter
//     runs then, on memory that never saw it). A message is applied at
//     most twice;
//   - a Flusher that is not a Resetter cannot be put back: its fault stops
//     the runner, as an impossible state does. A projection that is
//     neither keeps nothing but its view, by its contract (Projection).
//
// Every call the runner makes into a projection's code on the log's
// behalf is contained so, not Apply alone:
//
//   - Reject (a Rejecter's, on a refused message): what it wrote and
//     emitted is dropped, the rejection row keeps the message's reason and
//     says that its Reject faulted ("(and its Reject: ...)"); a Resetter's
//     run is applied again as for Apply, the message refused again without
//     its Reject;
//   - Flush (a Flusher's, when a batch ends): it holds what the whole batch
//     left, so after Reset the batch is applied again one message at a
//     time, each with its own Flush, and the message after which Flush
//     faults is rejected as if its Apply had (Flush then runs on memory
//     that never saw it). A Flush that faults again without the message is
//     no message's fault: the runner stops (ErrFault);
//   - Reset itself: its fault stops the runner, the memory cannot be put
//     back (ErrFault).
//
// Replay equals live (invariant 6): whether a message faults is a function
// of the view before it and of the message, the same live and in a
// replay, and either way the view goes on from the state before it. For a
// Flush, that holds when what makes it fault stays in its memory until it
// runs (a value a message put there), as the view not depending on where
// batches end already asks of a Flusher.
//
// An invariant's violation (build tag invariants) is an impossible state,
// not a fault of one message: it is not contained.

// FaultError is a fault (a panic) of a projection's own code on one
// message. It wraps ErrFault and events.ErrBadInput: the runner records
// the message as rejected, its reason the panic's value; Stack is where
// it happened, logged, never stored.
type FaultError struct {
	Value any    // what the projection panicked with
	Stack []byte // the goroutine's stack at the panic (debug.Stack)
}

func (e *FaultError) Error() string { return fmt.Sprintf("%v: %v", ErrFault, e.Value) }

// Unwrap returns ErrFault and events.ErrBadInput.
func (e *FaultError) Unwrap() []error { return []error{ErrFault, events.ErrBadInput} }

// faultAt is a fault that left the projection's memory holding part of
// the message at msgs[i] of a run (in its Apply or its Reject), or part of
// the run (in its Flush, i < 0): applyRun drops the run and puts the
// projection back (Reset) before it goes on.
type faultAt struct {
	i   int
	in  faultIn
	err *FaultError
}

// faultIn says which of the projection's calls faulted.
type faultIn int

const (
	inApply faultIn = iota
	inReject
	inFlush
)

func (f *faultAt) Error() string { return f.err.Error() }

// faultedMsg is what a message of a run being applied again after a fault
// faulted in: it is not applied again if its Apply (or a Flush of what it
// left) faulted, and its Reject is not run again if that faulted.
type faultedMsg struct {
	apply, reject *FaultError
}

// contain runs one call into the projection's code: a panic comes back as
// a *FaultError, an invariant's violation (invariants.Failf) panics on.
func contain(call func() error) (err error, fault *FaultError) {
	defer func() {
		if v := recover(); v != nil {
			if invariants.IsViolation(v) {
				panic(v)
			}
			fault = &FaultError{Value: v, Stack: debug.Stack()}
			err = fault
		}
	}()
	return call(), nil
}

// applyContained applies m. A panic of the projection's comes back as
// fault, and as err.
func (r *Runner) applyContained(m *Msg) (err error, fault *FaultError) {
	return contain(func() error { return r.p.Apply(&r.tx, m) })
}

// refault decides what the fault fe of the projection's (in its Apply or
// Reject of the message at msgs[i] of a run, or in its Flush) means for
// the run: nil when the message's Tx is all it changed (a projection that
// keeps nothing in memory: rejected like any bad input), a *faultAt when
// the projection's memory must be put back first, an error that stops
// the runner when it cannot be.
func (r *Runner) refault(i int, in faultIn, m *Msg, fe *FaultError) error {
	if _, ok := r.p.(Resetter); ok {
		return &faultAt{i: i, in: in, err: fe}
	}
	if _, ok := r.p.(Flusher); ok {
		return fmt.Errorf("projector: %s %s seq %d: its memory cannot be put back (no Resetter): %w: %v", r.p.Name(), in, m.Seq, ErrFault, fe.Value)
	}
	return nil
}

func (in faultIn) String() string {
	switch in {
	case inReject:
		return "reject"
	case inFlush:
		return "flush at"
	}
	return "apply"
}

// putBack calls the projection's Reset. Its panic stops the runner: the
// projection's memory cannot be put back.
func (r *Runner) putBack() error {
	if _, fe := contain(func() error { r.p.(Resetter).Reset(); return nil }); fe != nil {
		r.log.Error("projection fault in Reset", "fault", fe.Value, "stack", string(fe.Stack))
		return fmt.Errorf("projector: %s reset: its memory cannot be put back: %w", r.p.Name(), fe)
	}
	return nil
}

// applyRun applies msgs and commits them (commitRun). A fault that left
// the projection's memory holding part of a message drops the run: after
// Reset, the messages before it are applied again and committed, and the
// run goes on from it, rejected without being applied again (a fault of
// its Apply) or without its Reject (a fault of its Reject). A fault of
// Flush, which holds what the whole run left, drops the run too: after
// Reset, its messages are applied again one at a time, each with its own
// Flush, and the message after which Flush faults is rejected as if its
// Apply had (not applied; Flush runs again on memory that never saw it).
// A Flush that faults without any message (again after the message's
// rejection) stops the runner: it is not one message's fault.
func (r *Runner) applyRun(ctx context.Context, msgs []*Msg) error {
	for {
		err := r.commitRun(ctx, msgs)
		var f *faultAt
		if !errors.As(err, &f) {
			for _, m := range msgs {
				delete(r.faulted, m.Seq)
			}
			return err
		}
		if err := r.putBack(); err != nil {
			return err
		}
		if f.in == inFlush && len(msgs) > 1 {
			r.log.Error("projection fault in Flush: its memory is put back and the batch applied again a message at a time", "fault", f.err.Value, "from", msgs[0].Seq, "to", msgs[len(msgs)-1].Seq)
			for k := range msgs {
				if err := r.applyRun(ctx, msgs[k:k+1]); err != nil {
					return err
				}
			}
			return nil
		}
		i := max(f.i, 0) // a Flush's fault of a run of one: its message
		m := msgs[i]
		r.log.Error("projection fault: its memory is put back and the batch applied again without what faulted",
			"seq", m.Seq, "subject", m.Subject, "in", f.in.String(), "fault", f.err.Value)
		if err := r.applyRun(ctx, msgs[:i]); err != nil {
			return err
		}
		if r.faulted == nil {
			r.faulted = map[uint64]*faultedMsg{}
		}
		fm := r.faulted[m.Seq]
		if fm == nil {
			fm = &faultedMsg{}
			r.faulted[m.Seq] = fm
		}
		switch {
		case f.in == inReject:
			fm.reject = f.err
		case fm.apply == nil:
			fm.apply = f.err
		default: // Flush faulted again on memory that never saw the message
			return fmt.Errorf("projector: %s flush at seq %d: it faults without the message: %w", r.p.Name(), m.Seq, f.err)
		}
		msgs = msgs[i:]
	}
}
