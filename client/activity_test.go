package client_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// describe is one line per activity: its kind, tenant, stream and the
// fields of its typed value.
func describe(a client.Activity) string {
	m := a.Meta()
	head := fmt.Sprintf("%s %s %s", m.Kind, m.Tenant, m.Stream)
	switch {
	case a.Call != nil:
		return fmt.Sprintf("%s %s %s %s", head, a.Call.Outcome, a.Call.Tool, a.Call.Arguments)
	case a.Response != nil:
		return fmt.Sprintf("%s %s %s %q calls=%d %q", head, a.Response.Status, a.Response.Reason, a.Response.Error, a.Response.Calls, a.Response.Text)
	case a.Approval != nil:
		return fmt.Sprintf("%s %s %s %s", head, a.Approval.Tool, a.Approval.Key, a.Approval.Arguments)
	case a.Decision != nil:
		return fmt.Sprintf("%s approved=%v by=%s %q", head, a.Decision.Approved, a.Decision.By, a.Decision.Reason)
	case a.Execution != nil:
		return fmt.Sprintf("%s %s attempt %d on %s %s", head, a.Execution.Tool, a.Execution.Attempt, a.Execution.Executor, a.Execution.Key)
	case a.Result != nil:
		return fmt.Sprintf("%s ok=%v %s %s", head, a.Result.OK, a.Result.Summary, a.Result.Message)
	case a.Answer != nil:
		return fmt.Sprintf("%s %q", head, a.Answer.Text)
	case a.Verdict != nil:
		return fmt.Sprintf("%s %s", head, a.Verdict.Verified.Policy)
	}
	return head + " none"
}

// writeActivity publishes one event of each kind Activity reads for
// tenant, and returns them as describe says them, in the log's order of
// streams.
func writeActivity(t *testing.T, b *bus.Bus, tenant string) []string {
	t.Helper()
	ctx := context.Background()
	key := tenant + "/run1/1/call_1"
	must := func(subj string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return subj
	}
	put := func(subj string, body events.Body) {
		t.Helper()
		ev := callEvent(tenant, 1, body)
		ev.ID = fmt.Sprintf("%s:%s", body.Kind(), tenant)
		if _, err := b.Publish(ctx, subj, ev); err != nil {
			t.Fatal(err)
		}
	}
	// Interleaved across streams: a read without Follow takes each stream
	// whole, in the log's order.
	put(must(events.CallSubject(tenant, "refund")), &events.CallCompleted{Name: "refund", Arguments: []byte(`{"order":7}`)})
	put(must(events.ExecSubject(tenant, key)), &events.ApprovalRequested{Name: "refund", Arguments: []byte(`{"order":7}`), Key: key})
	put(must(events.ResponseSubject(tenant, "resp_1")), &events.ResponseOutcome{Status: events.StatusFailed, ErrorCode: "overloaded", ErrorMessage: "try later", Calls: 1})
	put(must(events.ApprovalSubject(tenant, key)), &events.ApprovalDenied{By: "ops", Reason: "too much"})
	put(must(events.ExecSubject(tenant, key)), &events.ExecutionStarted{Name: "refund", Attempt: 1, Executor: "ex1", Key: key})
	put(must(events.ResultSubject(tenant, "call_1")), &events.CallFailed{Name: "refund", Key: key, Error: "approval_denied", Message: "too much", Attempts: 1})
	put(must(events.AnswerSubject(tenant, "resp_1")), &events.AnswerSubmitted{Text: "No refund."})
	put(must(events.AnswerSubject(tenant, "resp_1")), &events.AnswerVerified{Policy: "annotate"})
	return []string{
		"call.completed " + tenant + ` TS_CALLS completed refund {"order":7}`,
		"exec.approval_requested " + tenant + ` TS_CALLS refund ` + key + ` {"order":7}`,
		"exec.approval_denied " + tenant + ` TS_CALLS approved=false by=ops "too much"`,
		"exec.started " + tenant + ` TS_CALLS refund attempt 1 on ex1 ` + key,
		"call.response_outcome " + tenant + ` TS_OUT failed overloaded "try later" calls=1 ""`,
		"exec.failed " + tenant + ` TS_OUT ok=false  too much`,
		"answer.submitted " + tenant + ` TS_OUT "No refund."`,
		"answer.verified " + tenant + ` TS_OUT annotate`,
	}
}

// TestActivity: a tenant's activity of every kind comes back typed, each
// stream of the log in its order, without another tenant's; the kinds
// asked select; AllTenants reads every tenant's; AfterIn resumes each
// stream where it was, After is refused for several streams; Follow
// reads the streams at once and takes what is written later.
func TestActivity(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	want := writeActivity(t, b, "acme")
	other := writeActivity(t, b, "other")
	c := connect(t, b, auth.Identity{Role: auth.RoleOperator})
	read := func(tenant string, kinds []client.Kind, opts ...client.ReadOption) ([]string, map[string]uint64) {
		t.Helper()
		var got []string
		last := map[string]uint64{}
		for a, err := range c.Activity(ctx, tenant, kinds, opts...) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, describe(a))
			last[a.Meta().Stream] = a.Meta().Seq
		}
		return got, last
	}
	got, last := read("acme", nil)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("activity\n%q\nwant\n%q", got, want)
	}
	if got, _ := read("acme", []client.Kind{client.KindResponses, client.KindDecisions}); fmt.Sprint(got) != fmt.Sprint([]string{want[2], want[4]}) {
		t.Fatalf("responses and decisions: %q", got)
	}
	all, _ := read(client.AllTenants, []client.Kind{client.KindCalls})
	if fmt.Sprint(all) != fmt.Sprint([]string{want[0], other[0]}) {
		t.Fatalf("every tenant's calls: %q", all)
	}
	// Resuming each stream after its last: nothing; after nothing in
	// TS_OUT: the whole of it.
	if got, _ := read("acme", nil, client.AfterIn(events.StreamCalls, last[events.StreamCalls]), client.AfterIn(events.StreamOut, last[events.StreamOut])); len(got) != 0 {
		t.Fatalf("after the last of each stream: %q", got)
	}
	if got, _ := read("acme", nil, client.AfterIn(events.StreamCalls, last[events.StreamCalls])); fmt.Sprint(got) != fmt.Sprint(want[4:]) {
		t.Fatalf("after the last call: %q", got)
	}
	for _, err := range c.Activity(ctx, "acme", nil, client.After(1)) {
		if !errors.Is(err, client.ErrInvalidOption) {
			t.Fatalf("After across streams: %v", err)
		}
	}

	// Follow: written after the read caught up, in both streams.
	fctx, fcancel := context.WithTimeout(ctx, 30*time.Second)
	defer fcancel()
	seen := map[events.Kind]bool{}
	wrote := false
	for a, err := range c.Activity(fctx, "acme", []client.Kind{client.KindCalls, client.KindResults}, client.Follow()) {
		if err != nil {
			t.Fatal(err)
		}
		if a.Meta().ID == "late" {
			seen[a.Meta().Kind] = true
		}
		if len(seen) == 2 {
			break
		}
		if !wrote && len(seen) == 0 && a.Result != nil { // the history is in
			wrote = true
			for _, body := range []events.Body{&events.CallCompleted{Name: "refund", Arguments: []byte(`{}`)}, &events.CallSucceeded{Name: "refund", Summary: "ok"}} {
				ev := callEvent("acme", 2, body)
				ev.ID = "late"
				publish(t, b, ev)
			}
		}
	}
	if len(seen) != 2 {
		t.Fatalf("followed %v", seen)
	}
}

// TestCallKeyIsTheExecutors: Meta.CallKey derives a call's key from the
// envelope as the executor does, with and without a step and a call id.
func TestCallKeyIsTheExecutors(t *testing.T) {
	for _, ev := range []*events.Event{
		{Tenant: "acme", Run: "run1", Step: "2", Response: "resp_1", Item: "fc_1", CallID: "call_1"},
		{Tenant: "acme", Response: "resp_1", Item: "fc_1", CallID: "call_1"},
		{Tenant: "acme", Run: "run1", Response: "resp_1", Item: "fc_1"},
	} {
		m := client.Meta{Tenant: ev.Tenant, Run: ev.Run, Step: ev.Step, Response: ev.Response, Item: ev.Item, CallID: ev.CallID}
		if got, want := m.CallKey(), executor.CallKey(ev); got != want {
			t.Errorf("%+v: %q, the executor's %q", m, got, want)
		}
	}
}
