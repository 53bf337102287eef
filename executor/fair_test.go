package executor_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestAFloodingTenantCannotStarveAnother: one tenant's calls, more than the
// executor holds at once, all wait for a call of theirs that has not come
// (waits that would last DependencyWaitMax); another tenant's call, behind
// them in the log, still runs. Then the awaited call comes, and every one
// of the first tenant's calls runs, once: nothing handed back was lost.
func TestAFloodingTenantCannotStarveAnother(t *testing.T) {
	b := bustest.Start(t)
	reg := parseRegistry(t, `
tools:
  - name: lookup
    idempotency: required
grants:
  - tenant: flood
    permissions: [lookup]
  - tenant: quiet
    permissions: [lookup]
`)
	lookup := newCounter(nil)
	const inFlight, flood = 8, 20
	startExec(t, b, reg, map[string]executor.Tool{"lookup": lookup}, func(c *executor.Config) {
		c.InFlightMax, c.MaxParallelPerTenant, c.DependencyWaitMax = inFlight, 2, 10*time.Minute
	})
	var keys []string
	for i := range flood {
		keys = append(keys, publishCall(t, b, callSpec{tenant: "flood", tool: "lookup", call: fmt.Sprint("c", i), dependsOn: []string{"first"}}))
	}
	kq := publishCall(t, b, callSpec{tenant: "quiet", tool: "lookup", call: "c0"})
	if o := waitOutcome(t, b, "quiet", kq); o.ok == nil || lookup.count(kq) != 1 {
		t.Fatalf("the quiet tenant's call behind the flood: %v", o)
	}
	for _, k := range keys {
		if n := lookup.count(k); n != 0 {
			t.Fatalf("%s ran %d times before the call it waits for", k, n)
		}
	}
	keys = append(keys, publishCall(t, b, callSpec{tenant: "flood", tool: "lookup", call: "first"}))
	for _, k := range keys {
		if o := waitOutcome(t, b, "flood", k); o.ok == nil || lookup.count(k) != 1 {
			t.Fatalf("flood call %s: %v, ran %d times", k, o, lookup.count(k))
		}
	}
}
