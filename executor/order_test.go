package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

func TestDependsOnRunsAfterSuccess(t *testing.T) {
	b := bustest.Start(t)
	reg := parseRegistry(t, `
tools:
  - name: step
    idempotency: required
grants:
  - tenant: acme
    permissions: [step]
`)
	var mu sync.Mutex
	var order []string
	release := make(chan struct{})
	step := newCounter(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
		if c.CallID == "a" {
			<-release // a is slow: b and c must wait for it
		}
		if c.CallID == "fails" {
			return nil, executor.Errorf(events.ErrBusinessRejected, "no")
		}
		mu.Lock()
		order = append(order, c.CallID)
		mu.Unlock()
		return json.RawMessage(`{}`), nil
	})
	startExec(t, b, reg, map[string]executor.Tool{"step": step}, nil)
	// Published in the "wrong" order: dependents first.
	kc := publishCall(t, b, callSpec{tenant: "acme", tool: "step", call: "c", dependsOn: []string{"a", "b"}})
	kb := publishCall(t, b, callSpec{tenant: "acme", tool: "step", call: "b", dependsOn: []string{"a"}})
	ka := publishCall(t, b, callSpec{tenant: "acme", tool: "step", call: "a"})
	kx := publishCall(t, b, callSpec{tenant: "acme", tool: "step", call: "x"}) // independent: not held up
	waitOutcome(t, b, "acme", kx)
	if step.count(kb) != 0 || step.count(kc) != 0 {
		t.Fatal("a dependent ran before its dependency")
	}
	close(release)
	for _, k := range []string{ka, kb, kc} {
		if o := waitOutcome(t, b, "acme", k); o.ok == nil {
			t.Fatalf("%s: %v", k, o)
		}
	}
	mu.Lock()
	got := strings.Join(order, ",")
	mu.Unlock()
	if got != "x,a,b,c" {
		t.Fatalf("order %s, want x,a,b,c", got)
	}
	// A failed dependency fails its dependents; nothing of theirs runs.
	kf := publishCall(t, b, callSpec{tenant: "acme", tool: "step", call: "fails", response: "resp_2"})
	kd := publishCall(t, b, callSpec{tenant: "acme", tool: "step", call: "d", response: "resp_2", dependsOn: []string{"fails"}})
	waitOutcome(t, b, "acme", kf)
	if o := waitOutcome(t, b, "acme", kd); o.err == nil || !strings.Contains(o.err.Message, "call fails, which this call depends on, failed with business_rejected") || step.count(kd) != 0 {
		t.Fatalf("dependent of a failure: %v", o)
	}
	// A dependency that was rejected by the assembler never runs.
	rej, _ := events.Encode(&events.Event{ID: events.RejectedID("acme", "resp_3", "item_r"), Tenant: "acme", Response: "resp_3", Item: "item_r", CallID: "r",
		Body: &events.CallRejected{Name: "step", Reason: events.ReasonSchemaViolation}})
	subj, _ := events.CallSubject("acme", "step")
	if _, err := b.JS.Publish(context.Background(), subj, rej); err != nil {
		t.Fatal(err)
	}
	ke := publishCall(t, b, callSpec{tenant: "acme", tool: "step", call: "e", response: "resp_3", dependsOn: []string{"r"}})
	if o := waitOutcome(t, b, "acme", ke); o.err == nil || !strings.Contains(o.err.Message, "was never run") {
		t.Fatalf("dependent of a rejected call: %v", o)
	}
	// Depending on itself is a validation error.
	ks := publishCall(t, b, callSpec{tenant: "acme", tool: "step", call: "s", response: "resp_4", dependsOn: []string{"s"}})
	if o := waitOutcome(t, b, "acme", ks); o.err == nil || o.err.Error != events.ErrValidation {
		t.Fatalf("self dependency: %v", o)
	}
}

func TestParallelismIsBoundedPerTenant(t *testing.T) {
	b := bustest.Start(t)
	reg := parseRegistry(t, `
tools:
  - name: work
    side_effect: none
grants:
  - tenant: acme
    permissions: [work]
  - tenant: globex
    permissions: [work]
`)
	const perTenant = 3
	var mu sync.Mutex
	running := map[string]int{}
	peak := map[string]int{}
	var both atomic.Bool
	gate := make(chan struct{})
	work := newCounter(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
		mu.Lock()
		running[c.Tenant]++
		peak[c.Tenant] = max(peak[c.Tenant], running[c.Tenant])
		if running["acme"] > 0 && running["globex"] > 0 {
			both.Store(true)
		}
		mu.Unlock()
		<-gate
		mu.Lock()
		running[c.Tenant]--
		mu.Unlock()
		return json.RawMessage(`{}`), nil
	})
	// In-flight inputs are few: acme's backlog must not take them all.
	startExec(t, b, reg, map[string]executor.Tool{"work": work}, func(c *executor.Config) {
		c.MaxParallelPerTenant = perTenant
		c.InFlightMax = 20
	})
	const acmeCalls = 40
	var keys []string
	for i := range acmeCalls {
		keys = append(keys, publishCall(t, b, callSpec{tenant: "acme", tool: "work", call: fmt.Sprint("a", i)}))
	}
	for i := range 4 {
		keys = append(keys, publishCall(t, b, callSpec{tenant: "globex", tool: "work", call: fmt.Sprint("g", i)}))
	}
	// A busy tenant does not hold the other back.
	waitFor(t, "both tenants running at once", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return running["acme"] == perTenant && running["globex"] == perTenant
	})
	close(gate)
	for i, k := range keys {
		tenant := "acme"
		if i >= acmeCalls {
			tenant = "globex"
		}
		waitOutcome(t, b, tenant, k)
	}
	if peak["acme"] != perTenant || peak["globex"] != perTenant || !both.Load() {
		t.Fatalf("peaks %v, want %d per tenant", peak, perTenant)
	}
}

func TestCircuitBreaker(t *testing.T) {
	b := bustest.Start(t)
	reg := parseRegistry(t, `
tools:
  - name: shaky
    side_effect: none
grants:
  - tenant: acme
    permissions: [shaky]
  - tenant: globex
    permissions: [shaky]
`)
	var now atomic.Int64
	now.Store(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	var healthy atomic.Bool
	shaky := newCounter(func(context.Context, executor.Call) (json.RawMessage, error) {
		if healthy.Load() {
			return json.RawMessage(`{}`), nil
		}
		return nil, executor.Errorf(events.ErrToolError, "down")
	})
	startExec(t, b, reg, map[string]executor.Tool{"shaky": shaky}, func(c *executor.Config) {
		c.Clock = clock
		c.BreakerFailures = 3
		c.BreakerCoolDown = time.Minute
		c.LeaseTTL = 200 * time.Hour // the frozen clock must not expire leases
		c.Heartbeat = 50 * time.Hour
	})
	n := 0
	call := func(tenant string) outcome {
		n++
		return waitOutcome(t, b, tenant, publishCall(t, b, callSpec{tenant: tenant, tool: "shaky", call: fmt.Sprint("c", n)}))
	}
	for range 3 {
		if o := call("acme"); o.err == nil || o.err.Error != events.ErrToolError {
			t.Fatalf("failing tool: %v", o)
		}
	}
	before := shaky.total.Load()
	o := call("acme")
	if o.err == nil || o.err.Error != events.ErrUnavailable || !strings.Contains(o.err.Message, "fail fast until 2030-01-01T00:01:00Z") || shaky.total.Load() != before {
		t.Fatalf("open circuit: %v", o)
	}
	// Per tenant: globex's circuit is closed.
	if o := call("globex"); o.err == nil || o.err.Error != events.ErrToolError || shaky.total.Load() != before+1 {
		t.Fatalf("other tenant: %v", o)
	}
	// After the cool-down one trial goes through; a failure opens it again.
	now.Add(int64(time.Minute))
	if o := call("acme"); o.err == nil || o.err.Error != events.ErrToolError {
		t.Fatalf("failed trial: %v", o)
	}
	if o := call("acme"); o.err == nil || o.err.Error != events.ErrUnavailable {
		t.Fatalf("reopened: %v", o)
	}
	now.Add(int64(time.Minute))
	healthy.Store(true)
	for range 3 {
		if o := call("acme"); o.ok == nil {
			t.Fatalf("closed again: %v", o)
		}
	}
}
