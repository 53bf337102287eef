package ingest

import (
	"strings"
	"testing"
)

// A key one byte off a field the adapter reads at its place is a
// corrupted name, not a field the provider added: the event is refused
// (ErrUnknownShape), on the scanner's path and on encoding/json's alike,
// instead of passed over with the call's bytes in it. A new field, a
// field of another place and a case variant (encoding/json's matching)
// are read as before.
//
// The same holds for a type one byte off a type the adapter reads at its
// place (an event's, a Responses item's, an Anthropic block's or delta's),
// and for a byte changed into one that is not UTF-8 or into an escape
// (FuzzPipeline: "response\xf2function_call_arguments.delta" was passed
// over as a new event type, "fun9tion_call" as a new item type).
func TestAMisspeltFieldIsRefused(t *testing.T) {
	const respCreated = `{"type":"response.created","sequence_number":0,"response":{"id":"r1","status":"in_progress","output":[]}}` + "\n" +
		`{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"c","name":"f"}}`
	const chatOpen = `{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}}]}`
	for _, tc := range []struct {
		name    string
		f       Format
		open    string
		raw     string
		refused bool
	}{
		{"gemini content", FormatGemini, gemOpen, `{"candidates":[{"conYent":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.city","stringValue":"is","willContinue":true}],"willContinue":true}}]},"index":0}],"responseId":"r1"}`, true},
		{"gemini partialArgs", FormatGemini, gemOpen, `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgz":[{"jsonPath":"$.city","stringValue":"is","willContinue":true}],"willContinue":true}}]},"index":0}],"responseId":"r1"}`, true},
		{"gemini stringValue", FormatGemini, gemOpen, `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.city","strinXValue":"is","willContinue":true}],"willContinue":true}}]},"index":0}],"responseId":"r1"}`, true},
		{"gemini a new field", FormatGemini, gemOpen, `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.city","stringValue":"is","willContinue":true}],"willContinue":true}}]},"index":0,"safetyRatings":[]}],"responseId":"r1"}`, false},
		{"chat arguments", FormatOpenAIChat, chatOpen, `{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"argumentX":"{\"a\":1}"}}]}}]}`, true},
		{"chat a new field", FormatOpenAIChat, chatOpen, `{"id":"c1","object":"chat.completion.chunk","model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":1}"}}]}}]}`, false},
		{"anthropic partial_json", FormatAnthropic, anthOpen + "\n" + anthBlockOpen, `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_jsoX":"{\"a\":1}"}}`, true},
		{"anthropic delta", FormatAnthropic, anthOpen + "\n" + anthBlockOpen, `{"type":"content_block_delta","index":0,"deltX":{"type":"input_json_delta","partial_json":"{\"a\":1}"}}`, true},
		{"responses delta", FormatOpenAIResponses, `{"type":"response.created","sequence_number":0,"response":{"id":"r1","status":"in_progress","output":[]}}`, `{"type":"response.function_call_arguments.delta","sequence_number":2,"item_id":"fc_1","output_index":0,"deltX":"{\"a\""}`, true},
		{"responses type", FormatOpenAIResponses, respCreated, `{"type":"response.function_call_arguments.delts","sequence_number":2,"item_id":"fc_1","output_index":0,"delta":"{\"a\""}`, true},
		{"responses type with a byte not UTF-8", FormatOpenAIResponses, respCreated, "{\"type\":\"response\xf2function_call_arguments.delta\",\"sequence_number\":2,\"item_id\":\"fc_1\",\"output_index\":0,\"delta\":\"x\"}", true},
		{"responses type with an escape", FormatOpenAIResponses, respCreated, `{"type":"response.output_\text.delta","sequence_number":2,"item_id":"m_1","output_index":0,"delta":"x"}`, true},
		{"responses item type", FormatOpenAIResponses, respCreated, `{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"fc_1","type":"fun9tion_call","status":"in_progress","arguments":"","call_id":"c","name":"f"}}`, true},
		{"responses a new type", FormatOpenAIResponses, respCreated, `{"type":"response.output_text.annotation.added","sequence_number":2}`, false},
		{"anthropic type", FormatAnthropic, anthOpen + "\n" + anthBlockOpen, `{"type":"content_block_delte","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":1}"}}`, true},
		{"anthropic delta type", FormatAnthropic, anthOpen + "\n" + anthBlockOpen, `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delte","partial_json":"{\"a\":1}"}}`, true},
		{"anthropic block type", FormatAnthropic, anthOpen, `{"type":"content_block_start","index":0,"content_block":{"type":"tool_usd","id":"toolu_1","name":"f","input":{}}}`, true},
		{"anthropic a thinking delta", FormatAnthropic, anthOpen + "\n" + anthBlockOpen, `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}`, false},
		{"gemini key with a byte not UTF-8", FormatGemini, gemOpen, "{\"candidates\":[{\"conte\xf2t\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.city\",\"stringValue\":\"is\",\"willContinue\":true}],\"willContinue\":true}}]},\"index\":0}],\"responseId\":\"r1\"}", true},
		{"gemini key with an escape", FormatGemini, gemOpen, `{"candidates":[{"co\tent":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.city","stringValue":"is","willContinue":true}],"willContinue":true}}]},"index":0}],"responseId":"r1"}`, true},
		{"chat arguments in a cut chunk", FormatOpenAIChat, chatOpen, `{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"argumentX":"{\"a\":1}"}}]}}]`, false},
		{"a case variant", FormatGemini, gemOpen, `{"candidates":[{"Content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.city","stringValue":"is","willContinue":true}],"willContinue":true}}]},"index":0}],"responseId":"r1"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var lines [][]byte
			for _, l := range strings.Split(tc.open, "\n") {
				lines = append(lines, []byte(l))
			}
			lines = append(lines, []byte(tc.raw))
			fast, slow := feedBoth(t, tc.f, lines)
			if fast != slow {
				t.Fatalf("the two paths differ:\nFeed:\n%s\nencoding/json's path:\n%s", fast, slow)
			}
			if refused := strings.Contains(fast, "error "+ErrUnknownShape.Error()) && strings.Contains(fast, "one byte off"); refused != tc.refused {
				t.Fatalf("refused %v, want %v:\n%s", refused, tc.refused, fast)
			}
		})
	}
}
