package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// Every field name and type value the providers' SDKs declare at a place
// an adapter reads (testdata/providerfields) is accepted there: none is
// refused as a name one byte off one the adapter reads (misspells,
// corruptedType), on the scanner's path or on encoding/json's. A field the
// provider adds near one of ours would fail here, not in production.
func TestProviderFieldsAreNotRefused(t *testing.T) {
	const (
		respCreated = `{"type":"response.created","sequence_number":0,"response":{"id":"r1","status":"in_progress","output":[]}}`
		respAdded   = `{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"c","name":"f"}}`
		chatTool    = `{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}}]}`
		anthDelta   = `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":1}"}}`
		anthStop    = `{"type":"content_block_stop","index":0}`
	)
	// The event that holds each place, after the events it needs first.
	events := map[string][]string{
		"openai-responses|":                                 {respCreated, respAdded, `{"type":"response.function_call_arguments.delta","sequence_number":2,"item_id":"fc_1","output_index":0,"delta":"{\"a\""}`},
		"openai-responses|response":                         {respCreated},
		"openai-responses|response.usage":                   {respCreated, `{"type":"response.completed","sequence_number":9,"response":{"id":"r1","status":"completed","output":[],"usage":{"input_tokens":1,"output_tokens":2}}}`},
		"openai-responses|response.incomplete_details":      {respCreated, `{"type":"response.incomplete","sequence_number":9,"response":{"id":"r1","status":"incomplete","output":[],"incomplete_details":{"reason":"max_output_tokens"}}}`},
		"openai-responses|response.error":                   {respCreated, `{"type":"response.failed","sequence_number":9,"response":{"id":"r1","status":"failed","output":[],"error":{"code":"server_error","message":"m"}}}`},
		"openai-responses|item":                             {respCreated, respAdded},
		"openai-chat|":                                      {chatTool},
		"openai-chat|choices.*":                             {chatTool},
		"openai-chat|choices.*.delta":                       {chatTool},
		"openai-chat|choices.*.delta.tool_calls.*":          {chatTool},
		"openai-chat|choices.*.delta.tool_calls.*.function": {chatTool},
		"openai-chat|choices.*.delta.function_call":         {`{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"function_call":{"name":"f","arguments":""}}}]}`},
		"anthropic|":                                        {anthOpen, anthBlockOpen, anthDelta},
		"anthropic|delta":                                   {anthOpen, anthBlockOpen, anthDelta},
		"anthropic|message":                                 {anthOpen},
		"anthropic|message.usage":                           {anthOpen},
		"anthropic|content_block":                           {anthOpen, anthBlockOpen},
		"anthropic|usage":                                   {anthOpen, anthBlockOpen, anthStop, `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}`},
		"gemini|":                                           {gemOpen},
		"gemini|candidates.*":                               {gemOpen},
		"gemini|candidates.*.content":                       {gemOpen},
		"gemini|candidates.*.content.parts.*":               {gemOpen},
		"gemini|candidates.*.content.parts.*.functionCall":  {gemOpen},
		"gemini|candidates.*.content.parts.*.functionCall.partialArgs.*": {gemOpen},
		"gemini|promptFeedback": {`{"promptFeedback":{"blockReason":"SAFETY"},"responseId":"r1"}`},
	}
	f, err := os.Open("testdata/providerfields/fields.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var row struct{ Format, Place, Field, Type string }
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("%s: %v", sc.Bytes(), err)
		}
		evs, ok := events[row.Format+"|"+row.Place]
		if !ok {
			t.Fatalf("no event holds %s's place %q", row.Format, row.Place)
		}
		format, err := ParseFormat(row.Format)
		if err != nil {
			t.Fatal(err)
		}
		last := withAt(t, evs[len(evs)-1], row.Place, row.Field, row.Type)
		if last == nil {
			continue // the field is there already: the adapter reads it, or the event has it
		}
		rows++
		var lines [][]byte
		for _, e := range evs[:len(evs)-1] {
			lines = append(lines, []byte(e))
		}
		lines = append(lines, last)
		fast, slow := feedBoth(t, format, lines)
		if fast != slow {
			t.Errorf("%s %q %s%s: the two paths differ:\nFeed:\n%s\nencoding/json's path:\n%s", row.Format, row.Place, row.Field, row.Type, fast, slow)
		}
		if strings.Contains(fast, "one byte off") {
			t.Errorf("%s at %q: %s%s is the provider's own, refused as a corrupted name:\n%s\n%s", row.Format, row.Place, row.Field, row.Type, last, fast)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if rows < 200 {
		t.Fatalf("only %d rows fed: the lists or the places went missing", rows)
	}
}

// withAt returns ev with, at place, the field added (null) or the type
// set; nil when the field is there already (any case).
func withAt(t *testing.T, ev, place, field, typ string) []byte {
	t.Helper()
	var top any
	dec := json.NewDecoder(strings.NewReader(ev))
	dec.UseNumber()
	if err := dec.Decode(&top); err != nil {
		t.Fatal(err)
	}
	at := top
	if place != "" {
		for _, p := range strings.Split(place, ".") {
			if p == "*" {
				at = at.([]any)[0]
			} else {
				at = at.(map[string]any)[p]
			}
		}
	}
	obj := at.(map[string]any)
	if typ != "" {
		obj["type"] = typ
	} else {
		for k := range obj {
			if strings.EqualFold(k, field) {
				return nil
			}
		}
		obj[field] = nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(top); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSpace(b.Bytes())
}
