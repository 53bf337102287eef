package executor_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestAttackUserActsOnAnotherUsersObject: user bob of tenant acme, whose
// tenant is granted refund, asks for a refund of alice's order. The
// contract's authorisation service, asked before anything runs, refuses:
// bob gets permission_denied naming him and the order, the refund service
// never hears of it, and the object's version does not move (alice's next
// change needs no version). Alice's own refunds run, and the refund
// service is told who asks (Toolstream-User, -Run, -Step, -Object,
// -Object-Version). An authorisation service that is down fails closed
// (unavailable; nothing runs).
func TestAttackUserActsOnAnotherUsersObject(t *testing.T) {
	owners := map[string]string{"order:A-1": "alice", "order:B-7": "bob"}
	var authDown atomic.Bool
	var asked atomic.Int64
	authz := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		if authDown.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		var q struct{ Tenant, User, Object string }
		json.NewDecoder(r.Body).Decode(&q)
		if r.Header.Get("Toolstream-User") != q.User || q.Tenant != "acme" {
			t.Errorf("authorisation request: header user %q, body %+v", r.Header.Get("Toolstream-User"), q)
		}
		if owners[q.Object] == q.User {
			fmt.Fprint(w, `{"allow":true}`)
			return
		}
		fmt.Fprintf(w, `{"allow":false,"reason":"%s is not %s's"}`, q.Object, q.User)
	}))
	defer authz.Close()
	var mu sync.Mutex
	var refunds []string
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		refunds = append(refunds, strings.Join([]string{r.Header.Get("Toolstream-User"), r.Header.Get("Toolstream-Run"),
			r.Header.Get("Toolstream-Step"), r.Header.Get("Toolstream-Object"), r.Header.Get("Toolstream-Object-Version")}, " "))
		mu.Unlock()
		fmt.Fprint(w, `{"refunded":true}`)
	}))
	defer svc.Close()
	reg := parseRegistry(t, fmt.Sprintf(`
tools:
  - name: refund
    input_schema: {type: object, required: [order_id], properties: {order_id: {type: string}}}
    object: "order:{order_id}"
    authorize: {http: %q}
    http: {url: %q}
grants:
  - {tenant: acme, permissions: [refund]}
`, authz.URL, svc.URL))
	b := bustest.Start(t)
	startExec(t, b, reg, nil, nil)
	call := func(user, run, call, args string) outcome {
		return waitOutcome(t, b, "acme", publishCall(t, b, callSpec{tenant: "acme", tool: "refund", user: user, run: run, step: "s1",
			call: call, response: "resp_" + run + "_" + call, args: args}))
	}

	o := call("bob", "rb", "c1", `{"order_id":"A-1"}`)
	if !o.failedWith(events.ErrPermissionDenied, "user bob on order:A-1 may not call refund", "order:A-1 is not bob's") {
		t.Fatalf("the attacker: %v", o)
	}
	if o := call("bob", "rb", "c2", `{"order_id":"A-1","$object_version":0}`); !o.failedWith(events.ErrPermissionDenied, "user bob") {
		t.Fatalf("the attacker naming the version: %v", o)
	}
	// The victim: her order changes only by her own call, as if bob had never asked.
	if o := call("alice", "ra", "c1", `{"order_id":"A-1"}`); o.ok == nil {
		t.Fatalf("alice's refund: %v", o)
	}
	if o := call("bob", "rb", "c3", `{"order_id":"B-7"}`); o.ok == nil {
		t.Fatalf("bob's own order: %v", o)
	}
	authDown.Store(true)
	if o := call("alice", "ra", "c2", `{"order_id":"A-1"}`); !o.failedWith(events.ErrUnavailable, "did not answer whether user alice on order:A-1 may act") {
		t.Fatalf("authorisation down: %v", o)
	}
	mu.Lock()
	got := strings.Join(refunds, "|")
	mu.Unlock()
	if want := "alice ra s1 order:A-1 0|bob rb s1 order:B-7 0"; got != want {
		t.Fatalf("the refund service heard %q, want %q", got, want)
	}
	if n := asked.Load(); n != 5 {
		t.Fatalf("the authorisation service was asked %d times, want 5", n)
	}
}

// A command tool is told who asks in TOOLSTREAM_USER, TOOLSTREAM_RUN and
// TOOLSTREAM_STEP.
func TestCommandToolIsToldTheUser(t *testing.T) {
	reg := parseRegistry(t, `
tools:
  - name: whoami
    side_effect: none
    command: [sh, -c, 'printf "{\"user\":\"%s\",\"run\":\"%s\",\"step\":\"%s\"}" "$TOOLSTREAM_USER" "$TOOLSTREAM_RUN" "$TOOLSTREAM_STEP"']
grants:
  - {tenant: acme, permissions: [whoami]}
`)
	b := bustest.Start(t)
	startExec(t, b, reg, nil, nil)
	o := waitOutcome(t, b, "acme", publishCall(t, b, callSpec{tenant: "acme", tool: "whoami", user: "alice", run: "r1", step: "s2", call: "c1"}))
	if o.ok == nil || string(o.ok.Result) != `{"user":"alice","run":"r1","step":"s2"}` {
		t.Fatalf("whoami: %v", o)
	}
}
