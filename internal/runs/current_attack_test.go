package runs_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/runs"
)

// TestAttackCurrentWaitsHoldUpNoOtherTenant: a `current` read waits until
// the runs view has applied the log. With the view stopped behind a
// message of acme's run (as after a restart, or under acme's own flood),
// acme's producer asks for its run current and hangs up at once, through
// the real server with its own credential. Victim: globex's producer's
// current read of its own run, applied before, is answered meanwhile (it
// waits for globex's messages only; before, it waited for the whole log,
// acme's message included, and was not answered). Attacker: once the view
// runs again, acme's next current read is answered with its message
// applied, behind the one it hung up on: the lane goes on, nothing of the
// abandoned wait is left holding it.
func TestAttackCurrentWaitsHoldUpNoOtherTenant(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	n := startNode(t, nil)
	acme := bustest.RoleJS(t, n.b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}).Conn()
	globex := bustest.RoleJS(t, n.b, auth.Identity{Role: auth.RoleProducer, Tenant: "globex"}).Conn()
	var reply runs.WriteReply
	for tenant, nc := range map[string]*nats.Conn{"acme": acme, "globex": globex} {
		if err := ask(t, nc, "message", tenant, runs.Request{Run: "r1", ID: "m1", Text: "first", User: "u1"}, &reply); err != nil || !reply.Applied {
			t.Fatalf("%s's first message: %v %+v", tenant, err, reply)
		}
	}
	var before runs.Run
	if err := ask(t, acme, "get", "acme", runs.Request{Run: "r1", Current: true}, &before); err != nil {
		t.Fatalf("acme's run: %v", err)
	}

	n.stopRuns()
	subj, err := events.RunSubject("acme", "r1")
	if err != nil {
		t.Fatal(err)
	}
	ev := &events.Event{ID: events.RunMessageID("acme", "r1", "m2"), Tenant: "acme", User: "u1", Run: "r1", At: time.Now().UnixNano(),
		Body: &events.RunMessage{Role: "user", Text: "second"}}
	if _, err := n.b.PublishSealed(ctx, subj, ev, ""); err != nil {
		t.Fatal(err)
	}
	req, _ := json.Marshal(runs.Request{Run: "r1", Current: true})
	// acme hangs up while the service waits for its view.
	if _, err := acme.Request(runs.ServiceSubject("get", "acme"), req, 50*time.Millisecond); !errors.Is(err, nats.ErrTimeout) {
		t.Fatalf("acme's current read with the view behind its message: %v, want no answer in time", err)
	}
	// globex's current read is answered while acme's wait goes on (the
	// service waits up to its 10 s timeout for acme's).
	m, err := globex.Request(runs.ServiceSubject("get", "globex"), req, 5*time.Second)
	if err != nil {
		t.Fatalf("globex's current read while the view is behind acme's message: %v", err)
	}
	var got runs.Run
	if code := m.Header.Get(micro.ErrorCodeHeader); code != "" || json.Unmarshal(m.Data, &got) != nil || got.ID != "r1" {
		t.Fatalf("globex's current read: %s %s %s", code, m.Header.Get(micro.ErrorHeader), m.Data)
	}

	n.startRuns()
	var after runs.Run
	if err := ask(t, acme, "get", "acme", runs.Request{Run: "r1", Current: true}, &after); err != nil {
		t.Fatalf("acme's current read once the view runs again: %v", err)
	}
	if after.Version <= before.Version {
		t.Errorf("acme's run after its second message: version %d, want past %d", after.Version, before.Version)
	}
}
