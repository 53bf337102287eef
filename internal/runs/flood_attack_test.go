package runs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/runs"
)

// TestAttackMessageFloodStallsNoOtherTenant: acme's producer, through the
// real server with its own credential, sends 400 run messages at once
// (each published to the log and waited for until the runs view applied
// it), then globex's producer sends one. Victim: globex's message is
// applied and answered while acme's are still being answered; before,
// every tenant's messages shared one endpoint answered one at a time, and
// globex's came after all of acme's. Attacker: what waits past
// runs.LaneMax is refused (runs.CodeBusy) at once, every request is
// answered, and acme's next message is applied.
func TestAttackMessageFloodStallsNoOtherTenant(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	n := startNode(t, nil)
	const flood = 400
	acme := bustest.RoleJS(t, n.b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}).Conn()
	globex := bustest.RoleJS(t, n.b, auth.Identity{Role: auth.RoleProducer, Tenant: "globex"}).Conn()

	f := bustest.SendFlood(t, acme, runs.ServiceSubject("message", "acme"), flood, func(i int) []byte {
		b, _ := json.Marshal(runs.Request{Run: "r1", ID: fmt.Sprintf("m%d", i), Text: "flood", User: "u1"})
		return b
	})

	req, _ := json.Marshal(runs.Request{Run: "r1", ID: "m1", Text: "globex's", User: "u1"})
	m, err := globex.RequestWithContext(ctx, runs.ServiceSubject("message", "globex"), req)
	if err != nil {
		t.Fatalf("globex's message: %v", err)
	}
	// How many of acme's messages the log held when globex was answered:
	// the service had applied them all first when it answered one request
	// at a time.
	before := runMsgs(ctx, t, n.b, "acme")
	var reply runs.WriteReply
	if code := m.Header.Get(micro.ErrorCodeHeader); code != "" {
		t.Fatalf("globex's message refused: %s %s", code, m.Header.Get(micro.ErrorHeader))
	}
	if err := json.Unmarshal(m.Data, &reply); err != nil || !reply.Applied {
		t.Fatalf("globex's message: %v %+v", err, reply)
	}

	answered := f.Wait(ctx, t)
	t.Logf("acme's flood answered %v; globex answered with %d of acme's messages in the log", answered, before)
	if before >= answered[""] {
		t.Errorf("globex's message came after all %d of acme's: acme's flood stalled it", answered[""])
	}
	// How many are refused depends on how fast the service drains the lane
	// (none on a fast machine); that every one is answered, applied or
	// refused at once, does not. The bound itself: lanes/TestLanes.
	if answered[""]+answered[runs.CodeBusy] != flood {
		t.Errorf("acme's flood: answered %v, want messages applied and %s refusals only", answered, runs.CodeBusy)
	}
	if err := ask(t, acme, "message", "acme", runs.Request{Run: "r1", ID: "after", Text: "acme's", User: "u1"}, &reply); err != nil || !reply.Applied {
		t.Errorf("acme's message after its flood: %v %+v", err, reply)
	}
}

// runMsgs is how many run events of tenant the log holds.
func runMsgs(ctx context.Context, t *testing.T, b *bus.Bus, tenant string) int {
	t.Helper()
	st, err := b.JS.Stream(ctx, "TS_OUT")
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx, jetstream.WithSubjectFilter("ts.run."+tenant+".>"))
	if err != nil {
		t.Fatal(err)
	}
	return sumU(info.State.Subjects)
}

func sumU(m map[string]uint64) int {
	n := 0
	for _, c := range m {
		n += int(c)
	}
	return n
}
