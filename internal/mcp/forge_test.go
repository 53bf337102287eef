package mcp_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/mcp"
)

// TestDriverForgesNoToolsOutcome (sec13, atk12's attack): with a stolen
// driver credential, through the real server, an attacker tries to stand
// in for the outcome of acme's alice's refund (a real tool, irreversible,
// waiting for approval): on the executor's result subject under the
// message id the executor uses (refused: the driver's role publishes only
// built-in outcome subjects), and on the call's built-in outcome subject
// under that message id, once as refund's outcome (stored, refused by
// every reader: a built-in subject holds only built-in tools' outcomes)
// and once as a built-in tool's outcome naming refund's call (ignored:
// not the call's tool; client.CallResult, told the call's tool, returns
// neither while refund waits: sec14). Once approved, refund runs once, the log holds
// the executor's outcome on its subject (the claimed message id did not
// drop it: the executor's ids are tagged), the client gets it and the
// runs view holds it.
func TestDriverForgesNoToolsOutcome(t *testing.T) {
	ts := start(t, "", func(c *mcp.Config) { c.CallWait = 30 * time.Second })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	body := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"refund","arguments":{"order_id":"A7"},"_meta":{"` + mcp.MetaCallKey + `":"f1"}}}`
	answer := make(chan string, 1)
	go func() { _, _, got := rpc(t, ts.url, "Bearer "+keyA, body, "Toolstream-User", "alice"); answer <- got }()
	var ap client.Approval
	for a, err := range ts.c.Approvals(ctx, "acme", client.Follow()) {
		if err == nil && a.Tool == "refund" {
			ap = a
			break
		}
	}
	if ap.Key == "" {
		t.Fatal("no approval asked")
	}
	js := bustest.RoleJS(t, ts.p.B, auth.Identity{Role: auth.RoleDriver})
	realSubj, _ := events.ResultSubject("acme", ap.Key)
	builtinSubj, _ := events.BuiltinResultSubject("acme", ap.Key)
	forge := func(subj, name, msgID string) error {
		ev := &events.Event{ID: events.ResultID(ap.Key), Tenant: "acme", User: ap.User, Session: ap.Session, Run: ap.Run, Step: ap.Step,
			Response: ap.Response, Item: ap.Item, CallID: ap.CallID, At: time.Now().UnixNano(),
			Body: &events.CallSucceeded{Name: name, Key: ap.Key, Result: []byte(`{"status":"FORGED"}`), Summary: "FORGED", Attempts: 1}}
		data, err := events.Encode(ev)
		if err != nil {
			t.Fatal(err)
		}
		pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		_, err = js.Publish(pctx, subj, data, jetstream.WithMsgID(msgID))
		return err
	}
	if err := forge(realSubj, "refund", events.ResultID(ap.Key)); err == nil {
		t.Errorf("the driver published refund's outcome on the executor's subject %s", realSubj)
	}
	for i, name := range []string{events.ToolPlan, "refund"} {
		if err := forge(builtinSubj, name, events.ResultID(ap.Key)+strings.Repeat("~", i)); err != nil {
			t.Fatalf("the driver's publish on its own subject %s: %v", builtinSubj, err)
		}
	}
	// refund waits for approval: the executor's subject holds nothing, and
	// what the built-in one holds is no outcome of refund's.
	if r, err := ts.c.CallResult(ctx, "acme", ap.Key, ap.Tool); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("refund's outcome while it waits for approval: %+v, %v; want ErrNotFound", r, err)
	}
	if _, err := ts.c.Approve(ctx, "acme", ap.Key, client.By("mcp_test")); err != nil {
		t.Fatalf("approve: %v", err)
	}
	got := <-answer
	if !strings.Contains(got, "refunded") || strings.Contains(got, "FORGED") {
		t.Errorf("the client's answer is not refund's outcome: %.400s", got)
	}
	r, err := ts.c.CallResult(ctx, "acme", ap.Key, ap.Tool)
	if err != nil || !strings.Contains(string(r.Result), "refunded") {
		t.Errorf("the log's outcome of refund on %s: %+v, %v; want the executor's", realSubj, r, err)
	}
	rounds, err := ts.c.Rounds(ctx, "acme", ap.Response)
	if err != nil {
		t.Fatal(err)
	}
	for _, rd := range rounds {
		for _, c := range rd.Calls {
			if c.Key == ap.Key && (c.State != "succeeded" || strings.Contains(string(c.Result)+c.Summary, "FORGED")) {
				t.Errorf("the runs view's refund call: %s %s %q, want the executor's outcome", c.State, c.Result, c.Summary)
			}
		}
	}
	if n := ts.p.Invoked["refund"].Load(); n != 1 {
		t.Errorf("refund ran %d times after approval, want 1", n)
	}
}
