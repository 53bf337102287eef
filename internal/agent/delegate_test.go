package agent_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/agent"
	"github.com/toolstream/toolstream/internal/agent/agenttest"
	"github.com/toolstream/toolstream/internal/fakeup"
	"github.com/toolstream/toolstream/internal/runs"
)

// The parent delegates "the weather in San Francisco" to a sub-agent with
// weather only and two rounds: the child run (its id derived from the
// parent's and the call's) is offered weather and toolstream_plan, not
// the parent's other tools nor delegation, calls weather and answers; the
// delegate call's result is the child's answer and evidence (weather,
// succeeded, the digest of its result), the parent answers, and both
// runs' views name each other.
func TestDelegateCarvesTheBudgetAndReturnsEvidence(t *testing.T) {
	p := agenttest.Start(t)
	s := newScripted(t)
	var childN, parentN atomic.Int32
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		r, err := readReq(body)
		if err != nil {
			return fakeup.Answer{}, err
		}
		if r.isChild() {
			switch childN.Add(1) {
			case 1:
				if got := r.tools(); !slices.Equal(got, []string{events.ToolPlan, "weather"}) {
					return fakeup.Answer{}, fmt.Errorf("the child is offered %v", got)
				}
				if q := fmt.Sprint(r.Messages[1].Content); q != "the weather in San Francisco" {
					return fakeup.Answer{}, fmt.Errorf("the child's question %q", q)
				}
				return s.answer("", call{"call_cw", "weather", `{"location":"San Francisco"}`}), nil
			case 2:
				if r.ToolChoice != "none" {
					return fakeup.Answer{}, fmt.Errorf("the child's last round (of 2) offers tools: %v", r.ToolChoice)
				}
				return s.answer("San Francisco: 18 degrees."), nil
			}
			return fakeup.Answer{}, fmt.Errorf("the child asked a third time")
		}
		switch parentN.Add(1) {
		case 1:
			return s.answer("", call{"call_d1", events.ToolDelegate, `{"goal":"the weather in San Francisco","tools":["weather"],"budget":{"rounds":2}}`}), nil
		case 2:
			res, ok := r.result("call_d1")
			if !ok {
				return fakeup.Answer{}, fmt.Errorf("the parent's round 2 lacks the delegate result: %s", body)
			}
			var dr struct {
				Run      string
				Status   string
				Answer   string
				Evidence []agent.Evidence
			}
			if err := json.Unmarshal([]byte(res), &dr); err != nil {
				return fakeup.Answer{}, fmt.Errorf("the delegate result %q: %v", res, err)
			}
			if dr.Run != events.ChildRunID("deleg-1", "call_d1") || dr.Status != "answered" || dr.Answer != "San Francisco: 18 degrees." ||
				len(dr.Evidence) != 1 || dr.Evidence[0].Tool != "weather" || dr.Evidence[0].Outcome != "succeeded" || len(dr.Evidence[0].Digest) != 32 {
				return fakeup.Answer{}, fmt.Errorf("the delegate result %+v", dr)
			}
			return s.answer("The weather in San Francisco is 18 degrees."), nil
		}
		return fakeup.Answer{}, fmt.Errorf("the parent asked a third time")
	})
	out, err := driver(t, p, "gw-1", up).Run(ctxT(t), chatSpec("deleg-1", "What's the weather in San Francisco?"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusAnswered || out.Rounds != 2 {
		t.Fatalf("outcome %+v", out)
	}
	child := events.ChildRunID("deleg-1", "call_d1")
	vc := viewClient(t, p)
	parent, err := vc.Run(ctxT(t), tenant, "deleg-1")
	if err != nil {
		t.Fatal(err)
	}
	cr, err := vc.Run(ctxT(t), tenant, child)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(parent.Children, []string{child}) || cr.Parent != "deleg-1" || cr.User != "u1" {
		t.Errorf("the link: parent's children %v, child's parent %q (user %q)", parent.Children, cr.Parent, cr.User)
	}
	if n := p.Invoked["weather"].Load(); n != 1 {
		t.Errorf("weather ran %d times", n)
	}
}

// A parent asking for a tool it may not use (payroll: not the tenant's)
// is refused permission_denied, no child run exists, and the parent is
// told which tools it may give; a budget above what the parent has left
// is refused validation_error.
func TestDelegateCannotEscalate(t *testing.T) {
	p := agenttest.Start(t)
	s := newScripted(t)
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		r, err := readReq(body)
		if err != nil {
			return fakeup.Answer{}, err
		}
		if r.isChild() {
			return fakeup.Answer{}, fmt.Errorf("a child run started: %s", body)
		}
		switch n {
		case 1:
			return s.answer("", call{"call_d1", events.ToolDelegate, `{"goal":"pay everyone","tools":["weather","payroll"]}`}), nil
		case 2:
			res, _ := r.result("call_d1")
			if !strings.Contains(res, "error permission_denied") || !strings.Contains(res, "tool payroll is not one this run may use") || !strings.Contains(res, "refund, slow, weather") {
				return fakeup.Answer{}, fmt.Errorf("the refusal: %q", res)
			}
			return s.answer("", call{"call_d2", events.ToolDelegate, `{"goal":"weather","budget":{"rounds":50}}`}), nil
		case 3:
			res, _ := r.result("call_d2")
			if !strings.Contains(res, "error validation_error") || !strings.Contains(res, "budget.rounds 50 is more than the 5 rounds") {
				return fakeup.Answer{}, fmt.Errorf("the budget refusal: %q", res)
			}
			return s.answer("I cannot do that."), nil
		}
		return fakeup.Answer{}, fmt.Errorf("request %d: the run should have ended", n)
	})
	out, err := driver(t, p, "gw-1", up).Run(ctxT(t), chatSpec("deleg-2", "Pay everyone."))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusAnswered {
		t.Fatalf("outcome %+v", out)
	}
	vc := viewClient(t, p)
	for _, call := range []string{"call_d1", "call_d2"} {
		if _, err := vc.Run(ctxT(t), tenant, events.ChildRunID("deleg-2", call)); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("a child run of %s: %v, want not found", call, err)
		}
	}
	rounds, err := vc.Rounds(ctxT(t), tenant, "deleg-2")
	if err != nil {
		t.Fatal(err)
	}
	if c := rounds[0].Calls[0]; c.State != runs.CallFailed || c.Error != events.ErrPermissionDenied {
		t.Errorf("the refused call: %+v", c)
	}
}

// A child given two rounds that still calls tools in its last one is
// stopped (rounds_exhausted): the delegate call fails with what the
// child found, and the parent goes on.
func TestDelegateChildOverBudgetIsStopped(t *testing.T) {
	p := agenttest.Start(t)
	s := newScripted(t)
	var childN atomic.Int32
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		r, err := readReq(body)
		if err != nil {
			return fakeup.Answer{}, err
		}
		if r.isChild() {
			k := childN.Add(1)
			if k > 2 {
				return fakeup.Answer{}, fmt.Errorf("the child asked a third time")
			}
			// It ignores tool_choice none in its last round.
			return s.answer("", call{fmt.Sprintf("call_c%d", k), "weather", fmt.Sprintf(`{"location":"City %d"}`, k)}), nil
		}
		if _, ok := r.result("call_d1"); !ok {
			return s.answer("", call{"call_d1", events.ToolDelegate, `{"goal":"the weather everywhere","tools":["weather"],"budget":{"rounds":2}}`}), nil
		}
		res, _ := r.result("call_d1")
		if !strings.Contains(res, "error tool_error") || !strings.Contains(res, "rounds_exhausted") || !strings.Contains(res, `"tool":"weather"`) {
			return fakeup.Answer{}, fmt.Errorf("the delegate result: %q", res)
		}
		return s.answer("The sub-agent ran out of rounds."), nil
	})
	out, err := driver(t, p, "gw-1", up).Run(ctxT(t), chatSpec("deleg-3", "Weather everywhere?"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusAnswered {
		t.Fatalf("outcome %+v", out)
	}
	if n := childN.Load(); n != 2 {
		t.Errorf("the child asked %d times, want 2", n)
	}
}

// A child given weather whose model calls refund anyway (a tool its
// parent has, not given to it) is refused in the log: the assembler
// rejects the call permission_denied (the child's response names its
// tools), refund never runs, and the parent is told in the evidence.
func TestDelegateChildCannotCallAToolNotGiven(t *testing.T) {
	p := agenttest.Start(t)
	s := newScripted(t)
	var childN atomic.Int32
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		r, err := readReq(body)
		if err != nil {
			return fakeup.Answer{}, err
		}
		if r.isChild() {
			switch childN.Add(1) {
			case 1:
				return s.answer("", call{"call_cr", "refund", `{"order_id":"A1"}`}), nil
			case 2:
				if res, _ := r.result("call_cr"); !strings.Contains(res, "permission_denied") || !strings.Contains(res, "tool refund was not given to this run (it may call: weather)") {
					return fakeup.Answer{}, fmt.Errorf("the child is not told: %q", res)
				}
				return s.answer("I may not refund."), nil
			}
			return fakeup.Answer{}, fmt.Errorf("the child asked a third time")
		}
		if _, ok := r.result("call_d1"); !ok {
			return s.answer("", call{"call_d1", events.ToolDelegate, `{"goal":"refund order A1","tools":["weather"]}`}), nil
		}
		res, _ := r.result("call_d1")
		if !strings.Contains(res, `"tool":"refund"`) || !strings.Contains(res, `"outcome":"rejected"`) || !strings.Contains(res, `"error":"permission_denied"`) {
			return fakeup.Answer{}, fmt.Errorf("the delegate result: %q", res)
		}
		return s.answer("The sub-agent may not refund."), nil
	})
	out, err := driver(t, p, "gw-1", up).Run(ctxT(t), chatSpec("deleg-4", "Refund A1 through a sub-agent."))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusAnswered {
		t.Fatalf("outcome %+v", out)
	}
	if n := p.Invoked["refund"].Load(); n != 0 {
		t.Errorf("refund ran %d times", n)
	}
}

// A child given 100 tokens whose first round used 120 is stopped
// (tokens_exhausted) before it asks the model again; the delegate call
// fails with what it found, and the parent goes on.
func TestDelegateChildOverTokensIsStopped(t *testing.T) {
	p := agenttest.Start(t)
	s := newScripted(t)
	var childN atomic.Int32
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		r, err := readReq(body)
		if err != nil {
			return fakeup.Answer{}, err
		}
		if r.isChild() {
			if childN.Add(1) > 1 {
				return fakeup.Answer{}, fmt.Errorf("the child asked again past its tokens")
			}
			return s.answerUsage(80, 40, "", call{"call_c1", "weather", `{"location":"Lisbon"}`}), nil
		}
		if _, ok := r.result("call_d1"); !ok {
			return s.answer("", call{"call_d1", events.ToolDelegate, `{"goal":"the weather in Lisbon","tools":["weather"],"budget":{"tokens":100}}`}), nil
		}
		res, _ := r.result("call_d1")
		if !strings.Contains(res, "error tool_error") || !strings.Contains(res, "tokens_exhausted") || !strings.Contains(res, "120 tokens used of the 100") {
			return fakeup.Answer{}, fmt.Errorf("the delegate result: %q", res)
		}
		return s.answer("The sub-agent ran out of tokens."), nil
	})
	out, err := driver(t, p, "gw-1", up).Run(ctxT(t), chatSpec("deleg-5", "Weather in Lisbon?"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusAnswered {
		t.Fatalf("outcome %+v", out)
	}
	if n := childN.Load(); n != 1 {
		t.Errorf("the child asked %d times, want 1", n)
	}
}

// A child whose call waits for a person's approval makes its parent wait
// too: the parent's drive ends waiting_approval naming the child's call
// and key, nothing ran; once a person approved it, the client's next
// request of the parent resumes the child (its first round is not asked
// again), the refund runs once, and the parent answers with the child's
// answer.
func TestDelegateChildWaitingForApprovalMakesTheParentWait(t *testing.T) {
	p := agenttest.Start(t)
	s := newScripted(t)
	var childN atomic.Int32
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		r, err := readReq(body)
		if err != nil {
			return fakeup.Answer{}, err
		}
		if r.isChild() {
			switch childN.Add(1) {
			case 1:
				return s.answer("", call{"call_cr", "refund", `{"order_id":"A1"}`}), nil
			case 2:
				if res, _ := r.result("call_cr"); !strings.Contains(res, "refunded") {
					return fakeup.Answer{}, fmt.Errorf("the child's round 2 lacks the refund: %q", res)
				}
				return s.answer("Order A1 was refunded."), nil
			}
			return fakeup.Answer{}, fmt.Errorf("the child asked a third time")
		}
		if _, ok := r.result("call_d1"); !ok {
			return s.answer("", call{"call_d1", events.ToolDelegate, `{"goal":"refund order A1","tools":["refund"]}`}), nil
		}
		if res, _ := r.result("call_d1"); !strings.Contains(res, `"answer":"Order A1 was refunded."`) {
			return fakeup.Answer{}, fmt.Errorf("the delegate result: %q", res)
		}
		return s.answer("Done: A1 refunded."), nil
	})
	d := driver(t, p, "gw-1", up)
	spec := chatSpec("deleg-6", "Refund A1 through a sub-agent.")
	out, err := d.Run(ctxT(t), spec)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusWaitingApproval || len(out.Waiting) != 1 || out.Waiting[0].Name != "refund" || out.Waiting[0].Key == "" {
		t.Fatalf("outcome %+v, want the parent waiting for the child's refund", out)
	}
	if n := p.Invoked["refund"].Load(); n != 0 {
		t.Fatalf("refund ran %d times before approval", n)
	}
	if err := executor.Approve(ctxT(t), p.B.JS, tenant, out.Waiting[0].Key, "ops@acme", "checked"); err != nil {
		t.Fatal(err)
	}
	out, err = d.Run(ctxT(t), spec)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusAnswered || out.Text != "Done: A1 refunded." {
		t.Fatalf("after approval: %+v", out)
	}
	if n := p.Invoked["refund"].Load(); n != 1 {
		t.Errorf("refund ran %d times", n)
	}
	if n := childN.Load(); n != 2 {
		t.Errorf("the child asked %d times, want 2", n)
	}
}

// A run whose id is the one a delegate call's child would get, made
// beforehand by a client (the parent's own user, or another user of the
// tenant), is not taken for the child: its stored spec (every tool, no
// budget, depth 0) would escalate what the parent carved. The delegate call
// fails permission_denied, the squatting run is neither driven nor read
// (its turns stay as they were), and the parent answers.
func TestDelegateChildIDTakenIsRefused(t *testing.T) {
	p := agenttest.Start(t)
	s := newScripted(t)
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		r, err := readReq(body)
		if err != nil {
			return fakeup.Answer{}, err
		}
		if r.isChild() {
			return fakeup.Answer{}, fmt.Errorf("the squatting run was driven as a child: %s", body)
		}
		if strings.Contains(string(body), "squat here") {
			return s.answer("squatted"), nil
		}
		if res, ok := r.result("call_d1"); ok {
			if !strings.Contains(res, "error permission_denied") || !strings.Contains(res, "is already another run's") {
				return fakeup.Answer{}, fmt.Errorf("the refusal: %q", res)
			}
			return s.answer("I could not delegate."), nil
		}
		return s.answer("", call{"call_d1", events.ToolDelegate, `{"goal":"the weather","tools":["weather"],"budget":{"rounds":2}}`}), nil
	})
	d := driver(t, p, "gw-1", up)
	vc := viewClient(t, p)
	for _, user := range []string{"u1", "u2"} {
		parent := "deleg-sq-" + user
		child := events.ChildRunID(parent, "call_d1")
		sq := chatSpec(child, "squat here")
		sq.User = user
		if out, err := d.Run(ctxT(t), sq); err != nil || out.Status != agent.StatusAnswered {
			t.Fatalf("%s: the squatting run: %+v %v", user, out, err)
		}
		before, err := vc.Run(ctxT(t), tenant, child)
		if err != nil {
			t.Fatal(err)
		}
		out, err := d.Run(ctxT(t), chatSpec(parent, "What's the weather?"))
		if err != nil {
			t.Fatalf("%s: the parent: %v", user, err)
		}
		if out.Status != agent.StatusAnswered {
			t.Fatalf("%s: the parent's outcome %+v", user, out)
		}
		after, err := vc.Run(ctxT(t), tenant, child)
		if err != nil {
			t.Fatal(err)
		}
		if after.Turns != before.Turns || after.Parent != "" || after.User != user {
			t.Errorf("%s: the squatting run changed: turns %d -> %d, parent %q, user %q", user, before.Turns, after.Turns, after.Parent, after.User)
		}
		rounds, err := vc.Rounds(ctxT(t), tenant, parent)
		if err != nil {
			t.Fatal(err)
		}
		if c := rounds[0].Calls[0]; c.State != runs.CallFailed || c.Error != events.ErrPermissionDenied {
			t.Errorf("%s: the delegate call: %+v", user, c)
		}
	}
}

// TestTwoDelegatesShareOneBudget: the second delegate call of a turn is
// carved from what the parent has left after the first sub-agent's
// rounds, not from the whole remainder again. The parent has 4 rounds;
// its first child spends 2 of them, so a second child asking for 2 is
// refused (validation_error) and never starts.
func TestTwoDelegatesShareOneBudget(t *testing.T) {
	p := agenttest.Start(t)
	s := newScripted(t)
	var childN, parentN atomic.Int32
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		r, err := readReq(body)
		if err != nil {
			return fakeup.Answer{}, err
		}
		if r.isChild() {
			switch childN.Add(1) {
			case 1:
				return s.answer("", call{"call_cw", "weather", `{"location":"Oslo"}`}), nil
			case 2:
				return s.answer("Oslo: 3 degrees."), nil
			}
			return fakeup.Answer{}, fmt.Errorf("a second sub-agent was started")
		}
		switch parentN.Add(1) {
		case 1:
			return s.answer("",
				call{"call_d1", events.ToolDelegate, `{"goal":"the weather in Oslo","tools":["weather"],"budget":{"rounds":2}}`},
				call{"call_d2", events.ToolDelegate, `{"goal":"the weather in Bergen","tools":["weather"],"budget":{"rounds":2}}`}), nil
		case 2:
			res, ok := r.result("call_d2")
			if !ok || !strings.Contains(res, "left to give") && !strings.Contains(res, "no rounds left") {
				return fakeup.Answer{}, fmt.Errorf("the second delegate call's result %q, want its budget refused", res)
			}
			return s.answer("Oslo has 3 degrees; Bergen was not looked up."), nil
		}
		return fakeup.Answer{}, fmt.Errorf("the parent asked a third time")
	})
	spec := chatSpec("deleg-share", "The weather in Oslo and Bergen?")
	spec.RoundsMax = 4
	out, err := driver(t, p, "gw-1", up).Run(ctxT(t), spec)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusAnswered {
		t.Fatalf("outcome %+v", out)
	}
	if n := childN.Load(); n != 2 {
		t.Errorf("the sub-agents asked %d times, want the first child's 2", n)
	}
	if n := p.Invoked["weather"].Load(); n != 1 {
		t.Errorf("weather ran %d times", n)
	}
}
