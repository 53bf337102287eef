package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/internal/toolsel"
)

// conversationKey is the body's field that holds the conversation in
// format f: messages (Chat, Anthropic) or input (Responses).
func conversationKey(f string) string {
	if f == runs.FormatResponses {
		return "input"
	}
	return "messages"
}

// toolsFormat is the toolsel format of a runs format.
func toolsFormat(f string) string {
	switch f {
	case runs.FormatResponses:
		return toolsel.FormatOpenAIResponses
	case runs.FormatAnthropic:
		return toolsel.FormatAnthropic
	}
	return toolsel.FormatOpenAIChat
}

// clientConversation returns the client's conversation as a JSON array:
// the messages, or the Responses input (a string is one user message).
// ErrBadRequest when the body holds none.
func clientConversation(format string, body map[string]json.RawMessage) ([]json.RawMessage, error) {
	key := conversationKey(format)
	raw, ok := body[key]
	if !ok || len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		return nil, fmt.Errorf("%w: the request has no %s", ErrBadRequest, key)
	}
	var s string
	if format == runs.FormatResponses && json.Unmarshal(raw, &s) == nil {
		m, _ := json.Marshal(map[string]string{"role": "user", "content": s})
		return []json.RawMessage{m}, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("%w: %s is not an array: %v", ErrBadRequest, key, err)
	}
	return items, nil
}

// parseBody reads a client's request body as an object.
func parseBody(body []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return nil, fmt.Errorf("%w: the body is not a JSON object", ErrBadRequest)
	}
	return m, nil
}

// roundBody writes one round's request: the client's body with its
// conversation followed by the run's history (the model's turns and the
// tool results), the tools in the provider's format, and stream on. With
// answerOnly the model is told to answer without tools (tool_choice none:
// the tools stay declared, as Anthropic requires when the history holds
// tool blocks). A client's own tools are replaced by the registry's.
//
// hist are the history's messages, each a JSON value: they are joined as
// they are, and checked and compacted once, with the whole body.
func roundBody(format string, body map[string]json.RawMessage, conv []json.RawMessage, hist []json.RawMessage, tools json.RawMessage, answerOnly bool) ([]byte, error) {
	out := make(map[string]json.RawMessage, len(body)+2)
	for k, v := range body {
		out[k] = v
	}
	out[conversationKey(format)] = joinArray(conv, hist)
	out["stream"] = json.RawMessage("true")
	delete(out, "tool_choice")
	delete(out, "parallel_tool_calls")
	if len(tools) == 0 || string(tools) == "[]" {
		delete(out, "tools")
	} else {
		out["tools"] = tools
		if answerOnly {
			if format == runs.FormatAnthropic {
				out["tool_choice"] = json.RawMessage(`{"type":"none"}`)
			} else {
				out["tool_choice"] = json.RawMessage(`"none"`)
			}
		}
	}
	if format == runs.FormatChat {
		delete(out, "n") // one choice: a round is one response
	}
	return marshalSorted(out)
}

// joinArray writes a JSON array of the values of a, then of b, as they
// are (the encoder of the whole body checks and compacts them).
func joinArray(a, b []json.RawMessage) json.RawMessage {
	n := 2
	for _, v := range a {
		n += len(v) + 1
	}
	for _, v := range b {
		n += len(v) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for _, part := range [][]json.RawMessage{a, b} {
		for _, v := range part {
			if len(out) > 1 {
				out = append(out, ',')
			}
			out = append(out, v...)
		}
	}
	return append(out, ']')
}

// marshalSorted writes an object with its keys sorted (encoding/json
// sorts map keys) and without HTML escapes.
func marshalSorted(m map[string]json.RawMessage) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// conversationText is the text of a conversation, what the tools are
// ranked against: every string of it but those of the structural keys.
func conversationText(conv []json.RawMessage) string {
	var parts []string
	var walk func(v any, key string)
	walk = func(v any, key string) {
		switch x := v.(type) {
		case string:
			switch key {
			case "role", "type", "id", "call_id", "tool_call_id", "tool_use_id", "name":
				return
			}
			parts = append(parts, x)
		case []any:
			for _, e := range x {
				walk(e, key)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k], k)
			}
		}
	}
	for _, m := range conv {
		var v any
		if json.Unmarshal(m, &v) == nil {
			walk(v, "")
		}
	}
	return strings.Join(parts, "\n")
}

type jsonRaw = json.RawMessage
