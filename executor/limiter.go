package executor

import (
	"context"
	"sync"
	"sync/atomic"
)

// limiter bounds the calls of one tenant invoked at once
// (Config.MaxParallelPerTenant), so one busy tenant cannot take every
// invocation slot. It also bounds the calls of a tenant waiting for a slot
// (waitersPerSlot × the slots): beyond that acquire refuses at once and the
// input goes back to the stream, so one tenant's backlog cannot fill the
// executor's in-flight inputs and hold the other tenants back. A tenant's
// entry exists only while it has calls holding or waiting for a slot, so the
// map is bounded by the calls in flight.
//
// An entry whose last call is done is kept on a free list (at most
// freeSlotsMax) for the next tenant that needs one: under a steady load a
// tenant's calls often all end before its next arrives, and a fresh entry
// was two allocations per call (the entry and its channel). An entry on
// the list has no holders or waiters, so its channel is empty.
type limiter struct {
	n    int
	mu   sync.Mutex // guards m and free
	m    map[string]*tenantSlots
	free []*tenantSlots
}

// freeSlotsMax bounds the limiter's free list.
const freeSlotsMax = 64

type tenantSlots struct {
	sem  chan struct{}
	refs int // holders and waiters
}

// waitersPerSlot bounds a tenant's calls waiting for a slot, per slot.
const waitersPerSlot = 4

func newLimiter(n int) *limiter { return &limiter{n: n, m: map[string]*tenantSlots{}} }

// acquire waits for a slot of tenant, released by the returned slot's
// release, which must be called at least once (calls after the first do
// nothing). It returns errTenantBusy when too many of the tenant's calls
// wait already, and ctx's error if ctx ends first.
func (l *limiter) acquire(ctx context.Context, tenant string) (*slot, error) {
	l.mu.Lock()
	ts := l.m[tenant]
	if ts == nil {
		if n := len(l.free); n > 0 {
			ts, l.free[n-1] = l.free[n-1], nil
			l.free = l.free[:n-1]
		} else {
			ts = &tenantSlots{sem: make(chan struct{}, l.n)}
		}
		l.m[tenant] = ts
	}
	if ts.refs >= l.n*(1+waitersPerSlot) {
		l.mu.Unlock()
		return nil, errTenantBusy
	}
	ts.refs++
	l.mu.Unlock()
	select {
	case ts.sem <- struct{}{}:
		return &slot{l: l, tenant: tenant, ts: ts}, nil
	case <-ctx.Done():
		l.unref(tenant, ts)
		return nil, ctx.Err()
	}
}

// slot is one tenant slot held (acquire): one allocation per call, where a
// func closing over a sync.Once was three.
type slot struct {
	l        *limiter
	tenant   string
	ts       *tenantSlots
	released atomic.Bool
}

// release gives the slot back; calls after the first do nothing.
func (s *slot) release() {
	if s.released.CompareAndSwap(false, true) {
		<-s.ts.sem
		s.l.unref(s.tenant, s.ts)
	}
}

func (l *limiter) unref(tenant string, ts *tenantSlots) {
	l.mu.Lock()
	if ts.refs--; ts.refs == 0 {
		delete(l.m, tenant)
		if len(l.free) < freeSlotsMax {
			l.free = append(l.free, ts)
		}
	}
	l.mu.Unlock()
}
