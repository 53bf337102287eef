package executor_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestAThirdTenantAfterTwoFloodsGetsItsShare: two tenants flood the
// executor with slow calls, one after the other; a third tenant's call,
// published after both, runs while both floods still hold their slots.
// Fair to every tenant: a flood past its share may not leave a tenant
// that comes later no slot at all.
func TestAThirdTenantAfterTwoFloodsGetsItsShare(t *testing.T) {
	b := bustest.Start(t)
	reg := parseRegistry(t, fairLaterRegistry)
	slow, running, release := blocked()
	quick := newCounter(nil)
	const inFlight, flood = 8, 10 // both floods within the consumer's window (4 × InFlightMax)
	startExec(t, b, reg, map[string]executor.Tool{"slow": slow, "quick": quick}, func(c *executor.Config) {
		c.InFlightMax, c.MaxParallelPerTenant = inFlight, 2
	})
	var keys []string
	for i := range flood {
		keys = append(keys, publishCall(t, b, callSpec{tenant: "flood", tool: "slow", call: fmt.Sprint("c", i)}))
	}
	waitFor(t, "the first flood under way", func() bool { return running.Load() == 2 })
	var second []string
	for i := range flood {
		second = append(second, publishCall(t, b, callSpec{tenant: "second", tool: "slow", call: fmt.Sprint("c", i)}))
	}
	waitFor(t, "the second flood under way", func() bool { return running.Load() == 4 })
	k3 := publishCall(t, b, callSpec{tenant: "third", tool: "quick", call: "c0"})
	done := make(chan outcome, 1)
	go func() { done <- waitOutcome(t, b, "third", k3) }()
	select {
	case o := <-done:
		if o.ok == nil || quick.count(k3) != 1 {
			t.Fatalf("the third tenant's call: %v", o)
		}
	case <-time.After(20 * time.Second):
		close(release)
		<-done
		t.Fatal("the third tenant's call waited for the floods' calls to end: no slot was left for it")
	}
	close(release)
	for _, k := range keys {
		if o := waitOutcome(t, b, "flood", k); o.ok == nil {
			t.Fatalf("flood call %s: %v", k, o)
		}
	}
	for _, k := range second {
		if o := waitOutcome(t, b, "second", k); o.ok == nil {
			t.Fatalf("second call %s: %v", k, o)
		}
	}
}
