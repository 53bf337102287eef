package runs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/toolstream/toolstream/events"
)

// The provider shapes a run's messages are written in: the names of the
// ingest formats the responses came from.
const (
	FormatChat      = "openai-chat"
	FormatResponses = "openai-responses"
	FormatAnthropic = "anthropic"
	FormatGemini    = "gemini"
)

// Formats lists the shapes.
var Formats = []string{FormatChat, FormatResponses, FormatAnthropic, FormatGemini}

// KnownFormat reports whether f is one of Formats.
func KnownFormat(f string) bool { return slices.Contains(Formats, f) }

// ErrUnknownFormat is returned for a shape that is not one of Formats.
var ErrUnknownFormat = errors.New("runs: unknown message format")

// marshal writes v as JSON without HTML escapes (the model reads it).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// summaryMax bounds a result's text in a compacted round.
const summaryMax = 200

// clip cuts s to at most n bytes on a character boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// feedback is what the model is told about one call: the result, or an
// error that says what to fix. output is the result as JSON (Gemini's
// functionResponse takes an object); compact keeps only the summary.
func feedback(c *Call, inlineMax int, compact bool) (text string, isErr bool, output json.RawMessage) {
	if c.State == CallSucceeded {
		if len(c.Result) > 0 && len(c.Result) <= inlineMax && !compact {
			return string(c.Result), false, c.Result
		}
		sum := c.Summary
		if sum == "" && len(c.Result) > 0 {
			sum = clip(string(c.Result), summaryMax)
		}
		if compact {
			sum = clip(sum, summaryMax)
		}
		ref := map[string]string{"summary": sum}
		switch {
		case c.RawRef != "":
			ref["ref"] = "ts_results/" + c.RawRef
			text = sum + " (the whole result is stored as ts_results/" + c.RawRef + ")"
		case compact:
			text = sum
		default:
			text = fmt.Sprintf("%s (the result has %d bytes; this is its summary)", sum, len(c.Result))
		}
		out, _ := marshal(ref)
		return text, false, out
	}
	text = errorText(c)
	if compact {
		text = clip(text, summaryMax)
	}
	return text, true, nil
}

// errorText tells the model why a call did not succeed and what to do.
func errorText(c *Call) string {
	name := cmpOr(c.Name, "the tool")
	switch c.State {
	case CallRejected:
		switch c.Reason {
		case events.ReasonInvalidJSON:
			return fmt.Sprintf("error invalid_json: the arguments of %s are not valid JSON (%s); nothing was run. Send them again as one JSON object.", name, syntaxAt(c.Arguments, c.Detail))
		case events.ReasonNotAnObject:
			return fmt.Sprintf("error not_an_object: %s; nothing was run. Send the arguments of %s as one JSON object.", c.Detail, name)
		case events.ReasonUnknownTool:
			return fmt.Sprintf("error unknown_tool: tool %s does not exist (%s); nothing was run. Call one of the tools you were given, or answer without it.", name, c.Detail)
		case events.ReasonSchemaViolation:
			return fmt.Sprintf("error schema_violation: %s; nothing was run. Fix these fields and call %s again.", c.Detail, name)
		case events.ReasonPermission:
			return fmt.Sprintf("error permission_denied: %s; nothing was run. Do not call %s again in this conversation.", c.Detail, name)
		case events.ReasonTooLarge:
			return fmt.Sprintf("error too_large: %s; nothing was run. Call %s with smaller arguments.", c.Detail, name)
		}
		return fmt.Sprintf("error %s: %s; nothing was run.", c.Reason, cmpOr(c.Detail, "the call was rejected"))
	case CallIncomplete:
		if c.Reason == events.ReasonTruncated {
			return fmt.Sprintf("error truncated: your arguments for %s were cut off at byte %d (the response reached its length limit); nothing was run. Call %s again with complete arguments, shorter if you can.", name, c.Bytes, name)
		}
		return fmt.Sprintf("error %s: the call to %s did not complete (%s) after %d bytes of arguments; nothing was run.", c.Reason, name, cmpOr(c.Detail, "no completion signal"), c.Bytes)
	case CallDenied:
		return fmt.Sprintf("error approval_denied: %s", cmpOr(c.Message, "a person denied this call; nothing was run"))
	case CallClient:
		return fmt.Sprintf("%s was run by the client, not by Toolstream: its result is the client's.", name)
	case CallUnknown:
		return fmt.Sprintf("error outcome_unknown: %s. It is not known whether %s took effect: do not call it again; tell the user to check.", cmpOr(c.Message, "the tool stopped mid-call"), name)
	}
	return fmt.Sprintf("error %s: %s", cmpOr(string(c.Error), "tool_error"), cmpOr(c.Message, "the call failed"))
}

// syntaxAt says where arguments stop being JSON: the decoder's message and
// byte offset.
func syntaxAt(args []byte, detail string) string {
	var v any
	err := json.Unmarshal(args, &v)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("%v at byte %d", se, se.Offset)
	case err != nil && len(bytes.TrimSpace(args)) > 0:
		return fmt.Sprintf("%v at byte %d", err, len(args))
	}
	return cmpOr(detail, "not JSON")
}

// args returns a call's arguments as a JSON object: "{}" for arguments
// that are not one (a rejected or cut call), so that the conversation
// stays valid for the provider; the tool result says what was wrong.
func args(c *Call) json.RawMessage {
	t := bytes.TrimSpace(c.Arguments)
	if len(t) > 0 && t[0] == '{' && json.Valid(t) {
		var out bytes.Buffer
		if json.Compact(&out, t) == nil {
			return out.Bytes()
		}
	}
	return json.RawMessage("{}")
}

// decided returns the round's calls the assembler decided, in order.
func decided(rd *Round) []*Call {
	var out []*Call
	for i := range rd.Calls {
		if rd.Calls[i].Decided {
			out = append(out, &rd.Calls[i])
		}
	}
	return out
}

type chatToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// ToolResults returns the tool-result messages of a round in format: a
// JSON array of what follows the model's turn in the next request. It
// returns "[]" for a round without calls.
func ToolResults(rd *Round, format string, inlineMax int) ([]byte, error) {
	msgs, err := toolResults(rd, format, inlineMax, false)
	if err != nil {
		return nil, err
	}
	if msgs == nil {
		msgs = []any{}
	}
	return marshal(msgs)
}

func toolResults(rd *Round, format string, inlineMax int, compact bool) ([]any, error) {
	calls := decided(rd)
	if len(calls) == 0 {
		return nil, nil
	}
	var out []any
	switch format {
	case FormatChat:
		for _, c := range calls {
			text, _, _ := feedback(c, inlineMax, compact)
			out = append(out, map[string]any{"role": "tool", "tool_call_id": c.CallID, "content": text})
		}
	case FormatResponses:
		for _, c := range calls {
			text, _, _ := feedback(c, inlineMax, compact)
			out = append(out, map[string]any{"type": "function_call_output", "call_id": c.CallID, "output": text})
		}
	case FormatAnthropic:
		var blocks []any
		for _, c := range calls {
			text, isErr, _ := feedback(c, inlineMax, compact)
			b := map[string]any{"type": "tool_result", "tool_use_id": c.CallID, "content": text}
			if isErr {
				b["is_error"] = true
			}
			blocks = append(blocks, b)
		}
		out = append(out, map[string]any{"role": "user", "content": blocks})
	case FormatGemini:
		var parts []any
		for _, c := range calls {
			text, isErr, output := feedback(c, inlineMax, compact)
			resp := map[string]any{}
			switch {
			case isErr:
				resp["error"] = text
			case json.Valid(output):
				resp["output"] = output
			default:
				resp["output"] = text
			}
			fr := map[string]any{"name": c.Name, "response": resp}
			if c.CallID != "" {
				fr["id"] = c.CallID
			}
			parts = append(parts, map[string]any{"functionResponse": fr})
		}
		out = append(out, map[string]any{"role": "user", "parts": parts})
	default:
		return nil, fmt.Errorf("%w: %q (want one of %v)", ErrUnknownFormat, format, Formats)
	}
	return out, nil
}

// assistantTurn is the model's own turn of a round: its text and calls.
func assistantTurn(rd *Round, format string) ([]any, error) {
	calls := decided(rd)
	text := rd.Text
	if len(calls) == 0 && text == "" {
		return nil, nil
	}
	switch format {
	case FormatChat:
		m := map[string]any{"role": "assistant", "content": nil}
		if text != "" {
			m["content"] = text
		}
		if len(calls) > 0 {
			tcs := make([]chatToolCall, len(calls))
			for i, c := range calls {
				tcs[i].ID, tcs[i].Type = c.CallID, "function"
				tcs[i].Function.Name, tcs[i].Function.Arguments = c.Name, string(args(c))
			}
			m["tool_calls"] = tcs
		}
		return []any{m}, nil
	case FormatResponses:
		var out []any
		if text != "" {
			out = append(out, map[string]any{"role": "assistant", "content": text})
		}
		for _, c := range calls {
			out = append(out, map[string]any{"type": "function_call", "call_id": c.CallID, "name": c.Name, "arguments": string(args(c))})
		}
		return out, nil
	case FormatAnthropic:
		var blocks []any
		if text != "" {
			blocks = append(blocks, map[string]any{"type": "text", "text": text})
		}
		for _, c := range calls {
			blocks = append(blocks, map[string]any{"type": "tool_use", "id": c.CallID, "name": c.Name, "input": args(c)})
		}
		return []any{map[string]any{"role": "assistant", "content": blocks}}, nil
	case FormatGemini:
		var parts []any
		if text != "" {
			parts = append(parts, map[string]any{"text": text})
		}
		for _, c := range calls {
			fc := map[string]any{"name": c.Name, "args": args(c)}
			if c.CallID != "" {
				fc["id"] = c.CallID
			}
			parts = append(parts, map[string]any{"functionCall": fc})
		}
		return []any{map[string]any{"role": "model", "parts": parts}}, nil
	}
	return nil, fmt.Errorf("%w: %q (want one of %v)", ErrUnknownFormat, format, Formats)
}

// userTurn is an input message in format.
func userTurn(text, format string) (any, error) {
	switch format {
	case FormatChat, FormatResponses, FormatAnthropic:
		return map[string]any{"role": "user", "content": text}, nil
	case FormatGemini:
		return map[string]any{"role": "user", "parts": []any{map[string]any{"text": text}}}, nil
	}
	return nil, fmt.Errorf("%w: %q (want one of %v)", ErrUnknownFormat, format, Formats)
}
