package console

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestACallsStateIsTheSameInAnyOrderOfStreams: the console follows the
// call and result streams at once, so a result may be read before the
// decision and approval events of its call (they are in another stream).
// Whatever the order across streams, a call ends in the state of its
// furthest event, with its tool, arguments and decision.
func TestACallsStateIsTheSameInAnyOrderOfStreams(t *testing.T) {
	key := events.IdempotencyKey("acme", "", "r1", "c1")
	ev := func(body events.Body) *events.Event {
		return &events.Event{Tenant: "acme", Response: "r1", Step: "r1", CallID: "c1", Body: body}
	}
	completed := ev(&events.CallCompleted{Name: "refund", Arguments: []byte(`{"a":1}`)})
	asked := ev(&events.ApprovalRequested{Name: "refund", Key: key, Arguments: []byte(`{"a":1}`)})
	granted := ev(&events.ApprovalGranted{By: "console:operator", Reason: "ok"})
	started := ev(&events.ExecutionStarted{Name: "refund", Key: key, Attempt: 1, Executor: "x#1"})
	succeeded := ev(&events.CallSucceeded{Name: "refund", Key: key, Summary: "done", Attempts: 1})
	denied := ev(&events.ApprovalDenied{By: "cli", Reason: "no"})
	failed := ev(&events.CallFailed{Name: "refund", Key: key, Error: events.ErrApprovalDenied, Message: "no"})
	for _, tc := range []struct {
		name      string
		order     []*events.Event
		state     string
		decision  string
		arguments string
	}{
		{"in log order", []*events.Event{completed, asked, granted, started, succeeded}, StateSucceeded, "approved", `{"a":1}`},
		{"result first", []*events.Event{succeeded, completed, asked, granted, started}, StateSucceeded, "approved", `{"a":1}`},
		{"result between", []*events.Event{completed, asked, succeeded, granted, started}, StateSucceeded, "approved", `{"a":1}`},
		{"waiting", []*events.Event{completed, asked}, StateAwaiting, "", `{"a":1}`},
		{"asked before decided", []*events.Event{asked, completed}, StateAwaiting, "", `{"a":1}`},
		{"granted, not yet run", []*events.Event{completed, asked, granted}, StateCompleted, "approved", `{"a":1}`},
		{"running", []*events.Event{completed, asked, granted, started}, StateRunning, "approved", `{"a":1}`},
		{"denied", []*events.Event{completed, asked, denied, failed}, StateFailed, "denied", `{"a":1}`},
		{"denial's result first", []*events.Event{failed, asked, completed, denied}, StateFailed, "denied", `{"a":1}`},
	} {
		f := newFeed(10, 10)
		for i, e := range tc.order {
			f.apply(e, time.Unix(int64(i), 0))
		}
		list, counts := f.list(Grant{Role: "operator"}, CallFilter{})
		if len(list) != 1 || counts[tc.state] != 1 {
			t.Errorf("%s: %d calls, counts %v, want one %s", tc.name, len(list), counts, tc.state)
			continue
		}
		c := list[0]
		if c.State != tc.state || c.Decision != tc.decision || c.Arguments != tc.arguments || c.Tool != "refund" || c.Key != key {
			t.Errorf("%s: %+v, want state %s decision %q", tc.name, c, tc.state, tc.decision)
		}
	}
}

// TestTheTablesAreBounded: past CallsMax the oldest calls are dropped, the
// newest kept.
func TestTheTablesAreBounded(t *testing.T) {
	f := newFeed(50, 5)
	for i := range 200 {
		subjCall := fmt.Sprint("c", i)
		f.apply(&events.Event{Tenant: "acme", Response: "r", Step: "r", CallID: subjCall, Body: &events.CallCompleted{Name: "t"}}, time.Unix(int64(i), 0))
	}
	list, _ := f.list(Grant{Role: "operator"}, CallFilter{})
	if len(list) > 50 || len(list) < 40 {
		t.Fatalf("%d calls kept of 200, bound 50", len(list))
	}
	if !strings.HasSuffix(list[0].Key, "/c199") {
		t.Errorf("the newest call kept is %s, want c199", list[0].Key)
	}
}
