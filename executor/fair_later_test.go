package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// fairLaterRegistry grants slow and quick to the tenants of the tests
// below; slow's timeout is long, so its calls hold their slots until
// the test lets them go.
const fairLaterRegistry = `
tools:
  - name: slow
    idempotency: required
    timeout: 5m
  - name: quick
    idempotency: required
grants:
  - tenant: flood
    permissions: [slow, quick]
  - tenant: second
    permissions: [slow, quick]
  - tenant: third
    permissions: [slow, quick]
`

// blocked is a Go tool that holds every call until release is closed.
func blocked() (tool *counter, running *atomic.Int64, release chan struct{}) {
	release = make(chan struct{})
	running = new(atomic.Int64)
	tool = newCounter(func(ctx context.Context, c executor.Call) (json.RawMessage, error) {
		running.Add(1)
		defer running.Add(-1)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return json.RawMessage(`{"ok":true}`), nil
	})
	return tool, running, release
}

// TestATenantAfterAFloodOfSlowCallsGetsItsShare: one tenant's slow calls,
// more than the executor's slots, are all under way (the flood past its
// share, as the share rule lets a tenant alone run); a second tenant's
// call, published after them, runs and answers while the flood's calls
// still hold their slots. Then the flood is let go and every one of its
// calls answers once: nothing handed back was lost.
func TestATenantAfterAFloodOfSlowCallsGetsItsShare(t *testing.T) {
	b := bustest.Start(t)
	reg := parseRegistry(t, fairLaterRegistry)
	slow, running, release := blocked()
	quick := newCounter(nil)
	const inFlight, flood = 8, 20 // a share of 2 slots (MaxParallelPerTenant 2)
	startExec(t, b, reg, map[string]executor.Tool{"slow": slow, "quick": quick}, func(c *executor.Config) {
		c.InFlightMax, c.MaxParallelPerTenant = inFlight, 2
	})
	var keys []string
	for i := range flood {
		keys = append(keys, publishCall(t, b, callSpec{tenant: "flood", tool: "slow", call: fmt.Sprint("c", i)}))
	}
	waitFor(t, "the flood's calls under way", func() bool { return running.Load() == 2 })
	kq := publishCall(t, b, callSpec{tenant: "second", tool: "quick", call: "c0"})
	if o := waitOutcome(t, b, "second", kq); o.ok == nil || quick.count(kq) != 1 {
		t.Fatalf("the second tenant's call after the flood: %v", o)
	}
	if n := running.Load(); n != 2 {
		t.Fatalf("%d of the flood's calls running, want 2: the flood was not holding its slots", n)
	}
	close(release)
	for _, k := range keys {
		if o := waitOutcome(t, b, "flood", k); o.ok == nil || slow.count(k) != 1 {
			t.Fatalf("flood call %s: %v, ran %d times", k, o, slow.count(k))
		}
	}
}
