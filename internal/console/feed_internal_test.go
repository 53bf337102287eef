package console

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
)

// TestACallsStateIsTheSameInAnyOrderOfStreams: the console follows the
// call and result streams at once, so a result may be read before the
// decision and approval events of its call (they are in another stream).
// Whatever the order across streams, a call ends in the state of its
// furthest event, with its tool, arguments and decision.
func TestACallsStateIsTheSameInAnyOrderOfStreams(t *testing.T) {
	key := events.IdempotencyKey("acme", "", "r1", "c1")
	m := client.Meta{Tenant: "acme", Response: "r1", Step: "r1", CallID: "c1"}
	completed := client.Activity{Call: &client.Call{Meta: m, Outcome: client.CallCompleted, Tool: "refund", Arguments: []byte(`{"a":1}`)}}
	asked := client.Activity{Approval: &client.Approval{Meta: m, Tool: "refund", Key: key, Arguments: []byte(`{"a":1}`)}}
	granted := client.Activity{Decision: &client.Decision{Meta: m, Approved: true, By: "console:operator", Reason: "ok"}}
	started := client.Activity{Execution: &client.Execution{Meta: m, Tool: "refund", Key: key, Attempt: 1, Executor: "x#1"}}
	succeeded := client.Activity{Result: &client.Result{Meta: m, Tool: "refund", OK: true, Key: key, Summary: "done", Attempts: 1}}
	denied := client.Activity{Decision: &client.Decision{Meta: m, By: "cli", Reason: "no"}}
	failed := client.Activity{Result: &client.Result{Meta: m, Tool: "refund", Key: key, Error: events.ErrApprovalDenied, Message: "no"}}
	for _, tc := range []struct {
		name      string
		order     []client.Activity
		state     string
		decision  string
		arguments string
	}{
		{"in log order", []client.Activity{completed, asked, granted, started, succeeded}, StateSucceeded, "approved", `{"a":1}`},
		{"result first", []client.Activity{succeeded, completed, asked, granted, started}, StateSucceeded, "approved", `{"a":1}`},
		{"result between", []client.Activity{completed, asked, succeeded, granted, started}, StateSucceeded, "approved", `{"a":1}`},
		{"waiting", []client.Activity{completed, asked}, StateAwaiting, "", `{"a":1}`},
		{"asked before decided", []client.Activity{asked, completed}, StateAwaiting, "", `{"a":1}`},
		{"granted, not yet run", []client.Activity{completed, asked, granted}, StateCompleted, "approved", `{"a":1}`},
		{"running", []client.Activity{completed, asked, granted, started}, StateRunning, "approved", `{"a":1}`},
		{"denied", []client.Activity{completed, asked, denied, failed}, StateFailed, "denied", `{"a":1}`},
		{"denial's result first", []client.Activity{failed, asked, completed, denied}, StateFailed, "denied", `{"a":1}`},
	} {
		f := newFeed(10, 10)
		for i, a := range tc.order {
			at(&a, time.Unix(int64(i), 0))
			f.apply(a)
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

// at sets the time the log stored a's event (a copy of its value).
func at(a *client.Activity, t time.Time) {
	switch {
	case a.Call != nil:
		c := *a.Call
		c.Stored, a.Call = t, &c
	case a.Approval != nil:
		c := *a.Approval
		c.Stored, a.Approval = t, &c
	case a.Decision != nil:
		c := *a.Decision
		c.Stored, a.Decision = t, &c
	case a.Execution != nil:
		c := *a.Execution
		c.Stored, a.Execution = t, &c
	case a.Result != nil:
		c := *a.Result
		c.Stored, a.Result = t, &c
	}
}

// TestTheTablesAreBounded: past CallsMax the oldest calls are dropped, the
// newest kept.
func TestTheTablesAreBounded(t *testing.T) {
	f := newFeed(50, 5)
	for i := range 200 {
		subjCall := fmt.Sprint("c", i)
		f.apply(client.Activity{Call: &client.Call{Meta: client.Meta{Tenant: "acme", Response: "r", Step: "r", CallID: subjCall,
			Stored: time.Unix(int64(i), 0)}, Outcome: client.CallCompleted, Tool: "t"}})
	}
	list, _ := f.list(Grant{Role: "operator"}, CallFilter{})
	if len(list) > 50 || len(list) < 40 {
		t.Fatalf("%d calls kept of 200, bound 50", len(list))
	}
	if !strings.HasSuffix(list[0].Key, "/c199") {
		t.Errorf("the newest call kept is %s, want c199", list[0].Key)
	}
}
