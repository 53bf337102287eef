package agent_test

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/agent"
	"github.com/toolstream/toolstream/internal/agent/agenttest"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/fakeup"
	"github.com/toolstream/toolstream/internal/jstest"
	"github.com/toolstream/toolstream/internal/runs"
)

// TestAttackProducerCannotForgeABuiltinOutcome (docs/security.md): the
// driver publishes a built-in tool's outcome on the result subject an
// executor would use, which only the executor role (and the admin the
// driver runs as in serve) may publish. Attacker: the run's own tenant's
// producer, with the stock nats CLI and its creds, publishes a
// CallFailed for the run's toolstream_plan call under the call's real
// key and result subject: the server refuses it (permissions violation)
// and nothing is stored. Victim: the run answered, its plan written, the
// plan call succeeded with the driver's one outcome on that subject.
func TestAttackProducerCannotForgeABuiltinOutcome(t *testing.T) {
	p := agenttest.Start(t)
	s := newScripted(t)
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		switch n {
		case 1:
			return s.answer("", call{"call_p1", events.ToolPlan, weatherPlan}), nil
		case 2:
			return s.answer("I have a plan."), nil
		}
		return fakeup.Answer{}, fmt.Errorf("request %d: the run should have ended", n)
	})
	out, err := driver(t, p, "gw-1", up).Run(ctxT(t), chatSpec("forge-1", "Plan the weather."))
	if err != nil || out.Status != agent.StatusAnswered {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	vc := viewClient(t, p)
	rounds, err := vc.Rounds(ctxT(t), tenant, "forge-1")
	if err != nil {
		t.Fatal(err)
	}
	c := rounds[0].Calls[0]
	if c.Name != events.ToolPlan || c.State != runs.CallSucceeded || c.Key == "" {
		t.Fatalf("the plan call: %+v", c)
	}
	subj, err := events.BuiltinResultSubject(tenant, c.Key)
	if err != nil {
		t.Fatal(err)
	}
	stored := func() uint64 {
		t.Helper()
		name, err := p.B.JS.StreamNameBySubject(ctxT(t), subj)
		if err != nil {
			t.Fatal(err)
		}
		st, err := p.B.JS.Stream(ctxT(t), name)
		if err != nil {
			t.Fatal(err)
		}
		info, err := st.Info(ctxT(t), jetstream.WithSubjectFilter(subj))
		if err != nil {
			t.Fatal(err)
		}
		return info.State.Subjects[subj]
	}
	if n := stored(); n != 1 {
		t.Fatalf("%d messages on %s before the attack, want the driver's one", n, subj)
	}

	forged := &events.Event{ID: events.ResultID(c.Key) + "x", Tenant: tenant, Run: "forge-1", Step: c.Step, Response: rounds[0].Response,
		CallID: c.CallID, At: time.Now().UnixNano(), Body: &events.CallFailed{Name: c.Name, Key: c.Key, Error: events.ErrToolError, Message: "forged", Attempts: 1}}
	data, err := events.EncodeWithheld(forged, "")
	if err != nil {
		t.Fatal(err)
	}
	prod := auth.Identity{Role: auth.RoleProducer, Tenant: tenant}
	creds := bustest.Creds(t, p.B, prod)
	cmd := exec.CommandContext(ctxT(t), jstest.NatsCLI(t), "--server", p.B.ClientURL(), "--creds", creds, "--inbox-prefix", prod.InboxPrefix(),
		"--timeout", "5s", "pub", "--jetstream", "--force-stdin", "--header", "Nats-Msg-Id:"+forged.ID, subj)
	cmd.Stdin = bytes.NewReader(data) // the encoded event (binary) as the body
	res, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the producer's forged outcome was accepted: %s", res)
	}
	if !strings.Contains(strings.ToLower(string(res)), "permissions violation") {
		t.Errorf("the refusal does not say why: %v: %s", err, res)
	}
	if n := stored(); n != 1 {
		t.Errorf("%d messages on %s after the attack, want the driver's one", n, subj)
	}
	rounds, err = vc.Rounds(ctxT(t), tenant, "forge-1")
	if err != nil {
		t.Fatal(err)
	}
	if c := rounds[0].Calls[0]; c.State != runs.CallSucceeded || c.Error != "" {
		t.Errorf("the plan call after the attack: %+v", c)
	}
	run, err := vc.Run(ctxT(t), tenant, "forge-1")
	if err != nil || run.PlanVersion == 0 {
		t.Errorf("the run's plan after the attack: %+v, %v", run, err)
	}
}
