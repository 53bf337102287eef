package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestCallsCommand: calls prints a tenant's call and response outcomes,
// approvals, decisions, executions and results in the order the log
// stored them across its streams (they were printed one stream after
// another), one label per kind of event and the call id in one column,
// without another tenant's and skipping garbage on its subjects; --json prints the assemble lines for outcomes and a typed
// body for the rest.
func TestCallsCommand(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tenant := range []string{"acme", "other"} {
		key := tenant + "/run1/1/call_1"
		n := 0
		put := func(subj string, err error, body events.Body) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			n++
			ev := &events.Event{ID: tenant + "-" + string(rune('a'+n)), Tenant: tenant, User: "u1", Run: "run1", Step: "1",
				Response: "resp_1", Item: "fc_1", CallID: "call_1", At: 1, Body: body}
			if _, err := b.Publish(ctx, subj, ev); err != nil {
				t.Fatal(err)
			}
		}
		subj, err := events.CallSubject(tenant, "refund")
		put(subj, err, &events.CallCompleted{Name: "refund", Arguments: []byte(`{"order":7}`)})
		put(subj, err, &events.CallRejected{Name: "refund", Arguments: []byte(`{"ord`), Reason: events.ReasonSchemaViolation, Detail: "/order: required"})
		subj, err = events.ResponseSubject(tenant, "resp_1")
		put(subj, err, &events.ResponseOutcome{Status: events.StatusFailed, ErrorMessage: "cut", Calls: 2})
		subj, err = events.ExecSubject(tenant, key)
		put(subj, err, &events.ApprovalRequested{Name: "refund", Arguments: []byte(`{"order":7}`), Key: key})
		put(subj, err, &events.ExecutionStarted{Name: "refund", Attempt: 1, Executor: "ex1", Key: key})
		subj, err = events.ApprovalSubject(tenant, key)
		put(subj, err, &events.ApprovalGranted{By: "ops"})
		subj, err = events.ResultSubject(tenant, "call_1")
		put(subj, err, &events.CallSucceeded{Name: "refund", Key: key, Result: []byte(`{"ok":true}`), Summary: "refunded", Attempts: 1})
	}
	if _, err := b.JS.Publish(ctx, "ts.call.acme.refund", []byte("garbage")); err != nil {
		t.Fatal(err)
	}
	creds := bustest.Creds(t, b, auth.Identity{Role: auth.RoleOperator})
	cli := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		c := newRoot(&out, &errOut)
		c.SetArgs(append(args, "--nats-url", b.ClientURL(), "--data", t.TempDir(), "--log-level", "error", "--creds", creds))
		if err := c.ExecuteContext(ctx); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut.String())
		}
		return out.String()
	}
	want := `call.completed           resp_1 call=call_1 refund {"order":7}
call.rejected            resp_1 call=call_1 refund (schema_violation)
response.failed          resp_1 calls=2 (stream_failed)
exec.approval_requested  resp_1 call=call_1 waiting for approval of refund: toolstream approve acme/run1/1/call_1
exec.started             resp_1 call=call_1 refund attempt 1 on ex1
exec.approval_granted    resp_1 call=call_1
exec.succeeded           resp_1 call=call_1 refunded
`
	if out := cli("calls", "--tenant", "acme"); out != want {
		t.Fatalf("calls:\n%s\nwant\n%s", out, want)
	}
	var got []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(cli("calls", "--tenant", "acme", "--json")), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		got = append(got, m)
	}
	if len(got) != 7 || got[0]["type"] != "call" || got[0]["call_id"] != "call_1" || got[1]["arguments"] != nil || got[1]["reason"] != "schema_violation" ||
		got[2]["type"] != "response" || got[2]["error"] != "cut" || got[2]["calls"] != 2.0 {
		t.Fatalf("calls --json: %v", got)
	}
	if body, _ := got[6]["body"].(map[string]any); got[6]["type"] != "exec.succeeded" || body["summary"] != "refunded" || body["result"].(map[string]any)["ok"] != true {
		t.Fatalf("calls --json, a result: %v", got[6])
	}
}
