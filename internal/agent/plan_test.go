package agent_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/agent"
	"github.com/toolstream/toolstream/internal/agent/agenttest"
	"github.com/toolstream/toolstream/internal/fakeup"
	"github.com/toolstream/toolstream/internal/runs"
)

// scripted writes the model's answers as Chat streams, one file each.
type scripted struct {
	t   *testing.T
	dir string
	mu  sync.Mutex
	n   int
}

func newScripted(t *testing.T) *scripted { return &scripted{t: t, dir: t.TempDir()} }

type call struct{ id, name, args string }

// answer is a stream of one response: text, or calls.
func (s *scripted) answer(text string, calls ...call) fakeup.Answer {
	return s.answerUsage(0, 0, text, calls...)
}

// answerUsage is answer whose last chunk reports usage (in, out tokens)
// when in+out > 0.
func (s *scripted) answerUsage(in, out int, text string, calls ...call) fakeup.Answer {
	s.mu.Lock()
	s.n++
	id := fmt.Sprintf("chatcmpl-s%d", s.n)
	s.mu.Unlock()
	chunk := func(delta any, finish any) string {
		b, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1764664568, "model": "fake-1",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		return string(b) + "\n"
	}
	var b strings.Builder
	b.WriteString(chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	for i, c := range calls {
		b.WriteString(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.id, "type": "function",
			"function": map[string]any{"name": c.name, "arguments": c.args}}}}, nil))
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	} else {
		b.WriteString(chunk(map[string]any{"content": text}, nil))
	}
	last := chunk(map[string]any{}, finish)
	if in+out > 0 {
		var m map[string]any
		json.Unmarshal([]byte(last), &m)
		m["usage"] = map[string]int{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out}
		bb, _ := json.Marshal(m)
		last = string(bb) + "\n"
	}
	b.WriteString(last)
	f := filepath.Join(s.dir, id+".jsonl")
	if err := os.WriteFile(f, []byte(b.String()), 0o600); err != nil {
		s.t.Fatal(err)
	}
	return fakeup.Answer{File: f}
}

// chatReq is what a round asked.
type chatReq struct {
	Messages []struct {
		Role       string `json:"role"`
		Content    any    `json:"content"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	ToolChoice any `json:"tool_choice"`
}

func readReq(body []byte) (chatReq, error) {
	var r chatReq
	err := json.Unmarshal(body, &r)
	return r, err
}

func (r chatReq) tools() []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Function.Name)
	}
	slices.Sort(out)
	return out
}

// system is the text of the round's system messages.
func (r chatReq) system() string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == "system" {
			out = append(out, fmt.Sprint(m.Content))
		}
	}
	return strings.Join(out, "\n---\n")
}

// result is the tool result answering callID.
func (r chatReq) result(callID string) (string, bool) {
	for _, m := range r.Messages {
		if m.Role == "tool" && m.ToolCallID == callID {
			return fmt.Sprint(m.Content), true
		}
	}
	return "", false
}

// isChild reports whether the request is a sub-agent's.
func (r chatReq) isChild() bool {
	return len(r.Messages) > 0 && r.Messages[0].Role == "system" && strings.HasPrefix(fmt.Sprint(r.Messages[0].Content), "You are a sub-agent")
}

func viewClient(t *testing.T, p *agenttest.Pipeline) *client.Client {
	c, err := client.Connect(t.Context(), client.WithConn(p.B.Conn), client.WithKeys(p.B.Keys))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const weatherPlan = `{"goal":"the weather in San Francisco","steps":[{"id":"s1","goal":"read the weather","accept":{"tool":"weather","pointer":"/temperature_c"}}]}`

// The model is the planner: the first round offers toolstream_plan beside
// the registry's tools, the model's plan call becomes a versioned plan
// write (no executor runs it), its result says the version, the next
// rounds are given the plan, and the step is accepted by the weather
// result, which the round after sees.
func TestPlanWrittenAndStepsAccepted(t *testing.T) {
	p := agenttest.Start(t)
	s := newScripted(t)
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		r, err := readReq(body)
		if err != nil {
			return fakeup.Answer{}, err
		}
		switch n {
		case 1:
			if got := r.tools(); !slices.Contains(got, events.ToolPlan) || !slices.Contains(got, events.ToolDelegate) || !slices.Contains(got, "weather") {
				return fakeup.Answer{}, fmt.Errorf("round 1 offers %v", got)
			}
			if strings.Contains(r.system(), "Plan of this run") {
				return fakeup.Answer{}, fmt.Errorf("round 1 has a plan note before any plan: %s", r.system())
			}
			return s.answer("", call{"call_p1", events.ToolPlan, weatherPlan}), nil
		case 2:
			res, ok := r.result("call_p1")
			if !ok || !strings.Contains(res, `"written":true`) || !strings.Contains(res, `"plan_version"`) {
				return fakeup.Answer{}, fmt.Errorf("round 2 lacks the plan call's result: %s", body)
			}
			if sys := r.system(); !strings.Contains(sys, "Goal: the weather in San Francisco") || !strings.Contains(sys, "step s1 [open]: read the weather") {
				return fakeup.Answer{}, fmt.Errorf("round 2 is not given the plan: %q", sys)
			}
			return s.answer("", call{"call_w1", "weather", `{"location":"San Francisco"}`}), nil
		case 3:
			if sys := r.system(); !strings.Contains(sys, "step s1 [accepted by evidence]") || strings.Contains(sys, "Replan needed") {
				return fakeup.Answer{}, fmt.Errorf("round 3 does not see s1 accepted: %q", sys)
			}
			return s.answer("The weather in San Francisco is 18 degrees."), nil
		}
		return fakeup.Answer{}, fmt.Errorf("request %d: the run should have ended", n)
	})
	d := driver(t, p, "gw-1", up)
	out, err := d.Run(ctxT(t), chatSpec("plan-1", "What's the weather in San Francisco?"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusAnswered || out.Rounds != 3 {
		t.Fatalf("outcome %+v", out)
	}
	vc := viewClient(t, p)
	run, err := vc.Run(ctxT(t), tenant, "plan-1")
	if err != nil {
		t.Fatal(err)
	}
	var pl runs.Plan
	if err := json.Unmarshal(run.Plan, &pl); err != nil || pl.Goal != "the weather in San Francisco" || run.PlanVersion == 0 {
		t.Errorf("the run's plan: %s (version %d) %v", run.Plan, run.PlanVersion, err)
	}
	if !slices.Equal(run.Accepted, []string{"s1"}) {
		t.Errorf("accepted steps %v, want [s1]", run.Accepted)
	}
	rounds, err := vc.Rounds(ctxT(t), tenant, "plan-1")
	if err != nil {
		t.Fatal(err)
	}
	if c := rounds[0].Calls[0]; c.Name != events.ToolPlan || c.State != runs.CallSucceeded {
		t.Errorf("the plan call: %+v", c)
	}
	if n := p.Invoked["weather"].Load(); n != 1 {
		t.Errorf("weather ran %d times", n)
	}
}

// A plan whose step assumed 25 degrees meets a weather result of 18: the
// round raises a contradiction, the next request tells the model why
// (the trigger, the step and the value returned) and asks for a revised
// plan; the revised plan is written and the round after it is not asked
// to replan again. An invalid plan is refused with what is wrong.
func TestReplanTriggerIsActedOn(t *testing.T) {
	p := agenttest.Start(t)
	s := newScripted(t)
	assumed := `{"goal":"weather","steps":[{"id":"s1","goal":"it is warm","accept":{"tool":"weather","pointer":"/temperature_c","equals":25}}]}`
	revised := `{"goal":"weather","steps":[{"id":"s1","goal":"it is mild","accept":{"tool":"weather","pointer":"/temperature_c","equals":18}}],"blockers":["not as warm as assumed"]}`
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		r, err := readReq(body)
		if err != nil {
			return fakeup.Answer{}, err
		}
		switch n {
		case 1:
			return s.answer("", call{"call_bad", events.ToolPlan, `{"goal":"x","steps":[{"id":"a","depends_on":["b"]}]}`}), nil
		case 2:
			if res, _ := r.result("call_bad"); !strings.Contains(res, "invalid_plan") || !strings.Contains(res, `depends on "b"`) {
				return fakeup.Answer{}, fmt.Errorf("the invalid plan's result: %q", res)
			}
			return s.answer("", call{"call_p1", events.ToolPlan, assumed}), nil
		case 3:
			return s.answer("", call{"call_w1", "weather", `{"location":"San Francisco"}`}), nil
		case 4:
			sys := r.system()
			if !strings.Contains(sys, "Replan needed (1 of 3") || !strings.Contains(sys, "contradiction: step s1 assumed weather/temperature_c = 25; call_w1 returned 18") ||
				!strings.Contains(sys, "Call toolstream_plan with a revised plan") {
				return fakeup.Answer{}, fmt.Errorf("round 4 is not told to replan: %q", sys)
			}
			return s.answer("", call{"call_p2", events.ToolPlan, revised}), nil
		case 5:
			sys := r.system()
			if strings.Contains(sys, "Replan needed") || !strings.Contains(sys, "it is mild") || !strings.Contains(sys, "Blockers: not as warm as assumed") {
				return fakeup.Answer{}, fmt.Errorf("round 5 is not given the revised plan: %q", sys)
			}
			return s.answer("It is 18 degrees, milder than planned."), nil
		}
		return fakeup.Answer{}, fmt.Errorf("request %d: the run should have ended", n)
	})
	out, err := driver(t, p, "gw-1", up).Run(ctxT(t), chatSpec("replan-1", "Is it warm in San Francisco?"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusAnswered || out.Rounds != 5 {
		t.Fatalf("outcome %+v", out)
	}
	run, err := viewClient(t, p).Run(ctxT(t), tenant, "replan-1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(run.Plan), "it is mild") {
		t.Errorf("the run's plan is not the revised one: %s", run.Plan)
	}
}

// A plan with budget.replans 1: the first contradiction is acted on, the
// second ends the run with replans_exhausted, and the model is not asked
// again.
func TestReplanBudgetExhausted(t *testing.T) {
	p := agenttest.Start(t)
	s := newScripted(t)
	assumed := `{"goal":"weather","steps":[{"id":"s1","goal":"it is warm","accept":{"tool":"weather","pointer":"/temperature_c","equals":25}}],"budget":{"replans":1}}`
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		switch n {
		case 1:
			return s.answer("", call{"call_p1", events.ToolPlan, assumed}), nil
		case 2:
			return s.answer("", call{"call_w1", "weather", `{"location":"San Francisco"}`}), nil
		case 3:
			// Told to replan, the model calls weather again (Oakland: new
			// evidence, the same contradiction).
			return s.answer("", call{"call_w2", "weather", `{"location":"Oakland"}`}), nil
		}
		return fakeup.Answer{}, fmt.Errorf("request %d: the run should have ended", n)
	})
	out, err := driver(t, p, "gw-1", up).Run(ctxT(t), chatSpec("replan-2", "Is it warm?"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusFailed || out.Reason != agent.ReasonReplansExhausted || !strings.Contains(out.Detail, "budget of 1 replans") {
		t.Fatalf("outcome %+v, want failed %s", out, agent.ReasonReplansExhausted)
	}
	if n := len(up.Requests()); n != 3 {
		t.Errorf("%d requests upstream, want 3", n)
	}
}

// Another writer moves the run between the plan call's read and its
// write: the write is refused stale_version and written again on the
// version the run is at, so the model's plan is the run's and the call
// succeeded.
func TestStalePlanWriteIsWrittenAgain(t *testing.T) {
	p := agenttest.Start(t)
	s := newScripted(t)
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		r, err := readReq(body)
		if err != nil {
			return fakeup.Answer{}, err
		}
		switch n {
		case 1:
			return s.answer("", call{"call_p1", events.ToolPlan, weatherPlan}), nil
		case 2:
			if res, _ := r.result("call_p1"); !strings.Contains(res, `"written":true`) {
				return fakeup.Answer{}, fmt.Errorf("the plan call's result: %q", res)
			}
			return s.answer("Planned."), nil
		}
		return fakeup.Answer{}, fmt.Errorf("request %d: the run should have ended", n)
	})
	d := driver(t, p, "gw-1", up)
	vc := viewClient(t, p)
	var moved atomic.Int32
	agent.SetBeforePlanWrite(d, func() {
		if moved.Add(1) > 1 {
			return
		}
		run, err := vc.Run(t.Context(), tenant, "stale-1")
		if err != nil {
			t.Error(err)
			return
		}
		if _, err := vc.WritePlan(t.Context(), tenant, "stale-1", json.RawMessage(`{"goal":"another writer's"}`), run.Version, "other"); err != nil {
			t.Errorf("the other writer: %v", err)
		}
	})
	out, err := d.Run(ctxT(t), chatSpec("stale-1", "Plan the weather."))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusAnswered {
		t.Fatalf("outcome %+v", out)
	}
	if n := moved.Load(); n != 2 {
		t.Errorf("the plan call read the run %d times, want 2 (stale, then again)", n)
	}
	run, err := vc.Run(ctxT(t), tenant, "stale-1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(run.Plan), "the weather in San Francisco") {
		t.Errorf("the run's plan %s, want the model's", run.Plan)
	}
}

// anthropicAnswer writes an Anthropic Messages stream: one tool_use, or
// text.
func (s *scripted) anthropicAnswer(text string, c *call) fakeup.Answer {
	s.mu.Lock()
	s.n++
	id := fmt.Sprintf("msg_s%d", s.n)
	s.mu.Unlock()
	line := func(v any) string { b, _ := json.Marshal(v); return string(b) + "\n" }
	var b strings.Builder
	b.WriteString(line(map[string]any{"type": "message_start", "message": map[string]any{"id": id, "type": "message", "role": "assistant", "model": "claude-fake",
		"content": []any{}, "usage": map[string]int{"input_tokens": 10, "output_tokens": 1}}}))
	stop := "end_turn"
	if c != nil {
		stop = "tool_use"
		b.WriteString(line(map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "tool_use", "id": c.id, "name": c.name, "input": map[string]any{}}}))
		b.WriteString(line(map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": c.args}}))
	} else {
		b.WriteString(line(map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}}))
		b.WriteString(line(map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": text}}))
	}
	b.WriteString(line(map[string]any{"type": "content_block_stop", "index": 0}))
	b.WriteString(line(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop}, "usage": map[string]int{"output_tokens": 5}}))
	b.WriteString(line(map[string]any{"type": "message_stop"}))
	f := filepath.Join(s.dir, id+".jsonl")
	if err := os.WriteFile(f, []byte(b.String()), 0o600); err != nil {
		s.t.Fatal(err)
	}
	return fakeup.Answer{File: f}
}

// The same through Anthropic Messages: toolstream_plan is offered in
// Anthropic's tool shape (input_schema), the model's tool_use of it is
// written as the run's plan, its tool_result says so under the
// tool_use's id, and the plan is appended to the system prompt.
func TestPlanThroughAnthropic(t *testing.T) {
	p := agenttest.Start(t)
	s := newScripted(t)
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		var req struct {
			System   string `json:"system"`
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"input_schema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			return fakeup.Answer{}, err
		}
		switch n {
		case 1:
			offered := false
			for _, tl := range req.Tools {
				offered = offered || tl.Name == events.ToolPlan && strings.Contains(string(tl.InputSchema), `"steps"`)
			}
			if !offered {
				return fakeup.Answer{}, fmt.Errorf("round 1 does not offer toolstream_plan in Anthropic's shape: %s", body)
			}
			return s.anthropicAnswer("", &call{"toolu_p1", events.ToolPlan, weatherPlan}), nil
		case 2:
			last := req.Messages[len(req.Messages)-1]
			if !strings.Contains(string(last.Content), `"tool_use_id":"toolu_p1"`) || !strings.Contains(string(last.Content), `written`) {
				return fakeup.Answer{}, fmt.Errorf("round 2 lacks the plan's tool_result: %s", last.Content)
			}
			if !strings.HasPrefix(req.System, "Be brief.\n\nPlan of this run") {
				return fakeup.Answer{}, fmt.Errorf("round 2's system: %q", req.System)
			}
			return s.anthropicAnswer("Planned.", nil), nil
		}
		return fakeup.Answer{}, fmt.Errorf("request %d: the run should have ended", n)
	})
	body, _ := json.Marshal(map[string]any{"model": "claude-fake", "max_tokens": 100, "system": "Be brief.",
		"messages": []any{map[string]string{"role": "user", "content": "Plan the weather."}}})
	out, err := driver(t, p, "gw-1", up).Run(ctxT(t), agent.Spec{Tenant: tenant, User: "u1", Run: "plan-a", Format: runs.FormatAnthropic, Body: body})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusAnswered || out.Text != "Planned." {
		t.Fatalf("outcome %+v", out)
	}
	run, err := viewClient(t, p).Run(ctxT(t), tenant, "plan-a")
	if err != nil || !strings.Contains(string(run.Plan), "the weather in San Francisco") {
		t.Errorf("the run's plan %s (%v)", run.Plan, err)
	}
}
