package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// A non-streamed answer (a whole chat.completion, message or response
// object) is turned into the events its streamed form would have sent, in
// the provider's own streaming shapes, so that it is normalised by the same
// path as a stream and yields the same model events.

// StreamEventsOf returns the streaming events equivalent to body, a
// provider's complete (non-streamed) response object of format f: for
// FormatOpenAIChat a chat.completion, for FormatAnthropic a message, for
// FormatOpenAIResponses a response. Each event is one compact JSON object,
// in order. Bytes that are not one JSON object return ErrMalformedInput; an
// object that is not the format's whole response (or a format without a
// conversion: FormatAuto, FormatGemini) returns ErrUnknownShape or
// ErrUnknownFormat. Every error wraps events.ErrBadInput.
func StreamEventsOf(f Format, body []byte) ([][]byte, error) {
	if len(body) > EventMax {
		return nil, fmt.Errorf("%w: %d bytes (max %d)", ErrTooLarge, len(body), EventMax)
	}
	// Compact once: every value taken from the body is then compact, and
	// marshalJSON copies it as it is (no scan of it again per event). The
	// compaction is the validation too (checkObject's json.Valid was a
	// pass more over the answer): it refuses what is not JSON, and what
	// it leaves starts with the value's first byte.
	var cb bytes.Buffer
	cb.Grow(len(body))
	if err := json.Compact(&cb, body); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedInput, err)
	}
	body = cb.Bytes()
	if len(body) == 0 || body[0] != '{' {
		return nil, fmt.Errorf("%w: not a JSON object", ErrMalformedInput)
	}
	switch f {
	case FormatOpenAIChat:
		return chatEventsOf(body)
	case FormatAnthropic:
		return anthropicEventsOf(body)
	case FormatOpenAIResponses:
		return responsesEventsOf(body)
	}
	return nil, fmt.Errorf("%w: no stream for a whole answer of %q", ErrUnknownFormat, f)
}

// object is a JSON object whose fields are kept as they are.
type object map[string]json.RawMessage

// eventList collects the marshalled events.
type eventList struct {
	out [][]byte
	err error
}

func (l *eventList) add(v any) {
	if l.err != nil {
		return
	}
	b, err := marshalJSON(nil, v)
	if err != nil {
		l.err = fmt.Errorf("%w: %w", ErrUnknownShape, err)
		return
	}
	l.out = append(l.out, b)
}

// marshalJSON appends v's JSON to dst. Objects of raw JSON (object,
// *object, []object) and raw values are written here, the raw values as
// they are (compact: StreamEventsOf compacts the body they come from, and
// what it makes is compact), members in key order as json.Marshal writes
// a map; json.Marshal would scan every raw value again, once per level it
// is nested in (an answer's text three times an event). Anything else
// is json.Marshal's.
func marshalJSON(dst []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case json.RawMessage:
		if len(v) == 0 {
			return append(dst, "null"...), nil
		}
		return append(dst, v...), nil
	case object:
		if v == nil {
			return append(dst, "null"...), nil
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendQuoted(dst, k)
			dst = append(dst, ':')
			dst, _ = marshalJSON(dst, v[k])
		}
		return append(dst, '}'), nil
	case *object:
		if v == nil {
			return append(dst, "null"...), nil
		}
		return marshalJSON(dst, *v)
	case []object:
		if v == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for i, o := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst, _ = marshalJSON(dst, o)
		}
		return append(dst, ']'), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

func (l *eventList) result() ([][]byte, error) {
	if l.err != nil {
		return nil, l.err
	}
	return l.out, nil
}

func rawString(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

// jsonNull is a fresh JSON null.
func jsonNull() json.RawMessage { return json.RawMessage("null") }

// decode decodes o's member key into v, as json.Unmarshal of the whole
// object into a struct would: a member that is missing leaves v as it is.
func (o object) decode(key string, v any) error {
	raw, ok := o[key]
	if !ok {
		return nil
	}
	return json.Unmarshal(raw, v)
}

// without returns a copy of o with the keys dropped.
func (o object) without(keys ...string) object {
	c := make(object, len(o))
	for k, v := range o {
		c[k] = v
	}
	for _, k := range keys {
		delete(c, k)
	}
	return c
}

// Chat Completions.

type wholeChatChoice struct {
	Index        json.RawMessage `json:"index"`
	Message      *object         `json:"message"`
	FinishReason json.RawMessage `json:"finish_reason"`
	Logprobs     json.RawMessage `json:"logprobs,omitempty"`
}

type wholeChatToolCall struct {
	ID       json.RawMessage `json:"id,omitempty"`
	Type     json.RawMessage `json:"type,omitempty"`
	Function *object         `json:"function,omitempty"`
	Custom   json.RawMessage `json:"custom,omitempty"`
}

// chatEventsOf: a chat.completion becomes one chat.completion.chunk with
// every choice's message as its delta (tool calls numbered by index), one
// with the finish reasons, and one with the usage when there is one.
func chatEventsOf(body []byte) ([][]byte, error) {
	// One decode of the body into its members; the choices and the
	// object's name are decoded from their members alone, not from the
	// body again.
	var whole object
	var c struct {
		Object  string
		Choices *[]wholeChatChoice
		Usage   json.RawMessage
	}
	if err := json.Unmarshal(body, &whole); err != nil {
		return nil, fmt.Errorf("%w: chat completion: %w", ErrUnknownShape, err)
	}
	if err := whole.decode("object", &c.Object); err != nil {
		return nil, fmt.Errorf("%w: chat completion: %w", ErrUnknownShape, err)
	}
	if err := whole.decode("choices", &c.Choices); err != nil {
		return nil, fmt.Errorf("%w: chat completion: %w", ErrUnknownShape, err)
	}
	c.Usage = whole["usage"]
	if c.Choices == nil || c.Object != "" && c.Object != "chat.completion" {
		return nil, fmt.Errorf("%w: not a chat.completion", ErrUnknownShape)
	}
	base := whole.without("choices", "usage")
	base["object"] = rawString("chat.completion.chunk")
	chunk := func(choices []object, usage json.RawMessage) object {
		o := base.without()
		o["choices"] = mustRaw(choices)
		if usage != nil {
			o["usage"] = usage
		}
		return o
	}
	var l eventList
	var deltas, finishes []object
	for i, ch := range *c.Choices {
		if ch.Message == nil {
			return nil, fmt.Errorf("%w: choice %d without message", ErrUnknownShape, i)
		}
		delta := ch.Message.without("tool_calls")
		if tc, ok := (*ch.Message)["tool_calls"]; ok && present(tc) {
			var calls []wholeChatToolCall
			if err := json.Unmarshal(tc, &calls); err != nil {
				return nil, fmt.Errorf("%w: choice %d tool_calls: %w", ErrUnknownShape, i, err)
			}
			out := make([]object, 0, len(calls))
			for k, call := range calls {
				o := object{"index": mustRaw(k)}
				if call.ID != nil {
					o["id"] = call.ID
				}
				if call.Type != nil {
					o["type"] = call.Type
				}
				if call.Function != nil {
					o["function"] = mustRaw(call.Function)
				}
				if call.Custom != nil {
					o["custom"] = call.Custom
				}
				out = append(out, o)
			}
			delta["tool_calls"] = mustRaw(out)
		}
		idx := ch.Index
		if idx == nil {
			idx = mustRaw(i)
		}
		d := object{"index": idx, "delta": mustRaw(delta), "finish_reason": jsonNull()}
		if ch.Logprobs != nil {
			d["logprobs"] = ch.Logprobs
		}
		deltas = append(deltas, d)
		fin := ch.FinishReason
		if fin == nil {
			fin = jsonNull()
		}
		finishes = append(finishes, object{"index": idx, "delta": mustRaw(object{}), "finish_reason": fin})
	}
	l.add(chunk(deltas, nil))
	l.add(chunk(finishes, nil))
	if present(c.Usage) {
		l.add(chunk([]object{}, c.Usage))
	}
	return l.result()
}

// mustRaw marshals values that always marshal (objects of raw JSON, ints).
func mustRaw(v any) json.RawMessage {
	b, err := marshalJSON(nil, v)
	if err != nil {
		return jsonNull()
	}
	return b
}

// Anthropic Messages.

// anthropicEventsOf: a message becomes message_start (the message without
// its content and stop reason), each content block's
// content_block_start / content_block_delta / content_block_stop, a
// message_delta with the stop reason and usage, and message_stop.
func anthropicEventsOf(body []byte) ([][]byte, error) {
	var whole object
	var m struct {
		Type         string          `json:"type"`
		Content      *[]object       `json:"content"`
		StopReason   json.RawMessage `json:"stop_reason"`
		StopSequence json.RawMessage `json:"stop_sequence"`
		Usage        json.RawMessage `json:"usage"`
	}
	if err := json.Unmarshal(body, &whole); err != nil {
		return nil, fmt.Errorf("%w: message: %w", ErrUnknownShape, err)
	}
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("%w: message: %w", ErrUnknownShape, err)
	}
	if m.Type != "message" || m.Content == nil {
		return nil, fmt.Errorf("%w: not an Anthropic message", ErrUnknownShape)
	}
	start := whole.without()
	start["content"] = json.RawMessage("[]")
	start["stop_reason"] = jsonNull()
	start["stop_sequence"] = jsonNull()
	var l eventList
	l.add(object{"type": rawString("message_start"), "message": mustRaw(start)})
	for i, block := range *m.Content {
		var typ string
		if err := json.Unmarshal(block["type"], &typ); err != nil {
			return nil, fmt.Errorf("%w: content block %d without type", ErrUnknownShape, i)
		}
		idx := mustRaw(i)
		var delta object
		first := block
		switch typ {
		case "text":
			first = block.without("citations")
			first["text"] = rawString("")
			delta = object{"type": rawString("text_delta"), "text": block["text"]}
		case "tool_use", "server_tool_use", "mcp_tool_use":
			first = block.without()
			first["input"] = json.RawMessage("{}")
			in := "{}"
			if present(block["input"]) {
				in = compactJSON(block["input"])
			}
			if in != "{}" {
				delta = object{"type": rawString("input_json_delta"), "partial_json": rawString(in)}
			}
		case "thinking":
			first = block.without("signature")
			first["thinking"] = rawString("")
			first["signature"] = rawString("")
			delta = object{"type": rawString("thinking_delta"), "thinking": block["thinking"]}
		}
		l.add(object{"type": rawString("content_block_start"), "index": idx, "content_block": mustRaw(first)})
		if delta != nil {
			l.add(object{"type": rawString("content_block_delta"), "index": idx, "delta": mustRaw(delta)})
		}
		if typ == "thinking" && block["signature"] != nil {
			l.add(object{"type": rawString("content_block_delta"), "index": idx,
				"delta": mustRaw(object{"type": rawString("signature_delta"), "signature": block["signature"]})})
		}
		l.add(object{"type": rawString("content_block_stop"), "index": idx})
	}
	stop, seq := m.StopReason, m.StopSequence
	if stop == nil {
		stop = jsonNull()
	}
	if seq == nil {
		seq = jsonNull()
	}
	md := object{"type": rawString("message_delta"),
		"delta": mustRaw(object{"stop_reason": stop, "stop_sequence": seq})}
	if present(m.Usage) {
		md["usage"] = m.Usage
	}
	l.add(md)
	l.add(object{"type": rawString("message_stop")})
	return l.result()
}

// OpenAI Responses.

// responsesEventsOf: a response becomes response.created (the response in
// progress, without output), each output item's
// response.output_item.added, its argument or text deltas and their done
// events, response.output_item.done, then the terminal event its status
// names (response.completed, response.incomplete, response.failed,
// response.cancelled).
func responsesEventsOf(body []byte) ([][]byte, error) {
	var whole object
	var r struct {
		Object string    `json:"object"`
		Status string    `json:"status"`
		Output *[]object `json:"output"`
	}
	if err := json.Unmarshal(body, &whole); err != nil {
		return nil, fmt.Errorf("%w: response: %w", ErrUnknownShape, err)
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("%w: response: %w", ErrUnknownShape, err)
	}
	if r.Object != "response" || r.Output == nil {
		return nil, fmt.Errorf("%w: not a Responses response object", ErrUnknownShape)
	}
	terminal := "response.completed"
	switch r.Status {
	case "completed", "":
	case "incomplete", "failed", "cancelled":
		terminal = "response." + r.Status
	default: // queued, in_progress: not a whole answer yet
		return nil, fmt.Errorf("%w: a response %q is not finished", ErrUnknownShape, r.Status)
	}
	var l eventList
	seq := 0
	ev := func(typ string, fields object) {
		fields["type"] = rawString(typ)
		fields["sequence_number"] = mustRaw(seq)
		seq++
		l.add(fields)
	}
	created := whole.without("usage")
	created["status"] = rawString("in_progress")
	created["output"] = json.RawMessage("[]")
	ev("response.created", object{"response": mustRaw(created)})
	for i, it := range *r.Output {
		var p struct {
			ID        string          `json:"id"`
			Type      string          `json:"type"`
			Arguments *string         `json:"arguments"`
			Input     *string         `json:"input"`
			Content   json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(mustRaw(it), &p); err != nil {
			return nil, fmt.Errorf("%w: output item %d: %w", ErrUnknownShape, i, err)
		}
		idx := mustRaw(i)
		added := it.without()
		if it["status"] != nil {
			added["status"] = rawString("in_progress")
		}
		switch p.Type {
		case "function_call":
			added["arguments"] = rawString("")
		case "custom_tool_call":
			added["input"] = rawString("")
		case "message":
			added["content"] = json.RawMessage("[]")
		}
		ev("response.output_item.added", object{"output_index": idx, "item": mustRaw(added)})
		id := rawString(p.ID)
		switch {
		case p.Type == "function_call" && p.Arguments != nil:
			if *p.Arguments != "" {
				ev("response.function_call_arguments.delta", object{"item_id": id, "output_index": idx, "delta": rawString(*p.Arguments)})
			}
			ev("response.function_call_arguments.done", object{"item_id": id, "output_index": idx, "arguments": rawString(*p.Arguments)})
		case p.Type == "custom_tool_call" && p.Input != nil:
			if *p.Input != "" {
				ev("response.custom_tool_call_input.delta", object{"item_id": id, "output_index": idx, "delta": rawString(*p.Input)})
			}
			ev("response.custom_tool_call_input.done", object{"item_id": id, "output_index": idx, "input": rawString(*p.Input)})
		case p.Type == "message" && present(p.Content):
			var parts []object
			if err := json.Unmarshal(p.Content, &parts); err != nil {
				return nil, fmt.Errorf("%w: output item %d content: %w", ErrUnknownShape, i, err)
			}
			for k, part := range parts {
				var pt struct {
					Type string `json:"type"`
					Text string `json:"text"`
				}
				if err := json.Unmarshal(mustRaw(part), &pt); err != nil {
					return nil, fmt.Errorf("%w: output item %d part %d: %w", ErrUnknownShape, i, k, err)
				}
				ci := mustRaw(k)
				emptyPart := part.without()
				if pt.Type == "output_text" {
					emptyPart["text"] = rawString("")
				}
				ev("response.content_part.added", object{"item_id": id, "output_index": idx, "content_index": ci, "part": mustRaw(emptyPart)})
				if pt.Type == "output_text" {
					if pt.Text != "" {
						ev("response.output_text.delta", object{"item_id": id, "output_index": idx, "content_index": ci, "delta": rawString(pt.Text)})
					}
					ev("response.output_text.done", object{"item_id": id, "output_index": idx, "content_index": ci, "text": rawString(pt.Text)})
				}
				ev("response.content_part.done", object{"item_id": id, "output_index": idx, "content_index": ci, "part": mustRaw(part)})
			}
		}
		ev("response.output_item.done", object{"output_index": idx, "item": mustRaw(it)})
	}
	ev(terminal, object{"response": body})
	return l.result()
}
