package executor

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestLimiterReusesAFreedTenantsEntry: a tenant whose calls are all done
// leaves its entry on the free list, the next tenant takes it with an empty
// channel (all its slots free at once), the map holds only tenants with
// calls, and a tenant's bound holds on a reused entry as on a new one.
func TestLimiterReusesAFreedTenantsEntry(t *testing.T) {
	const n = 3
	l := newLimiter(n)
	ctx := context.Background()
	hold := func(tenant string, k int) []*slot {
		var out []*slot
		for range k {
			s, err := l.acquire(ctx, tenant)
			if err != nil {
				t.Fatalf("acquire %s: %v", tenant, err)
			}
			out = append(out, s)
		}
		return out
	}
	a := hold("a", n)
	first := l.m["a"]
	for _, s := range a {
		s.release()
		s.release() // a second release does nothing
	}
	if len(l.m) != 0 || len(l.free) != 1 || l.free[0] != first {
		t.Fatalf("after a's calls: map %d, free %d", len(l.m), len(l.free))
	}
	b := hold("b", n) // the reused entry's channel is empty: n slots at once
	if l.m["b"] != first || len(l.free) != 0 {
		t.Fatal("b did not take a's freed entry")
	}
	// a fourth call of b waits for a slot, and is refused past the waiters' bound
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := l.acquire(short, "b"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a call past b's slots: %v, want it to wait until its context ends", err)
	}
	l.m["b"].refs = n * (1 + waitersPerSlot)
	if _, err := l.acquire(ctx, "b"); !errors.Is(err, errTenantBusy) {
		t.Fatalf("past the waiters' bound: %v, want errTenantBusy", err)
	}
	l.m["b"].refs = n
	for _, s := range b {
		s.release()
	}
	if len(l.m) != 0 || len(l.free) != 1 {
		t.Fatalf("after b's calls: map %d, free %d", len(l.m), len(l.free))
	}
	for i := range freeSlotsMax + 5 { // the free list is bounded
		l.acquire(ctx, string(rune('A'+i)))
	}
	for _, ts := range l.m {
		ts.refs = 1
	}
	for tenant, ts := range l.m {
		<-ts.sem
		l.unref(tenant, ts)
	}
	if len(l.free) != freeSlotsMax || len(l.m) != 0 {
		t.Fatalf("free list %d entries, want %d; map %d", len(l.free), freeSlotsMax, len(l.m))
	}
}
