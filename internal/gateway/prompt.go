package gateway

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/toolstream/toolstream/events"
)

// promptMembers are the members of a request body that make its prompt,
// in the order a bounded prompt keeps them: what a reader of the stream
// wants first (which model, what it was told, what it was asked) before
// the tools it was offered.
var promptMembers = []string{"model", "instructions", "system", "messages", "input", "tools", "tool_choice"}

// promptOf is the prompt of a request body (events.StreamPrompt): its
// prompt members as one JSON object of at most max bytes, each member
// whole, kept in promptMembers' order while they fit. A body that is no
// JSON object gives an empty prompt of its size, truncated.
func promptOf(body []byte, max int) *events.StreamPrompt {
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		obj = nil
	}
	return promptOfMembers(obj, len(body), max)
}

// promptOfMembers is promptOf of a body already decoded into obj (nil: no
// JSON object) of size bytes: a stream's request body is decoded once,
// where the call is routed (targetOf), not again for its prompt.
func promptOfMembers(obj map[string]json.RawMessage, size, max int) *events.StreamPrompt {
	if obj == nil {
		return &events.StreamPrompt{Prompt: "{}", Bytes: size, Truncated: true}
	}
	var kept bytes.Buffer
	var left []string
	kept.WriteByte('{')
	whole, n := 2, 0 // the whole object's bytes: its braces, then each member and its comma
	for _, name := range promptMembers {
		v, ok := obj[name]
		if !ok {
			continue
		}
		var m bytes.Buffer
		m.WriteString(strconv.Quote(name))
		m.WriteByte(':')
		if json.Compact(&m, v) != nil {
			continue
		}
		if n > 0 {
			whole++
		}
		whole += m.Len()
		n++
		comma := 0
		if kept.Len() > 1 {
			comma = 1
		}
		if kept.Len()+comma+m.Len()+1 > max {
			left = append(left, name)
			continue
		}
		if comma == 1 {
			kept.WriteByte(',')
		}
		kept.Write(m.Bytes())
	}
	kept.WriteByte('}')
	return &events.StreamPrompt{Prompt: kept.String(), Bytes: whole, Truncated: len(left) > 0, Left: left}
}
