package ingest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/toolstream/toolstream/events"
)

// OpenAI Responses API.
//
// Identities: the response id comes from response.created / in_progress; an
// output item is keyed by its item id (item.id, item_id), falling back to
// "out<output_index>" when the provider leaves the id out.
//
// Completion (DESIGN invariant 1): a function_call item completes on
// response.function_call_arguments.done (ArgumentsDone with the full
// arguments) or response.output_item.done with status "completed"
// (OutputItemDone); either may come without any delta and even without
// output_item.added, in which case the OutputItemAdded is synthesised from
// what the done event says. An output_item.done with status "incomplete" (or
// any status but "completed") completes nothing: the call stays open and the
// response's own end (response.incomplete) decides. When a done event arrives
// for an item whose name is still unknown (no added, no name in the event),
// its arguments are kept and the completion waits for output_item.done, which
// names the function — a nameless completion could only be rejected.
//
// custom_tool_call items (free-text input) are client calls too; their input
// is wrapped as the arguments object {"input": "<text>"}: the deltas are
// passed on JSON-escaped inside that wrapper, and the done events carry the
// wrapped full input. Every other tool item type (web_search_call,
// file_search_call, code_interpreter_call, mcp_call, image_generation_call,
// tool_search_call…) runs at the provider: it becomes ItemServerTool, never
// a client call. Unknown item types become ItemOther; message and reasoning
// items produce no item events (their text flows as TextDelta, reasoning is
// dropped).
//
// Producers that dropped the SSE "event:" line may send response-level
// events without "type" (seen from AWS Bedrock's Responses endpoint); the
// type is then inferred from response.status.

type respObject struct {
	ID                string    `json:"id"`
	Model             string    `json:"model"`
	Status            string    `json:"status"`
	Error             *apiError `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Usage *struct {
		Input  *int64 `json:"input_tokens"`
		Output *int64 `json:"output_tokens"`
	} `json:"usage"`
}

// respNoteUsage notes a terminal response object's usage.
func (n *Normalizer) respNoteUsage(r *respObject) {
	if r.Usage != nil {
		n.noteUsage(r.Usage.Input, r.Usage.Output)
	}
}

type respItem struct {
	ID        string  `json:"id"`
	Type      string  `json:"type"`
	Status    string  `json:"status"`
	CallID    string  `json:"call_id"`
	Name      string  `json:"name"`
	Arguments *string `json:"arguments"`
	Input     *string `json:"input"`
}

type respEvent struct {
	Type        string          `json:"type"`
	Response    *respObject     `json:"response"`
	OutputIndex *int            `json:"output_index"`
	ItemID      string          `json:"item_id"`
	Item        *respItem       `json:"item"`
	Delta       *string         `json:"delta"`
	Arguments   *string         `json:"arguments"`
	Input       *string         `json:"input"`
	Name        string          `json:"name"`
	Code        json.RawMessage `json:"code"`
	Message     string          `json:"message"`
	Error       *apiError       `json:"error"`
}

// apiError is an error object as the providers send it.
type apiError struct {
	Code    json.RawMessage `json:"code"`
	Type    string          `json:"type"`
	Status  string          `json:"status"`
	Message string          `json:"message"`
}

// code returns the most specific error code present.
func (e *apiError) code() string {
	if e == nil {
		return ""
	}
	if c := scalarText(e.Code); c != "" {
		if e.Status != "" && c != e.Status {
			return e.Status // Gemini: numeric HTTP code plus a symbolic status
		}
		return c
	}
	if e.Status != "" {
		return e.Status
	}
	return e.Type
}

// respNeeds lists, per known event type, what its shape must carry.
var respNeeds = map[string]string{
	"response.created":                       "response",
	"response.in_progress":                   "response",
	"response.queued":                        "response",
	"response.completed":                     "response",
	"response.incomplete":                    "response",
	"response.failed":                        "response",
	"response.cancelled":                     "response",
	"response.output_item.added":             "item",
	"response.output_item.done":              "item",
	"response.function_call_arguments.delta": "delta",
	"response.function_call_arguments.done":  "",
	"response.custom_tool_call_input.delta":  "delta",
	"response.custom_tool_call_input.done":   "",
	"response.output_text.delta":             "delta",
	"error":                                  "",
}

// respTypeList is respNeeds's types, for corruptedType.
var respTypeList = slices.Sorted(maps.Keys(respNeeds))

// unknownResponsesType ignores an event of a type the adapter does not
// read (new event types appear all the time), unless the type is one byte
// off one it reads.
func unknownResponsesType(typ string) (func(), error) {
	if err := corruptedType("responses event type", typ, respTypeList); err != nil {
		return nil, err
	}
	return func() {}, nil
}

func (n *Normalizer) decodeResponses(raw []byte) (func(), error) {
	// One decode for the usual event; anything it cannot take (a field of
	// an unexpected type in an event type we do not read, say) is decoded
	// again as before, which decides what to make of it.
	var typed struct {
		Type *string `json:"type"` // shallower than respEvent.Type: it gets the field
		respEvent
	}
	if json.Unmarshal(raw, &typed) == nil {
		return n.typedResponses(typed.Type, &typed.respEvent)
	}
	var env struct {
		Type     *string         `json:"type"`
		Response json.RawMessage `json:"response"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, fmt.Errorf("%w: responses event: %v", ErrUnknownShape, err)
	}
	typ, inferred := "", false
	switch {
	case env.Type != nil:
		typ = *env.Type
	case isObject(env.Response):
		inferred = true // the type is inferred below from response.status
	default:
		return nil, fmt.Errorf("%w: responses event without \"type\"", ErrUnknownShape)
	}
	if _, known := respNeeds[typ]; !inferred && !known {
		return unknownResponsesType(typ)
	}
	var ev respEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUnknownShape, typ, err)
	}
	return n.responsesEvent(typ, inferred, &ev)
}

// typedResponses takes an event decoded in one go: its "type" (nil when
// absent or null) and the rest.
func (n *Normalizer) typedResponses(t *string, ev *respEvent) (func(), error) {
	typ, inferred, err := responsesType(t, ev)
	if err != nil {
		return nil, err
	}
	return n.responsesEvent(typ, inferred, ev)
}

// responsesType is the type of an event decoded in one go (t: its "type",
// nil when absent or null), set on ev; inferred when it has none and is
// read from its response's status.
func responsesType(t *string, ev *respEvent) (typ string, inferred bool, err error) {
	switch {
	case t != nil:
		typ = *t
	case ev.Response != nil:
		inferred = true
	default:
		return "", false, fmt.Errorf("%w: responses event without \"type\"", ErrUnknownShape)
	}
	ev.Type = typ
	return typ, inferred, nil
}

// responsesEvent checks a decoded event of type typ (inferred: from its
// response's status) and returns what applies it.
func (n *Normalizer) responsesEvent(typ string, inferred bool, ev *respEvent) (func(), error) {
	typ, apply, err := responsesChecked(typ, inferred, ev)
	if err != nil {
		return nil, err
	}
	if !apply {
		return func() {}, nil
	}
	return func() { n.applyResponses(typ, ev) }, nil
}

// responsesChecked checks a decoded event of type typ (inferred: from its
// response's status) and returns the type it is applied as; apply false
// for an event type the adapter ignores.
func responsesChecked(typ string, inferred bool, ev *respEvent) (string, bool, error) {
	need, known := respNeeds[typ]
	if !inferred && !known {
		_, err := unknownResponsesType(typ)
		return "", false, err
	}
	if inferred {
		if ev.Response == nil {
			return "", false, fmt.Errorf("%w: responses event without \"type\"", ErrUnknownShape)
		}
		typ, need = "response."+inferStatus(ev.Response.Status), "response"
	}
	switch {
	case need == "response" && ev.Response == nil,
		need == "item" && ev.Item == nil,
		need == "delta" && ev.Delta == nil:
		return "", false, fmt.Errorf("%w: %s without %q", ErrUnknownShape, typ, need)
	}
	if ev.Item != nil {
		if err := corruptedType("responses item type", ev.Item.Type, respItemTypes); err != nil {
			return "", false, err
		}
	}
	return typ, true, nil
}

// feedResponsesScanned is feed of an event the scanner read (typ, ev): it
// checks and applies it without making a closure for it, as the
// encoding/json path does.
func (n *Normalizer) feedResponsesScanned(t *string, ev *respEvent) ([]Out, error) {
	typ, inferred, err := responsesType(t, ev)
	if err != nil {
		return nil, err
	}
	typ, apply, err := responsesChecked(typ, inferred, ev)
	if err != nil {
		return nil, err
	}
	n.out = nil
	if apply {
		n.applyResponses(typ, ev)
	}
	out := n.out
	n.out = nil
	return out, nil
}

// inferStatus names the event a typeless response object stands for.
func inferStatus(status string) string {
	switch status {
	case "queued", "in_progress", "":
		return "in_progress"
	}
	return status // completed, incomplete, failed, cancelled; others are ignored
}

func (n *Normalizer) applyResponses(typ string, ev *respEvent) {
	idx := -1
	if ev.OutputIndex != nil {
		idx = *ev.OutputIndex
	}
	switch typ {
	case "response.created", "response.in_progress", "response.queued":
		n.respStart(ev.Response)
	case "response.completed":
		n.begin(ev.Response.ID, ev.Response.Model)
		n.respNoteUsage(ev.Response)
		stop := ev.Response.Status
		if stop == "" {
			stop = "completed"
		}
		n.finish(&events.ResponseCompleted{StopReason: stop})
	case "response.incomplete":
		n.begin(ev.Response.ID, ev.Response.Model)
		n.respNoteUsage(ev.Response)
		reason := ""
		if d := ev.Response.IncompleteDetails; d != nil {
			reason = d.Reason
		}
		n.finish(&events.ResponseIncomplete{Reason: incompleteReason(reason), StopReason: reason})
	case "response.failed":
		n.begin(ev.Response.ID, ev.Response.Model)
		n.respNoteUsage(ev.Response)
		code, msg := "failed", ""
		if e := ev.Response.Error; e != nil {
			if c := e.code(); c != "" {
				code = c
			}
			msg = e.Message
		}
		n.finish(&events.ResponseFailed{Code: code, Message: msg})
	case "response.cancelled":
		n.begin(ev.Response.ID, ev.Response.Model)
		n.respNoteUsage(ev.Response)
		n.finish(&events.ResponseIncomplete{Reason: events.ReasonCancelled, StopReason: "cancelled"})
	case "error":
		code, msg := scalarText(ev.Code), ev.Message
		if e := ev.Error; e != nil {
			if code == "" {
				code = e.code()
			}
			if msg == "" {
				msg = e.Message
			}
		}
		if code == "" {
			code = "error"
		}
		n.finish(&events.ResponseFailed{Code: code, Message: msg})
	case "response.output_item.added":
		n.begin("", "")
		n.respAdded(idx, ev.Item)
	case "response.output_item.done":
		n.begin("", "")
		n.respItemDone(idx, ev.Item)
	case "response.function_call_arguments.delta":
		n.begin("", "")
		n.respArgsDelta(ev.ItemID, idx, *ev.Delta)
	case "response.function_call_arguments.done":
		n.begin("", "")
		n.respArgsDone(ev.ItemID, idx, ev.Name, ev.Arguments)
	case "response.custom_tool_call_input.delta":
		n.begin("", "")
		n.respCustomDelta(ev.ItemID, idx, *ev.Delta)
	case "response.custom_tool_call_input.done":
		n.begin("", "")
		n.respCustomDone(ev.ItemID, idx, ev.Input)
	case "response.output_text.delta":
		n.begin("", "")
		key := ev.ItemID
		if key == "" {
			key = "out" + itoa(idx)
		}
		n.text(key, idx, *ev.Delta)
	}
}

// respStart handles response.created / in_progress / queued. A different
// provider id while a named response is open is a new response spliced into
// the stream: the open calls of the old one are discarded.
func (n *Normalizer) respStart(resp *respObject) {
	r := &n.st.R
	switch {
	case !r.Started:
		n.start(resp.ID, resp.Model)
	case resp.ID == "" || resp.ID == r.ID:
	case !r.Named && !r.Ended:
		// Events came before the provider named the response; they were
		// emitted under the stream id, which stays the name.
	default:
		if !r.Ended {
			n.abortOpen(events.ReasonDiscarded, "a new response started")
		}
		n.start(resp.ID, resp.Model)
	}
}

func incompleteReason(reason string) events.Reason {
	if reason == "content_filter" {
		return events.ReasonContentFilter
	}
	return events.ReasonTruncated // max_output_tokens, and anything else that cut it short
}
