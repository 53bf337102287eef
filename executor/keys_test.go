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

// Two calls whose ids contain the key's separator never share a key, and
// a call whose key is another call's gets a typed CallFailed, never
// silence.
func TestAttackKeyCollision(t *testing.T) {
	reg := parseRegistry(t, `
tools:
  - name: note
    idempotency: required
  - name: other
    idempotency: required
grants:
  - tenant: acme
    permissions: [note, other]
`)
	note := newCounter(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
		return json.Marshal(map[string]string{"run": c.Run, "step": c.Step})
	})
	other := newCounter(nil)
	b := bustest.Start(t)
	e, _ := startExec(t, b, reg, map[string]executor.Tool{"note": note, "other": other}, nil)

	// run "x/y" step "z" and run "x" step "y/z": two calls, two keys, two outcomes.
	k1 := publishCall(t, b, callSpec{tenant: "acme", tool: "note", call: "c", run: "x/y", step: "z", response: "resp_1", item: "i1"})
	k2 := publishCall(t, b, callSpec{tenant: "acme", tool: "note", call: "c", run: "x", step: "y/z", response: "resp_2", item: "i2"})
	if k1 == k2 {
		t.Fatalf("two calls share the key %s", k1)
	}
	for k, want := range map[string]string{k1: `{"run":"x/y","step":"z"}`, k2: `{"run":"x","step":"y/z"}`} {
		if o := waitOutcome(t, b, "acme", k); o.ok == nil || string(o.ok.Result) != want || note.count(k) != 1 {
			t.Fatalf("%s: %v (%d invocations)", k, o, note.count(k))
		}
	}

	conflict := func(what string, c callSpec) *events.CallFailed {
		t.Helper()
		if k := publishCall(t, b, c); k != k1 {
			t.Fatalf("%s: key %s, want %s", what, k, k1)
		}
		var failed *events.CallFailed
		waitFor(t, what+" refused", func() bool {
			for _, ev := range all(t, b, "ts.result.acme.>") {
				if f, ok := events.As[*events.CallFailed](ev); ok && ev.Response == c.response && ev.Item == c.item && strings.HasPrefix(ev.ID, "conflict:") {
					if len(c.args) == 0 || strings.Contains(f.Message, "other arguments") {
						failed = f
						return true
					}
				}
			}
			return false
		})
		if failed.Error != events.ErrIdempotencyConflict || failed.Key != k1 {
			t.Fatalf("%s: %+v", what, failed)
		}
		return failed
	}
	// The same tenant, run, step and call id in another response, for another tool.
	f := conflict("another call under the key", callSpec{tenant: "acme", tool: "other", call: "c", run: "x/y", step: "z", response: "resp_3", item: "i3"})
	if !strings.Contains(f.Message, "resp_1") {
		t.Fatalf("the refusal does not say which call holds the key: %s", f.Message)
	}
	// The same item again with other arguments, under another message id.
	conflict("the same item with other arguments", callSpec{tenant: "acme", tool: "note", call: "c", run: "x/y", step: "z", response: "resp_1", item: "i1", args: `{"amount":100}`, msgID: "forged-1"})
	if other.total.Load() != 0 || note.count(k1) != 1 {
		t.Fatalf("a refused call ran: other %d, note %d", other.total.Load(), note.count(k1))
	}
	// A true duplicate (the same call under another message id) is still
	// acknowledged quietly.
	publishCall(t, b, callSpec{tenant: "acme", tool: "note", call: "c", run: "x/y", step: "z", response: "resp_1", item: "i1", msgID: "again-1"})
	waitFor(t, "the duplicate", func() bool { return e.Stats().Duplicates > 0 })
	if n := count(t, b, "ts.result.acme.>"); n != 4 || note.count(k1) != 1 {
		t.Fatalf("%d outcomes, %d invocations after a duplicate", n, note.count(k1))
	}
}
