package gateway

import (
	"encoding/json"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/agent"
)

// A run's answer in the client's API: the outcome of agent.Driver.Run as
// a Chat completion, a Responses response or an Anthropic message, whole
// or as a stream. The answer's text is what the tenant's policy lets
// through; the run's status, the calls waiting for approval and the
// verifier's verdicts per claim ride along in a "toolstream" field (the
// SDKs keep fields they do not know) and, on a stream, in a trailing
// toolstream.run event, which the SDKs ignore: after Chat's [DONE], and
// an event name the Anthropic SDK skips. The events are a function of the
// outcome, so a client that asks again after Last-Event-ID gets the rest.

// EventRun is the trailing event of a run-mode stream.
const EventRun = "toolstream.run"

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
}

// Verdict is the verifier's verdict on the answer.
type Verdict struct {
	Faithfulness float64 `json:"faithfulness"`
	Policy       string  `json:"policy"`
	Claims       []Claim `json:"claims"`
}

// Claim is one claim's verdict; Start and End are rune offsets into the
// model's answer (before the policy applied).
type Claim struct {
	Text    string         `json:"text"`
	Start   int            `json:"start"`
	End     int            `json:"end"`
	Verdict events.Verdict `json:"verdict"`
	Reason  string         `json:"reason,omitempty"`
}

type answer struct {
	api     API
	id      string
	model   string
	created int64
	text    string
	meta    RunMeta
}

func newAnswer(req *Request, out *agent.Outcome, now time.Time) *answer {
	a := &answer{api: req.API, model: req.Model, created: now.Unix(), text: out.Text,
		meta: RunMeta{Run: out.Run, Status: out.Status, Reason: out.Reason, Detail: out.Detail, Rounds: out.Rounds,
			Response: out.Response, Blocked: out.Blocked, Degraded: out.Degraded, Waiting: out.Waiting}}
	if v := out.Verdict; v != nil {
		a.meta.Verdict = &Verdict{Faithfulness: v.Faithfulness, Policy: v.Policy, Claims: []Claim{}}
		for _, c := range v.Claims {
			a.meta.Verdict.Claims = append(a.meta.Verdict.Claims, Claim{Text: c.Text, Start: c.Start, End: c.End, Verdict: c.Verdict, Reason: c.Reason})
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

// finish is the answer's end reason in the API's terms: a run waiting for
// approval is paused (Anthropic's pause_turn; Responses' incomplete).
func (a *answer) waiting() bool { return a.meta.Status == agent.StatusWaitingApproval }

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
			"stop_reason": stop, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 0, "output_tokens": 0}, "toolstream": a.meta})
	}
	return mustJSON(map[string]any{"id": a.id, "object": "chat.completion", "created": a.created, "model": a.model,
		"choices":    []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": a.text, "refusal": nil}, "logprobs": nil, "finish_reason": "stop"}},
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
	return map[string]any{"id": a.id, "object": "response", "created_at": a.created, "status": status, "model": a.model,
		"output": output, "incomplete_details": incomplete, "error": nil, "toolstream": a.meta}
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
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 0, "output_tokens": 0}}})
		if a.text != "" {
			add("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
			add("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": a.text}})
			add("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
		}
		stop := "end_turn"
		if a.waiting() {
			stop = "pause_turn"
		}
		add("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 0}})
		add("message_stop", map[string]any{"type": "message_stop"})
	default:
		chunk := func(delta map[string]any, finish any, meta bool) map[string]any {
			c := map[string]any{"id": a.id, "object": "chat.completion.chunk", "created": a.created, "model": a.model,
				"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}}
			if meta {
				c["toolstream"] = a.meta
			}
			return c
		}
		add("", chunk(map[string]any{"role": "assistant", "content": ""}, nil, false))
		if a.text != "" {
			add("", chunk(map[string]any{"content": a.text}, nil, false))
		}
		add("", chunk(map[string]any{}, "stop", true))
		out = append(out, runEvent{"", []byte("[DONE]")})
	}
	add(EventRun, a.meta)
	return out
}
