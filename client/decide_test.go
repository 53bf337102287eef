package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/registry"
)

const wireYAML = `
tools:
  - name: wire
    side_effect: irreversible
    idempotency: required
    input_schema: {type: object, properties: {amount: {type: number}}, required: [amount]}
grants:
  - tenant: acme
    permissions: [wire]
`

// startExecutor runs a real executor of the wire tool until the test ends.
func startExecutor(t testing.TB, b *bus.Bus) {
	t.Helper()
	reg, err := registry.Parse([]byte(wireYAML))
	if err != nil {
		t.Fatal(err)
	}
	wire := executor.ToolFunc(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
		return json.RawMessage(`{"sent":true}`), nil
	})
	e, err := executor.New(executor.Config{JS: b.JS, Keys: b.Keys, Registry: func() *registry.Registry { return reg },
		Tools: map[string]executor.Tool{"wire": wire}, DrainTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// completeCall publishes a completed call of the wire tool, as the
// assembler would.
func completeCall(t testing.TB, b *bus.Bus, call, args string) {
	t.Helper()
	subj, _ := events.CallSubject("acme", "wire")
	ev := &events.Event{ID: events.CompletedID("acme", "resp_1", "item_"+call), Tenant: "acme", User: "u1", Run: "run1", Step: "1",
		Response: "resp_1", Item: "item_" + call, CallID: call, At: 1, Body: &events.CallCompleted{Name: "wire", Arguments: []byte(args)}}
	if _, err := b.Publish(context.Background(), subj, ev); err != nil {
		t.Fatal(err)
	}
}

// TestApproveAndDeny drives a real executor: calls that wait for approval
// are listed, one approved by its call id runs, one denied with a reason
// fails with approval_denied and the reason; a second decision, an
// unknown call, a denial without reason and an identity that may not
// decide are refused with the errors to branch on.
func TestApproveAndDeny(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	startExecutor(t, b)
	completeCall(t, b, "call_ok", `{"amount":10}`)
	completeCall(t, b, "call_no", `{"amount":20}`)
	c := connect(t, b, auth.Identity{Role: auth.RoleOperator})
	waiting := map[string]string{}
	for a, err := range c.Approvals(ctx, "acme", client.Follow()) {
		if err != nil {
			t.Fatal(err)
		}
		if a.Tool != "wire" || a.Key != "acme/run1/1/"+a.CallID {
			t.Fatalf("%+v", a)
		}
		if waiting[a.CallID] = string(a.Arguments); len(waiting) == 2 {
			break
		}
	}
	if waiting["call_ok"] != `{"amount":10}` {
		t.Fatalf("waiting %v", waiting)
	}
	key, err := c.Approve(ctx, "acme", "call_ok", client.By("alice"), client.Because("checked"))
	if err != nil || key != "acme/run1/1/call_ok" {
		t.Fatal(key, err)
	}
	if _, err := c.Deny(ctx, "acme", "acme/run1/1/call_no", "amount looks wrong", client.By("bob")); err != nil {
		t.Fatal(err)
	}
	results := map[string]client.Result{}
	for r, err := range c.Results(ctx, "acme", client.Follow()) {
		if err != nil {
			t.Fatal(err)
		}
		if results[r.CallID] = r; len(results) == 2 {
			break
		}
	}
	if ok, no := results["call_ok"], results["call_no"]; !ok.OK || string(ok.Result) != `{"sent":true}` ||
		no.OK || no.Error != events.ErrApprovalDenied || !contains(no.Message, "amount looks wrong") {
		t.Fatalf("results %+v", results)
	}
	if _, err := c.Deny(ctx, "acme", "call_ok", "too late"); !errors.Is(err, client.ErrAlreadyDecided) {
		t.Fatalf("a second decision: %v", err)
	}
	if _, err := c.Approve(ctx, "acme", "call_unknown"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("an unknown call: %v", err)
	}
	if _, err := c.Deny(ctx, "acme", "call_ok", ""); !errors.Is(err, client.ErrBadInput) {
		t.Fatalf("a denial without reason: %v", err)
	}
	if _, err := c.Approve(ctx, "a.b", "call_ok"); !errors.Is(err, client.ErrBadInput) {
		t.Fatalf("a bad tenant: %v", err)
	}
	completeCall(t, b, "call_reader", `{"amount":30}`)
	reader := connect(t, b, auth.Identity{Role: auth.RoleReader}, client.WithRequestTimeout(2*time.Second))
	for a, err := range reader.Approvals(ctx, "acme", client.Follow()) {
		if err != nil {
			t.Fatal(err)
		}
		if a.CallID == "call_reader" {
			break
		}
	}
	if _, err := reader.Approve(ctx, "acme", "call_reader"); !errors.Is(err, client.ErrPermissionDenied) {
		t.Fatalf("a reader approving: %v", err)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// requestApprovals publishes n approval requests of tenant's calls
// call_0…call_<n-1>, as an executor would, and returns their keys.
func requestApprovals(t testing.TB, b *bus.Bus, tenant string, n int) []string {
	t.Helper()
	keys := make([]string, n)
	for i := range keys {
		call := fmt.Sprintf("call_%d", i)
		keys[i] = events.IdempotencyKey(tenant, "run1", "1", call)
		subj, err := events.ExecSubject(tenant, keys[i])
		if err != nil {
			t.Fatal(err)
		}
		ev := &events.Event{ID: events.ExecutionID("approval_requested", keys[i], 0), Tenant: tenant, Run: "run1", Step: "1", CallID: call,
			At: 1, Body: &events.ApprovalRequested{Name: "wire", Arguments: []byte(`{"amount":1}`), Key: keys[i]}}
		if _, err := b.Publish(context.Background(), subj, ev); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestDecideByKey: a decision named by its call key finds the request
// among others of the tenant and of another tenant with the same call id;
// a key of another tenant is bad input, a key no call asked under is not
// found; by provider call id the tenant's own request is the one decided.
func TestDecideByKey(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	acme := requestApprovals(t, b, "acme", 5)
	globex := requestApprovals(t, b, "globex", 5)
	c := connect(t, b, auth.Identity{Role: auth.RoleOperator})
	for _, tc := range []struct {
		name, tenant, call string
		want               error
		key                string
	}{
		{"the key of the third", "acme", acme[2], nil, acme[2]},
		{"the same key again", "acme", acme[2], client.ErrAlreadyDecided, acme[2]},
		{"by call id", "globex", "call_4", nil, globex[4]},
		{"a key of another tenant", "acme", globex[1], client.ErrBadInput, ""},
		{"a key nobody asked under", "acme", events.IdempotencyKey("acme", "run1", "1", "call_9"), client.ErrNotFound, ""},
		{"a key without a call", "acme", events.IdempotencyKey("acme", "run1", "1", ""), client.ErrBadInput, ""},
	} {
		key, err := c.Approve(ctx, tc.tenant, tc.call)
		if (tc.want == nil && err != nil) || (tc.want != nil && !errors.Is(err, tc.want)) || key != tc.key {
			t.Errorf("%s: %q, %v; want %q, %v", tc.name, key, err, tc.key, tc.want)
		}
	}
}

// BenchmarkApprove decides one of 5,000 waiting calls of a tenant, the
// latest asked first, named by its key (read from its own subject) or by
// its provider call id (looked up among the tenant's requests).
//
//	go test -run '^$' -bench Approve -benchtime 200x ./client/
func BenchmarkApprove(b *testing.B) {
	bs := bustest.Start(b)
	ctx := context.Background()
	const n = 5000
	keys := requestApprovals(b, bs, "acme", n)
	c, err := client.Connect(ctx, client.WithConn(bs.Conn), client.WithKeys(bs.Keys))
	if err != nil {
		b.Fatal(err)
	}
	for _, by := range []string{"key", "call-id"} {
		b.Run(by, func(b *testing.B) {
			i := 0
			for b.Loop() {
				j := n - 1 - i%n
				i++
				call := keys[j]
				if by == "call-id" {
					call = fmt.Sprintf("call_%d", j)
				}
				if _, err := c.Approve(ctx, "acme", call); err != nil && !errors.Is(err, client.ErrAlreadyDecided) {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestLatestWord: Decided, Closed and LastVerdict read the last event on
// one call's or response's subject: not found before it is written (or
// while the last is not one), the value after.
func TestLatestWord(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	keys := requestApprovals(t, b, "acme", 2)
	c := connect(t, b, auth.Identity{Role: auth.RoleOperator})
	if _, err := c.Decided(ctx, "acme", keys[0]); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("an undecided call: %v", err)
	}
	if _, err := c.Deny(ctx, "acme", keys[0], "not now", client.By("bob")); err != nil {
		t.Fatal(err)
	}
	if d, err := c.Decided(ctx, "acme", keys[0]); err != nil || d.Approved || d.By != "bob" || d.Reason != "not now" {
		t.Fatalf("the denied call: %+v %v", d, err)
	}
	if _, err := c.Decided(ctx, "acme", keys[1]); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("the other call: %v", err)
	}
	pub := func(subj string, err error, ev *events.Event) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		ev.Tenant, ev.Response, ev.At = "acme", "resp_1", 1
		if _, err := b.Publish(ctx, subj, ev); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Closed(ctx, "acme", "resp_1"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("an open response: %v", err)
	}
	subj, err := events.ResponseSubject("acme", "resp_1")
	pub(subj, err, &events.Event{ID: "out", Body: &events.ResponseOutcome{Status: events.StatusCompleted, Text: "It is 4°C."}})
	if r, err := c.Closed(ctx, "acme", "resp_1"); err != nil || r.Status != events.StatusCompleted || r.Text != "It is 4°C." {
		t.Fatalf("the closed response: %+v %v", r, err)
	}
	subj, err = events.AnswerSubject("acme", "resp_1")
	pub(subj, err, &events.Event{ID: "ans", Body: &events.AnswerSubmitted{Text: "It is 4°C."}})
	if _, err := c.LastVerdict(ctx, "acme", "resp_1"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("an answer without a verdict: %v", err)
	}
	pub(subj, err, &events.Event{ID: "ver", Body: &events.AnswerVerified{Faithfulness: 1, Policy: "annotate"}})
	if v, err := c.LastVerdict(ctx, "acme", "resp_1"); err != nil || v.Verified == nil || v.Verified.Faithfulness != 1 {
		t.Fatalf("the verdict: %+v %v", v, err)
	}
	if _, err := c.Decided(ctx, "a.b", keys[0]); !errors.Is(err, client.ErrBadInput) {
		t.Fatalf("a bad tenant: %v", err)
	}
}
