package executor_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/registry"
)

const approvalYAML = `
tools:
  - name: wire
    side_effect: irreversible
    idempotency: required
    input_schema: {type: object, properties: {amount: {type: number}}, required: [amount]}
grants:
  - tenant: acme
    permissions: [wire]
  - tenant: globex
    permissions: [wire]
`

// waitApprovalRequested polls until the call's ApprovalRequested is in the log.
func waitApprovalRequested(t *testing.T, b *bus.Bus, tenant, key string) *events.ApprovalRequested {
	t.Helper()
	subj, _ := events.ExecSubject(tenant, key)
	var ar *events.ApprovalRequested
	waitFor(t, "approval requested for "+key, func() bool {
		if ev := lastEvent(t, b, subj); ev != nil {
			ar, _ = events.As[*events.ApprovalRequested](ev)
		}
		return ar != nil
	})
	return ar
}

// waitIdle polls until a consumer has nothing pending or unacknowledged.
func waitIdle(t *testing.T, b *bus.Bus, durable string) {
	t.Helper()
	waitFor(t, durable+" idle", func() bool {
		c, err := b.JS.Consumer(context.Background(), events.StreamCalls, durable)
		if err != nil {
			return false
		}
		info, err := c.Info(context.Background())
		return err == nil && info.NumPending == 0 && info.NumAckPending == 0
	})
}

func TestApprovals(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	reg := parseRegistry(t, approvalYAML)
	wire := newCounter(nil)
	tools := map[string]executor.Tool{"wire": wire}
	_, stop := startExec(t, b, reg, tools, nil)

	granted := publishCall(t, b, callSpec{tenant: "acme", tool: "wire", call: "granted", args: `{"amount":10}`})
	denied := publishCall(t, b, callSpec{tenant: "acme", tool: "wire", call: "denied", args: `{"amount":20}`})
	restart := publishCall(t, b, callSpec{tenant: "acme", tool: "wire", call: "restart", args: `{"amount":30}`})
	other := publishCall(t, b, callSpec{tenant: "globex", tool: "wire", call: "granted", args: `{"amount":40}`})
	for _, k := range []string{granted, denied, restart} {
		if ar := waitApprovalRequested(t, b, "acme", k); ar.Key != k || ar.Name != "wire" {
			t.Fatalf("approval request %+v", ar)
		}
	}
	waitApprovalRequested(t, b, "globex", other)
	if n := wire.total.Load(); n != 0 {
		t.Fatalf("%d invocations before any approval", n)
	}

	if err := executor.Approve(ctx, b.JS, "acme", granted, "alice", "checked"); err != nil {
		t.Fatal(err)
	}
	if o := waitOutcome(t, b, "acme", granted); o.ok == nil || wire.count(granted) != 1 {
		t.Fatalf("granted: %v, %d invocations", o, wire.count(granted))
	}
	if err := executor.Deny(ctx, b.JS, "acme", granted, "bob", "too late"); !errors.Is(err, executor.ErrAlreadyDecided) {
		t.Fatalf("second decision: %v", err)
	}
	if err := executor.Deny(ctx, b.JS, "acme", denied, "bob", "amount looks wrong"); err != nil {
		t.Fatal(err)
	}
	o := waitOutcome(t, b, "acme", denied)
	if o.err == nil || o.err.Error != events.ErrApprovalDenied || !strings.Contains(o.err.Message, "amount looks wrong") || !strings.Contains(o.err.Message, "bob") {
		t.Fatalf("denied: %v", o)
	}
	if wire.count(denied) != 0 {
		t.Fatal("a denied call ran")
	}

	// Tenants never meet: another tenant's approval does not serve.
	if err := executor.Approve(ctx, b.JS, "acme", other, "mallory", ""); !errors.Is(err, executor.ErrInvalidKey) {
		t.Fatalf("approving another tenant's call: %v", err)
	}
	forged, _ := events.Encode(&events.Event{ID: "forged", Tenant: "acme", Body: &events.ApprovalGranted{By: "mallory"}})
	subj, _ := events.ApprovalSubject("acme", other) // acme's subject, globex's key
	if _, err := b.JS.Publish(ctx, subj, forged, jetstream.WithMsgID("forged")); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, b, "ts-executor-approvals")
	if wire.count(other) != 0 || lastOn(t, b, mustResultSubject("globex", other)) != nil {
		t.Fatal("a forged approval of another tenant let a call run")
	}

	// Pending across a restart: the wait is in the record and the log.
	stop()
	_, _ = startExec(t, b, reg, tools, nil)
	if err := executor.Approve(ctx, b.JS, "acme", restart, "carol", ""); err != nil {
		t.Fatal(err)
	}
	if o := waitOutcome(t, b, "acme", restart); o.ok == nil || wire.count(restart) != 1 {
		t.Fatalf("approved after restart: %v", o)
	}
	if err := executor.Approve(ctx, b.JS, "globex", other, "dave", ""); err != nil {
		t.Fatal(err)
	}
	if o := waitOutcome(t, b, "globex", other); o.ok == nil || wire.count(other) != 1 {
		t.Fatalf("globex approved: %v", o)
	}

	// A decision may come first: the call runs when it arrives, without a request.
	early := executor.CallKey(callSpec{tenant: "acme", tool: "wire", call: "early", args: `{"amount":1}`}.event())
	if err := executor.Approve(ctx, b.JS, "acme", early, "erin", "pre-approved"); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, b, "ts-executor-approvals")
	publishCall(t, b, callSpec{tenant: "acme", tool: "wire", call: "early", args: `{"amount":1}`})
	if o := waitOutcome(t, b, "acme", early); o.ok == nil || wire.count(early) != 1 {
		t.Fatalf("pre-approved: %v", o)
	}
	if got := wire.total.Load(); got != 4 {
		t.Fatalf("%d invocations, want 4", got)
	}
	if err := executor.Approve(ctx, b.JS, "acme", "acme/not-a-key", "x", ""); !errors.Is(err, executor.ErrInvalidKey) {
		t.Fatalf("malformed key: %v", err)
	}
}

func mustResultSubject(tenant, key string) string {
	s, err := events.ResultSubject(tenant, key)
	if err != nil {
		panic(err)
	}
	return s
}

// A call is pinned to the tool version it was first decided with: if that
// version is gone when it may finally run, it fails as unknown_tool.
func TestVersionIsPinned(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	v1 := parseRegistry(t, "tools: [{name: wire, version: 1, side_effect: irreversible}]\ngrants: [{tenant: acme, permissions: [wire]}]")
	v2 := parseRegistry(t, "tools: [{name: wire, version: 2, side_effect: irreversible}]\ngrants: [{tenant: acme, permissions: [wire]}]")
	var current atomic.Pointer[registry.Registry]
	current.Store(v1)
	wire := newCounter(nil)
	startExec(t, b, nil, map[string]executor.Tool{"wire": wire}, func(c *executor.Config) { c.Registry = current.Load })
	old := publishCall(t, b, callSpec{tenant: "acme", tool: "wire", call: "old"})
	waitApprovalRequested(t, b, "acme", old)
	current.Store(v2)
	named := publishCall(t, b, callSpec{tenant: "acme", tool: "wire@2", call: "named"})
	waitApprovalRequested(t, b, "acme", named)
	for _, k := range []string{old, named} {
		if err := executor.Approve(ctx, b.JS, "acme", k, "alice", ""); err != nil {
			t.Fatal(err)
		}
	}
	if o := waitOutcome(t, b, "acme", old); o.err == nil || o.err.Error != events.ErrUnknownTool || !strings.Contains(o.err.Message, "has no version 1") {
		t.Fatalf("pinned version gone: %v", o)
	}
	if o := waitOutcome(t, b, "acme", named); o.ok == nil || o.ok.Version != 2 {
		t.Fatalf("versioned name: %v", o)
	}
	if wire.count(old) != 0 || wire.count(named) != 1 {
		t.Fatal("wrong invocations")
	}
}

// TestFirstDecisionWinsWhenRedelivered: the first decision on a call's
// approval subject is the decision, whatever order the executor's
// consumer sees them in. Two operators decide (an approval, then a
// denial the log stores after it: Deny says ErrAlreadyDecided but its
// event is on the subject); the executor cannot record the approval for
// a while and hands it back each time, so the denial reaches it first.
// Without firstDecision the denial was recorded and the approved call
// never ran (review rev14: nothing failed without it).
func TestFirstDecisionWinsWhenRedelivered(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	reg := parseRegistry(t, approvalYAML)
	wire := newCounter(nil)
	tools := map[string]executor.Tool{"wire": wire}
	_, stop := startExec(t, b, reg, tools, nil)
	key := publishCall(t, b, callSpec{tenant: "acme", tool: "wire", call: "twice", args: `{"amount":10}`})
	waitApprovalRequested(t, b, "acme", key)
	stop()

	if err := executor.Approve(ctx, b.JS, "acme", key, "alice", "checked"); err != nil {
		t.Fatal(err)
	}
	if err := executor.Deny(ctx, b.JS, "acme", key, "bob", "too late"); !errors.Is(err, executor.ErrAlreadyDecided) {
		t.Fatalf("second decision: %v", err)
	}
	e, err := executor.New(executor.Config{JS: b.JS, Registry: func() *registry.Registry { return reg },
		Tools: tools, Heartbeat: testHeartbeat, DrainTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	failed, heal := executor.FlakyDecisionWrites(e, "granted", errors.New("injected: the record bucket did not answer"))
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- e.Run(rctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("executor run: %v", err)
		}
	}()
	// The approval is handed back every Heartbeat meanwhile; the denial,
	// delivered after it, is handled in the window (not a timed assertion:
	// the outcome is the same for any window the denial fits in).
	waitFor(t, "the approval handed back", func() bool { return failed() > 0 })
	time.Sleep(20 * testHeartbeat)
	heal()
	o := waitOutcome(t, b, "acme", key)
	if o.ok == nil || wire.count(key) != 1 {
		t.Fatalf("the first decision (approved) lost to the second (denied): %v, %d invocations", o, wire.count(key))
	}
}
