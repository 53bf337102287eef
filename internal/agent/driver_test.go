package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/agent"
	"github.com/toolstream/toolstream/internal/agent/agenttest"
	"github.com/toolstream/toolstream/internal/fakeup"
	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/verifier"
)

// chatMessages reads a Chat request's messages.
func chatMessages(body []byte) ([]map[string]any, error) {
	var req struct {
		Messages []map[string]any `json:"messages"`
		Tools    []any            `json:"tools"`
		Stream   bool             `json:"stream"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	if !req.Stream {
		return nil, fmt.Errorf("the request does not stream")
	}
	return req.Messages, nil
}

// toolResult finds the role:tool message answering callID.
func toolResult(msgs []map[string]any, callID string) (string, bool) {
	for _, m := range msgs {
		if m["role"] == "tool" && m["tool_call_id"] == callID {
			s, _ := m["content"].(string)
			return s, true
		}
	}
	return "", false
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// A run of two rounds: the model calls weather, the tool runs once, the
// second request carries its result under the call's id, and the model's
// answer comes back verified.
func TestTwoRoundsWithAToolInBetween(t *testing.T) {
	p := agenttest.Start(t)
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		msgs, err := chatMessages(body)
		if err != nil {
			return fakeup.Answer{}, err
		}
		switch n {
		case 1:
			if !strings.Contains(string(body), `"name":"weather"`) {
				return fakeup.Answer{}, fmt.Errorf("round 1 does not offer the weather tool: %s", body)
			}
			return fakeup.Answer{File: stream("chat-weather-call.jsonl")}, nil
		case 2:
			res, ok := toolResult(msgs, "call_w1")
			if !ok || !strings.Contains(res, `"temperature_c":18`) {
				return fakeup.Answer{}, fmt.Errorf("round 2 lacks the result of call_w1: %s", body)
			}
			return fakeup.Answer{File: stream("chat-weather-answer.jsonl")}, nil
		}
		return fakeup.Answer{}, fmt.Errorf("request %d: the run should have ended", n)
	})
	d := driver(t, p, "gw-1", up)
	out, err := d.Run(ctxT(t), chatSpec("trip-1", "What's the weather in San Francisco?"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusAnswered || out.Text != "The weather in San Francisco is 18 degrees." || out.Rounds != 2 {
		t.Fatalf("outcome %+v", out)
	}
	if out.Verdict == nil {
		t.Error("no verdict on the answer")
	}
	if n := p.Invoked["weather"].Load(); n != 1 {
		t.Errorf("weather ran %d times", n)
	}
	if n := len(up.Requests()); n != 2 {
		t.Errorf("%d requests upstream, want 2", n)
	}
	// Asked the same again (a retry), the run is answered: the same
	// answer, no model call. (A new question would continue the run:
	// gateway's TestRunModeNewQuestionContinuesTheRun.)
	again, err := d.Run(ctxT(t), chatSpec("trip-1", "What's the weather in San Francisco?"))
	if err != nil || again.Status != agent.StatusAnswered || again.Text != out.Text {
		t.Errorf("again: %+v %v", again, err)
	}
	if n := len(up.Requests()); n != 2 {
		t.Errorf("%d requests upstream after asking again, want 2", n)
	}
}

// A call whose arguments break the schema is never run: the next request
// tells the model what to fix, under the call's id, and the model's
// corrected call runs.
func TestSchemaRejectionIsFedBackAndCorrected(t *testing.T) {
	p := agenttest.Start(t)
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		msgs, err := chatMessages(body)
		if err != nil {
			return fakeup.Answer{}, err
		}
		switch n {
		case 1:
			return fakeup.Answer{File: stream("chat-weather-bad-args.jsonl")}, nil
		case 2:
			res, ok := toolResult(msgs, "call_b1")
			if !ok || !strings.Contains(res, "schema_violation") || !strings.Contains(res, "location") {
				return fakeup.Answer{}, fmt.Errorf("round 2 does not tell the model what to fix: %s", body)
			}
			return fakeup.Answer{File: stream("chat-weather-call.jsonl")}, nil
		case 3:
			if _, ok := toolResult(msgs, "call_w1"); !ok {
				return fakeup.Answer{}, fmt.Errorf("round 3 lacks the corrected call's result: %s", body)
			}
			return fakeup.Answer{File: stream("chat-weather-answer.jsonl")}, nil
		}
		return fakeup.Answer{}, fmt.Errorf("request %d: the run should have ended", n)
	})
	out, err := driver(t, p, "gw-1", up).Run(ctxT(t), chatSpec("trip-2", "Weather in SF?"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusAnswered || out.Rounds != 3 {
		t.Fatalf("outcome %+v", out)
	}
	if n := p.Invoked["weather"].Load(); n != 1 {
		t.Errorf("weather ran %d times, want once (the rejected call never runs)", n)
	}
}

// A call that waits for approval ends the drive with the run waiting and
// the call's key; once approved, the client's next request resumes the
// run, and the tool runs once.
func TestApprovalEndsTheDriveAndTheClientResumes(t *testing.T) {
	p := agenttest.Start(t)
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		msgs, err := chatMessages(body)
		if err != nil {
			return fakeup.Answer{}, err
		}
		switch n {
		case 1:
			return fakeup.Answer{File: stream("chat-refund-call.jsonl")}, nil
		case 2:
			if res, ok := toolResult(msgs, "call_r1"); !ok || !strings.Contains(res, "refunded") {
				return fakeup.Answer{}, fmt.Errorf("round 2 lacks the refund's result: %s", body)
			}
			return fakeup.Answer{File: stream("chat-refund-answer.jsonl")}, nil
		}
		return fakeup.Answer{}, fmt.Errorf("request %d: the run should have ended", n)
	})
	d := driver(t, p, "gw-1", up)
	spec := chatSpec("refund-1", "Refund order A1")
	out, err := d.Run(ctxT(t), spec)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusWaitingApproval || len(out.Waiting) != 1 || out.Waiting[0].Key == "" || out.Waiting[0].Name != "refund" {
		t.Fatalf("outcome %+v", out)
	}
	// Asked again before anyone decided: still waiting, no model call.
	if again, err := d.Run(ctxT(t), spec); err != nil || again.Status != agent.StatusWaitingApproval {
		t.Fatalf("before approval: %+v %v", again, err)
	}
	if p.Invoked["refund"].Load() != 0 || len(up.Requests()) != 1 {
		t.Fatalf("before approval: refund ran %d times, %d requests", p.Invoked["refund"].Load(), len(up.Requests()))
	}
	if err := executor.Approve(ctxT(t), p.B.JS, tenant, out.Waiting[0].Key, "ops@acme", "checked"); err != nil {
		t.Fatal(err)
	}
	// The client comes back at once: the decision is in the log, whether
	// or not the runs view has it yet.
	out, err = d.Run(ctxT(t), spec)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusAnswered || out.Text != "Order A1 was refunded." {
		t.Fatalf("after approval: %+v", out)
	}
	if n := p.Invoked["refund"].Load(); n != 1 {
		t.Errorf("refund ran %d times", n)
	}
}

// Toolstream-On-Disconnect: cancel. The client goes away while a tool
// runs: the drive ends cancelled with its reason, the tool that runs
// finishes, and no further round is asked, now or when the run is asked
// again.
func TestCancelOnDisconnectStartsNoFurtherRound(t *testing.T) {
	p := agenttest.Start(t)
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		if n == 1 {
			return fakeup.Answer{File: stream("chat-slow-call.jsonl")}, nil
		}
		return fakeup.Answer{}, fmt.Errorf("request %d after the run was cancelled", n)
	})
	d := driver(t, p, "gw-1", up)
	spec := chatSpec("cancel-1", "Do the slow thing")
	spec.OnDisconnect = "cancel"
	client, hangUp := context.WithCancel(ctxT(t))
	done := make(chan *agent.Outcome, 1)
	go func() {
		out, err := d.Run(client, spec)
		if err != nil {
			t.Error(err)
		}
		done <- out
	}()
	<-p.SlowIn // the tool runs
	hangUp()
	out := <-done
	if out == nil || out.Status != agent.StatusCancelled || out.Reason != agent.ReasonClientDisconnected {
		t.Fatalf("outcome %+v", out)
	}
	close(p.Slow)
	waitRun(t, p, "cancel-1", func(r runs.Run) bool { return r.Settled == 1 })
	again, err := d.Run(ctxT(t), spec)
	if err != nil || again.Status != agent.StatusCancelled || again.Reason != agent.ReasonClientDisconnected {
		t.Fatalf("asked again: %+v %v", again, err)
	}
	if n := len(up.Requests()); n != 1 {
		t.Errorf("%d requests upstream, want 1", n)
	}
	if n := p.Invoked["slow"].Load(); n != 1 {
		t.Errorf("slow ran %d times", n)
	}
}

// Without cancel, the run does not depend on its client: a second request
// of the run (the client reconnecting) while a tool runs joins the drive
// and gets the one answer; the tool ran once and the model was asked
// twice.
func TestAReconnectJoinsTheDrive(t *testing.T) {
	p := agenttest.Start(t)
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		switch n {
		case 1:
			return fakeup.Answer{File: stream("chat-slow-call.jsonl")}, nil
		case 2:
			return fakeup.Answer{File: stream("chat-weather-answer.jsonl")}, nil
		}
		return fakeup.Answer{}, fmt.Errorf("request %d: the run should have ended", n)
	})
	d := driver(t, p, "gw-1", up)
	spec := chatSpec("detached-1", "Do the slow thing")
	first := make(chan *agent.Outcome, 1)
	go func() {
		out, _ := d.Run(context.WithoutCancel(ctxT(t)), spec)
		first <- out
	}()
	<-p.SlowIn
	second := make(chan *agent.Outcome, 1)
	go func() {
		out, _ := d.Run(ctxT(t), spec)
		second <- out
	}()
	close(p.Slow)
	a, b := <-first, <-second
	if a == nil || b == nil || a.Status != agent.StatusAnswered || b.Status != agent.StatusAnswered || a.Text != b.Text {
		t.Fatalf("outcomes %+v / %+v", a, b)
	}
	if n := p.Invoked["slow"].Load(); n != 1 {
		t.Errorf("slow ran %d times", n)
	}
	if n := len(up.Requests()); n != 2 {
		t.Errorf("%d requests upstream, want 2", n)
	}
}

// waitRun polls the runs service until the run satisfies ok.
func waitRun(t *testing.T, p *agenttest.Pipeline, run string, ok func(runs.Run) bool) {
	t.Helper()
	ctx := ctxT(t)
	for {
		var r runs.Run
		data, _ := json.Marshal(runs.Request{Run: run})
		m, err := p.B.Conn.RequestWithContext(ctx, runs.ServiceSubject("get", tenant), data)
		if err != nil {
			t.Fatal(err)
		}
		if json.Unmarshal(m.Data, &r) == nil && ok(r) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("run %s: %v", run, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// The tenant's policy applies before the answer leaves: a claim the tool's
// result contradicts (25 °C where the tool said 18) is replaced under
// redact and withholds the whole answer under block; the verdicts come
// with it either way.
func TestThePolicyAppliesBeforeTheAnswerLeaves(t *testing.T) {
	for _, c := range []struct {
		policy  verifier.Policy
		text    string
		blocked bool
	}{
		{verifier.PolicyAnnotate, "The temperature in San Francisco is 25 °C. Enjoy your day.", false},
		{verifier.PolicyRedact, "", false}, // checked below: the claims are replaced by the marker
		{verifier.PolicyBlock, "", true},
	} {
		t.Run(string(c.policy), func(t *testing.T) {
			p := agenttest.StartWith(t, agenttest.Options{Policy: c.policy})
			up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
				if n == 1 {
					return fakeup.Answer{File: stream("chat-weather-call.jsonl")}, nil
				}
				return fakeup.Answer{File: stream("chat-weather-wrong-answer.jsonl")}, nil
			})
			out, err := driver(t, p, "gw-1", up).Run(ctxT(t), chatSpec("policy-1", "Weather in SF?"))
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != agent.StatusAnswered || out.Verdict == nil || out.Verdict.Policy != string(c.policy) || out.Blocked != c.blocked {
				t.Fatalf("outcome %+v verdict %+v", out, out.Verdict)
			}
			bad := 0
			for _, cl := range out.Verdict.Claims {
				if cl.Verdict == events.VerdictContradicted || cl.Verdict == events.VerdictUnsupported {
					bad++
				}
			}
			if bad == 0 {
				t.Fatalf("no claim flagged: %+v", out.Verdict.Claims)
			}
			switch c.policy {
			case verifier.PolicyRedact:
				if strings.Contains(out.Text, "25") || !strings.Contains(out.Text, verifier.RedactMarker) {
					t.Errorf("redacted answer %q", out.Text)
				}
			default:
				if out.Text != c.text {
					t.Errorf("answer %q, want %q", out.Text, c.text)
				}
			}
		})
	}
}

// Three rejected calls in a row degrade the run (runs' default
// DegradeAfter): the next request keeps the tools declared but tells the
// model to answer without them (tool_choice none), and its answer ends
// the run.
func TestADegradedRunIsAskedToAnswerWithoutTools(t *testing.T) {
	p := agenttest.Start(t)
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		var req struct {
			ToolChoice any   `json:"tool_choice"`
			Tools      []any `json:"tools"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			return fakeup.Answer{}, err
		}
		switch {
		case n <= 3:
			if req.ToolChoice != nil {
				return fakeup.Answer{}, fmt.Errorf("round %d restricted tools: %s", n, body)
			}
			return fakeup.Answer{File: stream("chat-weather-bad-args.jsonl")}, nil
		case n == 4:
			if req.ToolChoice != "none" || len(req.Tools) == 0 {
				return fakeup.Answer{}, fmt.Errorf("the degraded run's round does not ask for an answer without tools: %s", body)
			}
			return fakeup.Answer{File: stream("chat-weather-answer.jsonl")}, nil
		}
		return fakeup.Answer{}, fmt.Errorf("request %d: the run should have ended", n)
	})
	out, err := driver(t, p, "gw-1", up).Run(ctxT(t), chatSpec("degrade-1", "Weather in SF?"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusAnswered || !out.Degraded || out.Rounds != 4 {
		data, _ := json.Marshal(runs.Request{Run: "degrade-1"})
		m, _ := p.B.Conn.Request(runs.ServiceSubject("get", tenant), data, 10*time.Second)
		t.Fatalf("outcome %+v; run %s", out, m.Data)
	}
	if n := p.Invoked["weather"].Load(); n != 0 {
		t.Errorf("weather ran %d times; every call was rejected", n)
	}
}
