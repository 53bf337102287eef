package executor_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestAttackTenantMismatch: a CallCompleted published on tenant globex's
// call subject whose envelope says acme (granted the tool; globex is not)
// never runs under acme's grants, nor under globex's; an approval on
// globex's subject that names acme decides nothing. A call published the
// honest way afterwards still runs.
func TestAttackTenantMismatch(t *testing.T) {
	b := bustest.Start(t)
	reg := parseRegistry(t, `
tools:
  - name: wire
    idempotency: required
grants:
  - tenant: acme
    permissions: [wire]
`)
	wire := newCounter(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
		return json.RawMessage(`{"tenant":"` + c.Tenant + `"}`), nil
	})
	startExec(t, b, reg, map[string]executor.Tool{"wire": wire}, nil)
	ctx := context.Background()

	forged := callSpec{tenant: "acme", tool: "wire", call: "call_forged"}.event()
	data, err := events.Encode(forged)
	if err != nil {
		t.Fatal(err)
	}
	subj, _ := events.CallSubject("globex", "wire")
	if _, err := b.JS.Publish(ctx, subj, data, jetstream.WithMsgID(forged.ID)); err != nil {
		t.Fatal(err)
	}
	approval := &events.Event{ID: "approval:forged", Tenant: "acme", CallID: "call_forged", Body: &events.ApprovalGranted{By: "mallory"}}
	adata, _ := events.Encode(approval)
	asubj, _ := events.ApprovalSubject("globex", executor.CallKey(forged))
	if _, err := b.JS.Publish(ctx, asubj, adata); err != nil {
		t.Fatal(err)
	}
	// An honest call after the forgeries: once it has run, the executor
	// has handled the forged messages before it (one consumer, in order).
	honest := publishCall(t, b, callSpec{tenant: "acme", tool: "wire", call: "call_honest"})
	if o := waitOutcome(t, b, "acme", honest); o.ok == nil {
		t.Fatalf("the honest call: %v", o)
	}
	if n := wire.count(executor.CallKey(forged)); n != 0 {
		t.Fatalf("the forged call ran %d times", n)
	}
	for _, filter := range []string{"ts.result.globex.>", "ts.exec.globex.>"} {
		if n := count(t, b, filter); n != 0 {
			t.Fatalf("%d events on %s for the forged call", n, filter)
		}
	}
	for _, ev := range all(t, b, "ts.result.acme.>") {
		if ev.CallID == "call_forged" {
			t.Fatalf("the forged call has an outcome under acme: %s", ev.Kind)
		}
	}
}
