package mcp_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/mcp"
)

// waitingRefund has acme's alice call refund (irreversible: it waits for
// approval) through the MCP server and returns its approval request.
func waitingRefund(t *testing.T, ts *testServer, ctx context.Context, callKey string) client.Approval {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"refund","arguments":{"order_id":"A7"},"_meta":{"` + mcp.MetaCallKey + `":"` + callKey + `"}}}`
	go func() { rpc(t, ts.url, "Bearer "+keyA, body, "Toolstream-User", "alice") }()
	for a, err := range ts.c.Approvals(ctx, "acme", client.Follow()) {
		if err == nil && a.Tool == "refund" {
			return a
		}
	}
	t.Fatal("refund never asked for approval")
	return client.Approval{}
}

// TestAttackClaimedApprovalID is sec13's attack (kept out of the tree
// while it failed): TS_CALLS holds the assembler's calls, the executor's
// progress and the operators' decisions, deduplicated by Nats-Msg-Id
// across the stream. A decision's id was the plain events.ApprovalID(key),
// which anyone reading the call computes: with the assembler's credential
// (ts.call) or the executor's (ts.exec), a message on a subject the role
// may write under that id made the operator's approval a duplicate
// (ErrAlreadyDecided) and refund never ran. A decision's id is now tagged
// under its decider's key (events.OwnedMsgID).
func TestAttackClaimedApprovalID(t *testing.T) {
	for _, tc := range []struct {
		role auth.Role
		subj string
	}{
		{auth.RoleAssembler, "ts.call.acme.x"},
		{auth.RoleExecutor, "ts.exec.acme.x"},
	} {
		t.Run(string(tc.role), func(t *testing.T) {
			ts := start(t, "", func(c *mcp.Config) { c.CallWait = 20 * time.Second })
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			ap := waitingRefund(t, ts, ctx, "f1")
			js := bustest.RoleJS(t, ts.p.B, auth.Identity{Role: tc.role})
			subj, _ := events.ApprovalSubject("acme", ap.Key)
			id := events.ApprovalID(ap.Key)
			// The plain id, and the tag the attacker's own key makes.
			attackerKey := events.DeriveMsgIDKey([]byte(tc.role))
			for _, claim := range []string{id, events.OwnedMsgID(attackerKey, subj, id)} {
				if _, err := js.Publish(ctx, tc.subj, []byte("x"), jetstream.WithMsgID(claim)); err != nil {
					t.Fatalf("%s's publish on %s under %s: %v", tc.role, tc.subj, claim, err)
				}
			}
			if _, err := ts.c.Approve(ctx, "acme", ap.Key, client.By("mcp_test")); err != nil {
				t.Errorf("the operator's approval of refund: %v", err)
			}
			deadline := time.Now().Add(15 * time.Second)
			for ts.p.Invoked["refund"].Load() == 0 && time.Now().Before(deadline) {
				time.Sleep(100 * time.Millisecond)
			}
			if n := ts.p.Invoked["refund"].Load(); n != 1 {
				t.Errorf("refund ran %d times after the operator approved it, want 1", n)
			}
		})
	}
}

// TestTheFirstDecisionStands: decisions are no longer one per key whoever
// decides, so two operators (each its own key) both store theirs; the
// first on the call's approval subject is the decision. An operator's
// credential denies refund; the admin's approval after it is
// ErrAlreadyDecided (before this check it was reported taken) and refund
// never runs: its outcome is approval_denied.
func TestTheFirstDecisionStands(t *testing.T) {
	ts := start(t, "", func(c *mcp.Config) { c.CallWait = 20 * time.Second })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ap := waitingRefund(t, ts, ctx, "f2")
	op, err := client.Connect(ctx, client.WithConn(bustest.RoleJS(t, ts.p.B, auth.Identity{Role: auth.RoleOperator}).Conn()), client.WithKeys(ts.p.B.Keys))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Deny(ctx, "acme", ap.Key, "not this order", client.By("operator")); err != nil {
		t.Fatalf("the operator's denial: %v", err)
	}
	if _, err := ts.c.Approve(ctx, "acme", ap.Key, client.By("admin")); !errors.Is(err, client.ErrAlreadyDecided) {
		t.Errorf("the admin's approval after the operator's denial: %v, want ErrAlreadyDecided", err)
	}
	if _, err := op.Deny(ctx, "acme", ap.Key, "again", client.By("operator")); !errors.Is(err, client.ErrAlreadyDecided) {
		t.Errorf("the operator's second denial: %v, want ErrAlreadyDecided", err)
	}
	for {
		r, err := ts.c.CallResult(ctx, "acme", ap.Key, ap.Tool)
		if err == nil {
			if r.Error != events.ErrApprovalDenied {
				t.Errorf("refund's outcome: %+v, want approval_denied", r)
			}
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("no outcome of refund: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := ts.p.Invoked["refund"].Load(); n != 0 {
		t.Errorf("refund ran %d times after it was denied first", n)
	}
}
