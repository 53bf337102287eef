package executor_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

func TestTenantsNeverMeet(t *testing.T) {
	b := bustest.Start(t)
	reg := parseRegistry(t, `
tools:
  - name: lookup
    idempotency: required
  - name: acme.only
    side_effect: none
grants:
  - tenant: acme
    permissions: [lookup, acme.only]
  - tenant: globex
    permissions: [lookup]
`)
	lookup := newCounter(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
		return json.RawMessage(`{"tenant":"` + c.Tenant + `","key":"` + c.Key + `"}`), nil
	})
	only := newCounter(nil)
	startExec(t, b, reg, map[string]executor.Tool{"lookup": lookup, "acme.only": only}, nil)

	// The same response, item and call ids in two tenants are two calls.
	ka := publishCall(t, b, callSpec{tenant: "acme", tool: "lookup", call: "call_1"})
	kg := publishCall(t, b, callSpec{tenant: "globex", tool: "lookup", call: "call_1"})
	if ka == kg {
		t.Fatal("two tenants share a key")
	}
	for _, c := range []struct{ tenant, key string }{{"acme", ka}, {"globex", kg}} {
		o := waitOutcome(t, b, c.tenant, c.key)
		if o.ok == nil || o.ev.Tenant != c.tenant || !strings.Contains(string(o.ok.Result), `"tenant":"`+c.tenant+`"`) || lookup.count(c.key) != 1 {
			t.Fatalf("%s: %v", c.tenant, o)
		}
	}
	// Grants are per tenant.
	kga := publishCall(t, b, callSpec{tenant: "globex", tool: "acme.only", call: "call_2"})
	kaa := publishCall(t, b, callSpec{tenant: "acme", tool: "acme.only", call: "call_2"})
	if o := waitOutcome(t, b, "globex", kga); o.err == nil || o.err.Error != events.ErrPermissionDenied || !strings.Contains(o.err.Message, "globex") {
		t.Fatalf("globex without the grant: %v", o)
	}
	if o := waitOutcome(t, b, "acme", kaa); o.ok == nil {
		t.Fatalf("acme with the grant: %v", o)
	}
	if only.count(kga) != 0 {
		t.Fatal("a tenant without the grant ran the tool")
	}
	// Results live under their tenant only.
	for _, tenant := range []string{"acme", "globex"} {
		for _, ev := range all(t, b, "ts.result."+tenant+".>") {
			if ev.Tenant != tenant || !strings.HasPrefix(ev.CallID, "call_") {
				t.Fatalf("result of %s under %s", ev.Tenant, tenant)
			}
			if k := ev.Body.(interface{ Kind() events.Kind }); k == nil {
				t.Fatal("no body")
			}
		}
	}
}
