package executor

import (
	"context"
	"errors"
	"sync"
	"time"
)

// lease is a held claim on a call: the record names this executor as Owner
// until LeaseUntil. It is renewed every Heartbeat by compare-and-set; a
// renewal that loses the compare-and-set (another executor took the call
// over, because this one looked dead) cancels the lease's context, which
// cancels the invocation, and every later write of this lease fails with
// errLeaseLost, so a late result never overwrites the recorded outcome.
type lease struct {
	e      *Executor
	tenant string
	key    string
	ctx    context.Context // canceled when the lease is lost or released
	cancel context.CancelCauseFunc
	beats  sync.WaitGroup // one per renewal armed or running

	mu    sync.Mutex // guards rec, rev and the arming of timer
	rec   *record
	rev   uint64
	timer *time.Timer // runs beat every Heartbeat (no goroutine waits for it)
}

// acquire writes next (Owner, LeaseUntil set here) over the record at rev
// and starts renewing it. It returns errConflict when the record changed.
// A bucket that does not answer is tried again (store.put) for up to a
// LeaseTTL: the record says Invoked from this write on, so a write that
// was applied but whose answer was lost would, if given up, end the call
// as outcome_unknown although nothing ran. A lease won late is renewed at
// once, before the invocation, so it has its full term again.
func (e *Executor) acquire(ctx context.Context, tenant string, next *record, rev uint64) (*lease, error) {
	next.Owner = e.owner
	next.LeaseUntil = e.cfg.Clock().Add(e.cfg.LeaseTTL).UnixNano()
	nrev, err := e.store.put(ctx, tenant, next, rev)
	if err != nil {
		return nil, err
	}
	l := &lease{e: e, tenant: tenant, key: next.Key, rec: next, rev: nrev}
	l.ctx, l.cancel = context.WithCancelCause(e.hard)
	l.mu.Lock()
	l.beats.Add(1)
	l.timer = time.AfterFunc(e.cfg.Heartbeat, l.beat)
	l.mu.Unlock()
	if left := time.Duration(next.LeaseUntil - e.cfg.Clock().UnixNano()); left < e.cfg.LeaseTTL-e.cfg.Heartbeat {
		// Another error leaves the lease to the heartbeat: it holds until it runs out.
		if err := l.update(ctx, nil); errors.Is(err, errLeaseLost) {
			l.release()
			return nil, errConflict
		}
	}
	return l, nil
}

// update applies mut to the held record and writes it, renewing the lease.
// It returns errLeaseLost when the record is no longer this lease's. A
// bucket that is briefly unavailable (a stream leader change) is tried
// again (store.put) for up to a LeaseTTL, so past the current lease: a
// write that still fails then gives the lease up as lost, since another
// executor may take the call over from here on.
func (l *lease) update(ctx context.Context, mut func(r *record)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := context.Cause(l.ctx); err != nil {
		return errLeaseLost
	}
	next := l.rec.clone()
	if mut != nil {
		mut(next)
	}
	next.LeaseUntil = l.e.cfg.Clock().Add(l.e.cfg.LeaseTTL).UnixNano()
	nrev, err := l.e.store.put(ctx, l.tenant, next, l.rev)
	if errors.Is(err, errConflict) {
		l.cancel(errLeaseLost)
		return errLeaseLost
	}
	if err != nil {
		// The bucket is unreachable: the lease holds until it runs out.
		if l.e.cfg.Clock().UnixNano() >= l.rec.LeaseUntil {
			l.cancel(errLeaseLost)
			return errLeaseLost
		}
		return err
	}
	l.rec, l.rev = next, nrev
	return nil
}

// giveUp ends the lease at once (LeaseUntil 0), so another executor may
// take the call over without waiting for it to run out.
func (l *lease) giveUp(ctx context.Context) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if context.Cause(l.ctx) != nil {
		return
	}
	next := l.rec.clone()
	next.Owner, next.LeaseUntil = "", 0
	if nrev, err := l.e.store.put(ctx, l.tenant, next, l.rev); err == nil {
		l.rec, l.rev = next, nrev
	}
	l.cancel(context.Canceled)
}

// snapshot returns a copy of the held record.
func (l *lease) snapshot() *record {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rec.clone()
}

func (l *lease) lost() bool { return errors.Is(context.Cause(l.ctx), errLeaseLost) }

// beat renews the lease, then arms the next renewal unless the lease has
// ended. release cancels the lease before it stops the timer, under mu, so
// a renewal is either stopped before it runs or sees the lease ended and
// arms no other.
func (l *lease) beat() {
	defer l.beats.Done()
	if l.ctx.Err() != nil {
		return
	}
	if h := l.e.cfg.Hooks; h == nil || h.SkipHeartbeat == nil || !h.SkipHeartbeat(l.key) {
		// l.ctx: release does not wait for a renewal that keeps failing.
		if err := l.update(l.ctx, nil); err != nil && !errors.Is(err, errLeaseLost) && l.ctx.Err() == nil {
			l.e.log.Warn("lease renewal failed", "tenant", l.tenant, "key", l.key, "err", err)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ctx.Err() == nil {
		l.beats.Add(1)
		l.timer.Reset(l.e.cfg.Heartbeat)
	}
}

// release stops renewing and waits for a renewal under way. The record
// keeps whatever was last written.
func (l *lease) release() {
	l.cancel(context.Canceled)
	l.mu.Lock()
	if l.timer.Stop() {
		l.beats.Done() // armed, never to run
	}
	l.mu.Unlock()
	l.beats.Wait()
}
