package gateway

import (
	"encoding/json"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/agent"
)

// A run's answer in the client's API: the outcome of agent.Driver.Run as
// a Chat completion, a Responses response or an Anthropic message, whole
// or as a stream, in the API's own events only (an SDK's stream helpers
// refuse any other). The answer's text is what the tenant's
// policy lets through; its usage adds up the tokens of the rounds the
// request asked; the run's status, the calls waiting for approval and the
// verifier's verdicts per claim ride along in a "toolstream" field (the
// SDKs keep fields they do not know) of the answer: on a stream, of Chat's
// last chunk (the one with the finish reason), of Responses'
// response.completed (or .incomplete) response, and of Anthropic's
// message_start message. A run that waits for approval ends in each API's
// term for a turn that is not over: Chat's finish_reason tool_calls with
// the waiting calls as tool_calls (content null), Responses' status
// incomplete, Anthropic's stop_reason pause_turn. The events are a
// function of the outcome, so a client that asks again after
// Last-Event-ID gets the rest.

// RunMeta is the "toolstream" field of a run-mode answer.
type RunMeta struct {
	Run      string              `json:"run"`
	Status   agent.Status        `json:"status"`
	Reason   string              `json:"reason,omitempty"`
	Detail   string              `json:"detail,omitempty"`
	Rounds   int                 `json:"rounds"`
	Response string              `json:"response,omitempty"` // the last model response's id
	Blocked  bool                `json:"blocked,omitempty"`
	Degraded bool                `json:"degraded,omitempty"`
	Waiting  []agent.WaitingCall `json:"waiting,omitempty"`
	Verdict  *Verdict            `json:"verdict,omitempty"`
	// Recalled are the user's memories the last round was given (ids,
	// versions and kinds; the texts are the user's, in memory).
	Recalled []agent.RecalledMemory `json:"recalled,omitempty"`
}

// Verdict is the verifier's verdict on the answer.
type Verdict struct {
	Faithfulness float64 `json:"faithfulness"`
	Policy       string  `json:"policy"`
	Claims       []Claim `json:"claims"`
	// Constraints is how many of the user's constraints were in force at
	// the answer's time and checked against it (none: not checked).
	Constraints int `json:"constraints,omitempty"`
}

// Claim is one claim's verdict; Start and End are rune offsets into the
// model's answer (before the policy applied).
type Claim struct {
	Text    string         `json:"text"`
	Start   int            `json:"start"`
	End     int            `json:"end"`
	Verdict events.Verdict `json:"verdict"`
	Reason  string         `json:"reason,omitempty"`
	// Constraint: for a claim that violates_constraint, the memory record
	// and version of the user's constraint it goes against.
	Constraint *events.ConstraintRef `json:"constraint,omitempty"`
}

type answer struct {
	api     API
	id      string
	model   string
	created int64
	text    string
	meta    RunMeta
	usage   events.Usage
}

func newAnswer(req *Request, out *agent.Outcome, now time.Time) *answer {
	a := &answer{api: req.API, model: req.Model, created: now.Unix(), text: out.Text, usage: out.Usage,
		meta: RunMeta{Run: out.Run, Status: out.Status, Reason: out.Reason, Detail: out.Detail, Rounds: out.Rounds,
			Response: out.Response, Blocked: out.Blocked, Degraded: out.Degraded, Waiting: out.Waiting, Recalled: out.Recalled}}
	if v := out.Verdict; v != nil {
		a.meta.Verdict = &Verdict{Faithfulness: v.Faithfulness, Policy: v.Policy, Claims: []Claim{}, Constraints: v.Constraints}
		for _, c := range v.Claims {
			a.meta.Verdict.Claims = append(a.meta.Verdict.Claims, Claim{Text: c.Text, Start: c.Start, End: c.End, Verdict: c.Verdict, Reason: c.Reason,
				Constraint: c.Constraint})
		}
	}
	// The answer's id names the run's last response, so asking again gives
	// the same id.
	resp := out.Response
	if resp == "" {
		resp = out.Run
	}
	switch req.API {
	case APIResponses:
		a.id = "resp_ts_" + resp
	case APIMessages:
		a.id = "msg_ts_" + resp
	default:
		a.id = "chatcmpl-ts-" + resp
	}
	return a
}

// waiting reports whether the run waits for approval: its answer ends as
// a turn that is not over (Chat's tool_calls, Anthropic's pause_turn,
// Responses' incomplete).
func (a *answer) waiting() bool { return a.meta.Status == agent.StatusWaitingApproval }

// chatFinish is the Chat answer's finish_reason.
func (a *answer) chatFinish() string {
	if a.waiting() {
		return "tool_calls"
	}
	return "stop"
}

// chatToolCalls are the calls waiting for approval as Chat's tool_calls;
// with index for a stream's delta.
func (a *answer) chatToolCalls(indexed bool) []any {
	var out []any
	for i, c := range a.meta.Waiting {
		args := string(c.Arguments)
		if args == "" {
			args = "{}"
		}
		tc := map[string]any{"id": c.CallID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": args}}
		if indexed {
			tc["index"] = i
		}
		out = append(out, tc)
	}
	return out
}

// chatUsage is the answer's usage in Chat's terms.
func (a *answer) chatUsage() map[string]any {
	return map[string]any{"prompt_tokens": a.usage.Input, "completion_tokens": a.usage.Output, "total_tokens": a.usage.Input + a.usage.Output}
}

// responsesUsage is the answer's usage in Responses' terms.
func (a *answer) responsesUsage() map[string]any {
	return map[string]any{"input_tokens": a.usage.Input, "output_tokens": a.usage.Output, "total_tokens": a.usage.Input + a.usage.Output,
		"input_tokens_details": map[string]int{"cached_tokens": 0}, "output_tokens_details": map[string]int{"reasoning_tokens": 0}}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v) // maps, slices and strings: cannot fail
	return b
}

// whole is the answer as one JSON object.
func (a *answer) whole() []byte {
	switch a.api {
	case APIResponses:
		return mustJSON(a.response(true))
	case APIMessages:
		stop := "end_turn"
		if a.waiting() {
			stop = "pause_turn"
		}
		content := []any{}
		if a.text != "" {
			content = append(content, map[string]any{"type": "text", "text": a.text})
		}
		return mustJSON(map[string]any{"id": a.id, "type": "message", "role": "assistant", "model": a.model, "content": content,
			"stop_reason": stop, "stop_sequence": nil, "usage": map[string]int64{"input_tokens": a.usage.Input, "output_tokens": a.usage.Output}, "toolstream": a.meta})
	}
	msg := map[string]any{"role": "assistant", "content": a.text, "refusal": nil}
	if a.waiting() {
		msg["content"], msg["tool_calls"] = nil, a.chatToolCalls(false)
	}
	return mustJSON(map[string]any{"id": a.id, "object": "chat.completion", "created": a.created, "model": a.model,
		"choices":    []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": a.chatFinish()}},
		"usage":      a.chatUsage(),
		"toolstream": a.meta})
}

// response is the Responses API's response object, completed or not yet.
func (a *answer) response(done bool) map[string]any {
	status, output := "in_progress", []any{}
	var incomplete any
	if done {
		status = "completed"
		if a.waiting() {
			status, incomplete = "incomplete", map[string]string{"reason": "waiting_approval"}
		}
		if a.text != "" {
			output = append(output, a.message(true))
		}
	}
	r := map[string]any{"id": a.id, "object": "response", "created_at": a.created, "status": status, "model": a.model,
		"output": output, "incomplete_details": incomplete, "error": nil, "usage": nil, "toolstream": a.meta}
	if done {
		r["usage"] = a.responsesUsage()
	}
	return r
}

func (a *answer) message(done bool) map[string]any {
	st, content := "in_progress", []any{}
	if done {
		st = "completed"
		content = append(content, map[string]any{"type": "output_text", "text": a.text, "annotations": []any{}})
	}
	return map[string]any{"type": "message", "id": "msg_" + a.id, "status": st, "role": "assistant", "content": content}
}

type runEvent struct {
	name string
	data []byte
}

// events is the answer as a stream, in the API's events.
func (a *answer) events() []runEvent {
	var out []runEvent
	add := func(name string, v any) { out = append(out, runEvent{name, mustJSON(v)}) }
	switch a.api {
	case APIResponses:
		seq := 0
		ev := func(typ string, fields map[string]any) {
			fields["type"], fields["sequence_number"] = typ, seq
			seq++
			add(typ, fields)
		}
		ev("response.created", map[string]any{"response": a.response(false)})
		if a.text != "" {
			item := "msg_" + a.id
			ev("response.output_item.added", map[string]any{"output_index": 0, "item": a.message(false)})
			ev("response.content_part.added", map[string]any{"item_id": item, "output_index": 0, "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
			ev("response.output_text.delta", map[string]any{"item_id": item, "output_index": 0, "content_index": 0, "delta": a.text})
			ev("response.output_text.done", map[string]any{"item_id": item, "output_index": 0, "content_index": 0, "text": a.text})
			ev("response.content_part.done", map[string]any{"item_id": item, "output_index": 0, "content_index": 0, "part": map[string]any{"type": "output_text", "text": a.text, "annotations": []any{}}})
			ev("response.output_item.done", map[string]any{"output_index": 0, "item": a.message(true)})
		}
		typ := "response.completed"
		if a.waiting() {
			typ = "response.incomplete"
		}
		ev(typ, map[string]any{"response": a.response(true)})
	case APIMessages:
		add("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": a.id, "type": "message", "role": "assistant", "model": a.model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]int64{"input_tokens": a.usage.Input, "output_tokens": 0},
			"toolstream": a.meta}})
		if a.text != "" {
			add("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
			add("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": a.text}})
			add("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
		}
		stop := "end_turn"
		if a.waiting() {
			stop = "pause_turn"
		}
		add("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int64{"input_tokens": a.usage.Input, "output_tokens": a.usage.Output}})
		add("message_stop", map[string]any{"type": "message_stop"})
	default:
		chunk := func(delta map[string]any, finish any, last bool) map[string]any {
			c := map[string]any{"id": a.id, "object": "chat.completion.chunk", "created": a.created, "model": a.model,
				"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}}
			if last {
				c["usage"], c["toolstream"] = a.chatUsage(), a.meta
			}
			return c
		}
		if a.waiting() {
			add("", chunk(map[string]any{"role": "assistant", "content": nil}, nil, false))
			add("", chunk(map[string]any{"tool_calls": a.chatToolCalls(true)}, nil, false))
		} else {
			add("", chunk(map[string]any{"role": "assistant", "content": ""}, nil, false))
			if a.text != "" {
				add("", chunk(map[string]any{"content": a.text}, nil, false))
			}
		}
		add("", chunk(map[string]any{}, a.chatFinish(), true))
		out = append(out, runEvent{"", []byte("[DONE]")})
	}
	return out
}
