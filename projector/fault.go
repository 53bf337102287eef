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
// Replay equals live (invariant 6): whether a message faults is a function
// of the view before it and of the message, the same live and in a
// replay, and either way the view goes on from the state before it.
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
// the message at msgs[i] of a run: applyRun drops the run and puts the
// projection back (Reset) before it goes on.
type faultAt struct {
	i   int
	err *FaultError
}

func (f *faultAt) Error() string { return f.err.Error() }

// applyContained applies m. A panic of the projection's comes back as
// fault, and as err.
func (r *Runner) applyContained(m *Msg) (err error, fault *FaultError) {
	defer func() {
		if v := recover(); v != nil {
			if invariants.IsViolation(v) {
				panic(v)
			}
			fault = &FaultError{Value: v, Stack: debug.Stack()}
			err = fault
		}
	}()
	return r.p.Apply(&r.tx, m), nil
}

// refault decides what the fault fe of the message at msgs[i] of a run
// means for the run: nil when the message's Tx is all it changed (a
// projection that keeps nothing in memory: rejected like any bad input),
// a *faultAt when the projection's memory must be put back first, an error
// that stops the runner when it cannot be.
func (r *Runner) refault(i int, m *Msg, fe *FaultError) error {
	if _, ok := r.p.(Resetter); ok {
		return &faultAt{i: i, err: fe}
	}
	if _, ok := r.p.(Flusher); ok {
		return fmt.Errorf("projector: %s apply seq %d: its memory cannot be put back (no Resetter): %w: %v", r.p.Name(), m.Seq, ErrFault, fe.Value)
	}
	return nil
}

// applyRun applies msgs and commits them (commitRun). A fault that left
// the projection's memory holding part of a message drops the run: after
// Reset, the messages before it are applied again and committed, and the
// run goes on from it, rejected without being applied again.
func (r *Runner) applyRun(ctx context.Context, msgs []*Msg) error {
	err := r.commitRun(ctx, msgs)
	var f *faultAt
	if !errors.As(err, &f) {
		return err
	}
	m := msgs[f.i]
	r.log.Error("projection fault: its memory is put back and the batch applied again without the message",
		"seq", m.Seq, "subject", m.Subject, "fault", f.err.Value)
	r.p.(Resetter).Reset()
	if err := r.applyRun(ctx, msgs[:f.i]); err != nil {
		return err
	}
	if r.faulted == nil {
		r.faulted = map[uint64]*FaultError{}
	}
	r.faulted[m.Seq] = f.err
	err = r.applyRun(ctx, msgs[f.i:])
	delete(r.faulted, m.Seq)
	return err
}
