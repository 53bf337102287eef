package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// typedRespEvent is decodeResponses's encoding/json decode, the scanner's
// reference.
type typedRespEvent struct {
	Type *string `json:"type"`
	respEvent
}

// scanCases are events with the edges a hand-written decoder can get
// wrong. fast says whether the scanner decides the event itself (true) or
// leaves it to encoding/json (false); either way Feed's answer must be
// encoding/json's.
var scanCases = []struct {
	name, raw string
	fast      bool
}{
	{"plain delta", `{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"{\"loc"}`, true},
	{"escaped arguments", `{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":0,"arguments":"{\"q\":\"a\\\\b\\n\\u00e9\\ud83d\\ude00\\/\"}"}`, true},
	{"lone surrogate", `{"type":"response.function_call_arguments.delta","item_id":"fc_1","delta":"\ud800x\udc00"}`, true},
	{"surrogate then other escape", `{"type":"response.function_call_arguments.delta","item_id":"fc_1","delta":"\ud83d\n"}`, true},
	{"invalid utf-8 in a string", "{\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_1\",\"delta\":\"a\xff\xfeb\xed\xa0\x80\"}", true},
	{"invalid utf-8 in a skipped string", "{\"type\":\"response.output_text.delta\",\"item_id\":\"m\",\"delta\":\"x\",\"logprobs\":[\"\xc3\"]}", true},
	{"utf-8 text", `{"type":"response.output_text.delta","item_id":"m","delta":" 18 °C","obfuscation":"x"}`, true},
	{"nulls where objects are read", `{"type":"response.output_item.added","output_index":0,"item":null,"response":null,"error":null}`, true},
	{"null type, response object", `{"type":null,"response":{"id":"r","status":"completed","usage":{"input_tokens":3,"output_tokens":null}}}`, true},
	{"usage and error", `{"type":"response.failed","response":{"id":"r","status":"failed","error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED"},"incomplete_details":{"reason":"x"},"usage":{"input_tokens":1,"output_tokens":2}}}`, true},
	{"error event with code", `{"type":"error","code":"rate_limit","message":"m","sequence_number":3}`, true},
	{"nested skipped values", `{"type":"response.created","sequence_number":0,"response":{"id":"r","tools":[{"a":[1,-2.5e+3,true,false,null,{"b":{}}]}],"x":[]},"z":{}}`, true},
	{"white space everywhere", " \t\r\n{ \"type\" : \"response.output_text.delta\" , \"item_id\" : \"m\" ,\n\"delta\" : \"x\" } \n", true},
	{"string where a string pointer is read", `{"type":"response.output_text.delta","delta":"a"}`, true},

	{"truncated", `{"type":"response.function_call_arguments.delta","item_id":"fc_1","delta":"{\"lo`, false},
	{"truncated after a value", `{"type":"response.output_text.delta","delta":"x",`, false},
	{"trailing garbage", `{"type":"response.output_text.delta","delta":"x"}x`, false},
	{"two objects", `{"type":"response.output_text.delta","delta":"x"}{}`, false},
	{"not an object", `["type"]`, false},
	{"bad escape", `{"type":"response.output_text.delta","delta":"\q"}`, false},
	{"control character in a string", "{\"type\":\"response.output_text.delta\",\"delta\":\"a\tb\"}", false},
	{"huge output index", `{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":123456789012345678901234567890,"delta":"x"}`, false},
	{"fractional output index", `{"type":"response.function_call_arguments.delta","output_index":1.5,"delta":"x"}`, false},
	{"exponent output index", `{"type":"response.function_call_arguments.delta","output_index":1e2,"delta":"x"}`, false},
	{"huge skipped number", `{"type":"response.output_text.delta","delta":"x","n":1234567890123456789012345678901234567890e999}`, true},
	{"leading zero", `{"type":"response.output_text.delta","delta":"x","n":01}`, false},
	{"duplicate delta", `{"type":"response.function_call_arguments.delta","item_id":"fc_1","delta":"a","delta":"b"}`, false},
	{"duplicate item", `{"type":"response.output_item.added","item":{"id":"a","type":"function_call"},"item":{"name":"f"}}`, false},
	{"duplicate key inside item", `{"type":"response.output_item.added","item":{"id":"a","id":"b","type":"function_call"}}`, false},
	{"duplicate unread key", `{"type":"response.output_text.delta","delta":"x","seq":1,"seq":2}`, true},
	{"case-folded key", `{"Type":"response.output_text.delta","delta":"x"}`, false},
	{"case-folded key inside", `{"type":"response.output_item.added","item":{"ID":"a","type":"function_call"}}`, false},
	{"escaped key", `{"\u0074ype":"response.output_text.delta","delta":"x"}`, false},
	{"non-ascii key", `{"type":"response.output_text.delta","delta":"x","ſ":1}`, false},
	{"number where a string is read", `{"type":"response.output_text.delta","item_id":7,"delta":"x"}`, false},
	{"string where an object is read", `{"type":"response.output_item.added","item":"fc_1"}`, false},
	{"object where a string is read", `{"type":{"a":1}}`, false},
	{"type not a string", `{"type":5}`, false},
	{"non-JSON white space", "\v{\"type\":\"response.output_text.delta\",\"delta\":\"x\"}", false},
	{"deep nesting", `{"type":"x","a":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`, false},
	{"empty", ``, false},
	{"bare literal", `null`, false},
}

// TestScanEdges: on every edge case Feed answers as encoding/json's path
// does (the same events or the same typed error), and the scanner decides
// the well-formed ones itself.
func TestScanEdges(t *testing.T) {
	for _, c := range scanCases {
		t.Run(c.name, func(t *testing.T) {
			_, _, ok := scanResponses([]byte(c.raw))
			if ok != c.fast {
				t.Errorf("scanner decides: %v, want %v", ok, c.fast)
			}
			checkScanAgrees(t, []byte(c.raw))
			got, want := feedBoth(t, FormatOpenAIResponses, [][]byte{[]byte(c.raw)})
			if got != want {
				t.Errorf("Feed:\n%s\nencoding/json's path:\n%s", got, want)
			}
		})
	}
}

// feedBoth feeds lines to a normalizer of format f through Feed and to
// another through encoding/json alone, and renders what each made.
func feedBoth(t testing.TB, f Format, lines [][]byte) (fast, slow string) {
	t.Helper()
	var b [2]strings.Builder
	for k, useFast := range []bool{true, false} {
		n := New(Config{Format: f, Stream: "s"})
		for _, l := range lines {
			outs, err := n.feed(l, useFast)
			if err != nil {
				fmt.Fprintf(&b[k], "error %s\n", errKind(err))
				continue
			}
			for _, o := range outs {
				fmt.Fprintf(&b[k], "%s %s %s %T %+v\n", o.Response, o.Item, o.CallID, o.Body, o.Body)
			}
		}
		for _, o := range n.Flush() {
			fmt.Fprintf(&b[k], "flush %s %s %T %+v\n", o.Response, o.Item, o.Body, o.Body)
		}
	}
	return b[0].String(), b[1].String()
}

// errKind names a Feed error by its sentinel and message.
func errKind(err error) string {
	for _, s := range []error{ErrTooLarge, ErrMalformedInput, ErrUnknownShape, ErrUnknownFormat} {
		if errors.Is(err, s) {
			return s.Error() + ": " + err.Error()
		}
	}
	return "unexpected: " + err.Error()
}

// checkScanAgrees fails when the scanner decided raw and encoding/json
// would have decoded it otherwise (or not at all).
func checkScanAgrees(t testing.TB, raw []byte) {
	t.Helper()
	checkChatScanAgrees(t, raw)
	checkAnthScanAgrees(t, raw)
	checkGemScanAgrees(t, raw)
	typ, ev, ok := scanResponses(raw)
	if !ok {
		return
	}
	if !json.Valid(raw) {
		t.Fatalf("scanner took %q, which is not valid JSON", raw)
	}
	var ref typedRespEvent
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatalf("scanner took %q, encoding/json refuses it: %v", raw, err)
	}
	if !reflect.DeepEqual(typ, ref.Type) || !reflect.DeepEqual(*ev, ref.respEvent) {
		t.Fatalf("%q:\nscanner       %s %+v\nencoding/json %s %+v", raw, show(typ), *ev, show(ref.Type), ref.respEvent)
	}
}

func show(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%q", *p)
}

// recordedLines returns every raw event of the recordings in
// testdata/streams, by file.
func recordedLines(t testing.TB) map[string][][]byte {
	t.Helper()
	files, err := filepath.Glob("../../testdata/streams/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings: %v", err)
	}
	out := map[string][][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, EventMax)
		for sc.Scan() {
			if l := bytes.TrimSpace(sc.Bytes()); len(l) > 0 {
				out[filepath.Base(f)] = append(out[filepath.Base(f)], bytes.Clone(l))
			}
		}
	}
	return out
}

// TestScanDecidesRecordedResponses: every event of the recorded Responses
// streams (real providers') is decided by the scanner, as encoding/json
// decodes it, and each stream normalises to the same events both ways.
func TestScanDecidesRecordedResponses(t *testing.T) {
	n := 0
	for file, lines := range recordedLines(t) {
		if !strings.HasPrefix(file, "openai-responses") {
			continue
		}
		for _, l := range lines {
			if _, _, ok := scanResponses(l); !ok {
				t.Errorf("%s: scanner left %s to encoding/json", file, l)
			}
			checkScanAgrees(t, l)
			n++
		}
		if got, want := feedBoth(t, FormatOpenAIResponses, lines); got != want {
			t.Errorf("%s: Feed:\n%s\nencoding/json's path:\n%s", file, got, want)
		}
	}
	if n == 0 {
		t.Fatal("no Responses recordings")
	}
}

// TestUnquoteMatchesEncodingJSON: string bodies with every escape, bad
// surrogates and invalid UTF-8 unquote as encoding/json unquotes them.
func TestUnquoteMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{`"plain"`, `""`, `"\"\\\/\b\f\n\r\t"`, `"\u0041\u00e9\u20ac"`, `"\ud83d\ude00"`,
		`"\ud83d"`, `"\ud83dx"`, `"\udc00\ud800"`, `"\ud83d\u0041"`, "\"\xff\"", "\"a\xc3\"", "\"\xed\xa0\x80\"", `"é €"`} {
		checkUnquote(t, []byte(s))
	}
}

func checkUnquote(t testing.TB, raw []byte) {
	t.Helper()
	s := &scanner{b: raw}
	if len(raw) == 0 || raw[0] != '"' {
		return
	}
	end, plain := s.str(0)
	if end != len(raw) {
		return
	}
	var want string
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatalf("scanner took string %q, encoding/json refuses it: %v", raw, err)
	}
	if got := unquoteBody(raw[1:end-1], plain); got != want {
		t.Fatalf("%q: unquoted %q, encoding/json %q", raw, got, want)
	}
}

// FuzzScanMatchesEncodingJSON checks the scanner against encoding/json on
// random input: whatever it decides, encoding/json decodes the same way;
// Feed makes the same events or the same typed error as encoding/json's
// path; a string it takes unquotes to encoding/json's value.
func FuzzScanMatchesEncodingJSON(f *testing.F) {
	for _, c := range scanCases {
		f.Add([]byte(c.raw))
	}
	for _, lines := range recordedLines(f) {
		for _, l := range lines {
			f.Add(l)
		}
	}
	for _, c := range chatScanCases {
		f.Add([]byte(c.raw))
	}
	for _, c := range anthScanCases {
		f.Add([]byte(c.raw))
	}
	for _, c := range gemScanCases {
		f.Add([]byte(c.raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkScanAgrees(t, raw)
		checkUnquote(t, raw)
		checkStringText(t, raw)
		checkTopHasType(t, raw)
		checkScanInts(t, raw)
		lines := [][]byte{
			[]byte(`{"type":"response.created","response":{"id":"r"}}`),
			[]byte(`{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"c","name":"f"}}`),
			raw,
		}
		if got, want := feedBoth(t, FormatOpenAIResponses, lines); got != want {
			t.Fatalf("%q: Feed:\n%s\nencoding/json's path:\n%s", raw, got, want)
		}
		chat := [][]byte{[]byte(`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":""}}]}}]}`), raw}
		if got, want := feedBoth(t, FormatOpenAIChat, chat); got != want {
			t.Fatalf("%q: Feed (chat):\n%s\nencoding/json's path:\n%s", raw, got, want)
		}
		anth := [][]byte{[]byte(anthOpen), []byte(anthBlockOpen), raw}
		if got, want := feedBoth(t, FormatAnthropic, anth); got != want {
			t.Fatalf("%q: Feed (anthropic):\n%s\nencoding/json's path:\n%s", raw, got, want)
		}
		gem := [][]byte{[]byte(gemOpen), raw}
		if got, want := feedBoth(t, FormatGemini, gem); got != want {
			t.Fatalf("%q: Feed (gemini):\n%s\nencoding/json's path:\n%s", raw, got, want)
		}
	})
}

// chatScanCases are scanCases for Chat Completions chunks.
var chatScanCases = []struct {
	name, raw string
	fast      bool
}{
	{"tool call delta", `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":1"}}]},"logprobs":null,"finish_reason":null}]}`, true},
	{"opening call", `{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}}]}`, true},
	{"arguments as an object", `{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":{"a": [1, 2]}}}]}}]}`, true},
	{"content parts", `{"id":"c","choices":[{"index":0,"delta":{"content":[{"type":"text","text":"hi"}]}}]}`, true},
	{"finish and usage", `{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":4}}`, true},
	{"usage only", `{"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":3}}`, true},
	{"null choices", `{"id":"c","choices":null,"error":{"message":"x","code":500}}`, true},
	{"null elements", `{"id":"c","choices":[null,{"index":1,"delta":{"tool_calls":[null]}}]}`, true},
	{"empty tool calls", `{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[]}}]}`, true},
	{"legacy function call", `{"id":"c","choices":[{"index":0,"delta":{"function_call":{"name":"f","arguments":"{}"}}}]}`, true},
	{"whole completion", `{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`, true},
	{"no choices", `{"id":"c","model":"m"}`, true},

	{"choices not an array", `{"id":"c","choices":{"index":0}}`, false},
	{"choice not an object", `{"id":"c","choices":[1]}`, false},
	{"tool call not an object", `{"id":"c","choices":[{"delta":{"tool_calls":["x"]}}]}`, false},
	{"fractional index", `{"id":"c","choices":[{"index":0.5,"delta":{}}]}`, false},
	{"huge tool index", `{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":99999999999999999999}]}}]}`, false},
	{"duplicate choices", `{"id":"c","choices":[],"choices":[{"index":0}]}`, false},
	{"duplicate arguments", `{"id":"c","choices":[{"delta":{"tool_calls":[{"function":{"arguments":"a","arguments":"b"}}]}}]}`, false},
	{"case-folded key", `{"id":"c","Choices":[]}`, false},
	{"truncated", `{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a`, false},
	{"id not a string", `{"id":1,"choices":[]}`, false},
	{"name null", `{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":null,"function":{"name":null,"arguments":null}}]}}]}`, true},
}

// TestChatScanEdges is TestScanEdges for Chat Completions.
func TestChatScanEdges(t *testing.T) {
	open := []byte(`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":""}}]}}]}`)
	for _, c := range chatScanCases {
		t.Run(c.name, func(t *testing.T) {
			if _, ok := scanChat([]byte(c.raw)); ok != c.fast {
				t.Errorf("scanner decides: %v, want %v", ok, c.fast)
			}
			checkChatScanAgrees(t, []byte(c.raw))
			got, want := feedBoth(t, FormatOpenAIChat, [][]byte{open, []byte(c.raw)})
			if got != want {
				t.Errorf("Feed:\n%s\nencoding/json's path:\n%s", got, want)
			}
		})
	}
}

// checkChatScanAgrees is checkScanAgrees for scanChat.
func checkChatScanAgrees(t testing.TB, raw []byte) {
	t.Helper()
	c, ok := scanChat(raw)
	if !ok {
		return
	}
	var ref chatChunk
	if !json.Valid(raw) {
		t.Fatalf("chat scanner took %q, which is not valid JSON", raw)
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatalf("chat scanner took %q, encoding/json refuses it: %v", raw, err)
	}
	if !reflect.DeepEqual(*c, ref) {
		t.Fatalf("%q:\nscanner       %s\nencoding/json %s", raw, dump(*c), dump(ref))
	}
}

// dump renders a decoded value with its pointers followed.
func dump(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestScanDecidesRecordedChat: every event of the recorded Chat
// Completions streams is decided by the scanner as encoding/json decodes
// it, and each stream normalises to the same events both ways.
func TestScanDecidesRecordedChat(t *testing.T) {
	n := 0
	for file, lines := range recordedLines(t) {
		if !strings.HasPrefix(file, "openai-chat") {
			continue
		}
		for _, l := range lines {
			if _, ok := scanChat(l); !ok {
				t.Errorf("%s: scanner left %s to encoding/json", file, l)
			}
			checkChatScanAgrees(t, l)
			n++
		}
		if got, want := feedBoth(t, FormatOpenAIChat, lines); got != want {
			t.Errorf("%s: Feed:\n%s\nencoding/json's path:\n%s", file, got, want)
		}
	}
	if n == 0 {
		t.Fatal("no Chat recordings")
	}
}

const (
	anthOpen      = `{"type":"message_start","message":{"id":"msg_1","model":"claude","usage":{"input_tokens":5,"output_tokens":1}}}`
	anthBlockOpen = `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}`
)

// anthScanCases are scanCases for Anthropic events.
var anthScanCases = []struct {
	name, raw string
	fast      bool
}{
	{"message start", anthOpen, true},
	{"block start", anthBlockOpen, true},
	{"input json delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Par"}}`, true},
	{"text delta", `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hé \u00e9"}}`, true},
	{"block stop", `{"type":"content_block_stop","index":0}`, true},
	{"message delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":42,"cache_read_input_tokens":null}}`, true},
	{"message stop", `{"type":"message_stop"}`, true},
	{"ping", `{"type":"ping"}`, true},
	{"error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, true},
	{"unknown type", `{"type":"content_block_thinking","index":"x"}`, false},
	{"no type", `{"index":0}`, true},
	{"null type", `{"type":null,"index":0}`, true},
	{"start without block", `{"type":"content_block_start","index":0,"content_block":null}`, true},
	{"index not a number", `{"type":"content_block_stop","index":"0"}`, false},
	{"huge index", `{"type":"content_block_stop","index":1e3}`, false},
	{"delta not an object", `{"type":"content_block_delta","index":0,"delta":"x"}`, false},
	{"duplicate partial json", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"a","partial_json":"b"}}`, false},
	{"case-folded key", `{"type":"content_block_delta","Index":0,"delta":{}}`, false},
	{"truncated", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"ci`, false},
	{"type not a string", `{"type":1}`, false},
}

// TestAnthScanEdges is TestScanEdges for Anthropic.
func TestAnthScanEdges(t *testing.T) {
	for _, c := range anthScanCases {
		t.Run(c.name, func(t *testing.T) {
			if _, _, ok := scanAnthropic([]byte(c.raw)); ok != c.fast {
				t.Errorf("scanner decides: %v, want %v", ok, c.fast)
			}
			checkAnthScanAgrees(t, []byte(c.raw))
			got, want := feedBoth(t, FormatAnthropic, [][]byte{[]byte(anthOpen), []byte(anthBlockOpen), []byte(c.raw)})
			if got != want {
				t.Errorf("Feed:\n%s\nencoding/json's path:\n%s", got, want)
			}
		})
	}
}

// checkAnthScanAgrees is checkScanAgrees for scanAnthropic: the event's
// type as decodeAnthropic's first decode reads it, the event as its
// second.
func checkAnthScanAgrees(t testing.TB, raw []byte) {
	t.Helper()
	typ, ev, ok := scanAnthropic(raw)
	if !ok {
		return
	}
	if !json.Valid(raw) {
		t.Fatalf("anthropic scanner took %q, which is not valid JSON", raw)
	}
	var env struct {
		Type *string `json:"type"`
	}
	var ref anthEvent
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatalf("anthropic scanner took %q, encoding/json refuses it: %v", raw, err)
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatalf("anthropic scanner took %q, encoding/json refuses it: %v", raw, err)
	}
	if !reflect.DeepEqual(typ, env.Type) || !reflect.DeepEqual(*ev, ref) {
		t.Fatalf("%q:\nscanner       %s %s\nencoding/json %s %s", raw, show(typ), dump(*ev), show(env.Type), dump(ref))
	}
}

// TestScanDecidesRecordedAnthropic: every event of the recorded Anthropic
// streams is decided by the scanner as encoding/json decodes it, and each
// stream normalises to the same events both ways.
func TestScanDecidesRecordedAnthropic(t *testing.T) {
	n := 0
	for file, lines := range recordedLines(t) {
		if !strings.HasPrefix(file, "anthropic") {
			continue
		}
		for _, l := range lines {
			if _, _, ok := scanAnthropic(l); !ok {
				t.Errorf("%s: scanner left %s to encoding/json", file, l)
			}
			checkAnthScanAgrees(t, l)
			n++
		}
		if got, want := feedBoth(t, FormatAnthropic, lines); got != want {
			t.Errorf("%s: Feed:\n%s\nencoding/json's path:\n%s", file, got, want)
		}
	}
	if n == 0 {
		t.Fatal("no Anthropic recordings")
	}
}

const gemOpen = `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.city","stringValue":"Par","willContinue":true}],"willContinue":true}}]},"index":0}],"responseId":"r1","modelVersion":"gemini-3"}`

// gemScanCases are scanCases for Gemini chunks.
var gemScanCases = []struct {
	name, raw string
	fast      bool
}{
	{"streamed args", gemOpen, true},
	{"partial values", `{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.n","numberValue":1.5e3},{"jsonPath":"$.b","boolValue":false},{"jsonPath":"$.z","nullValue":null},{"jsonPath":"$.s","stringValue":"is \"x\""}],"willContinue":true}}]},"index":0}],"responseId":"r1"}`, true},
	{"closing call and finish", `{"candidates":[{"content":{"parts":[{"functionCall":{}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":4},"responseId":"r1"}`, true},
	{"whole call", `{"candidates":[{"content":{"parts":[{"functionCall":{"id":"c1","name":"f","args":{"a":[1,{"b":null}]}}}]},"index":0}]}`, true},
	{"text and thought", `{"candidates":[{"content":{"parts":[{"text":"hmm","thought":true},{"text":"Hé"}]}}]}`, true},
	{"blocked prompt", `{"promptFeedback":{"blockReason":"SAFETY"},"responseId":"r1"}`, true},
	{"error", `{"error":{"code":429,"message":"slow","status":"RESOURCE_EXHAUSTED"}}`, true},
	{"empty and null lists", `{"candidates":[{"content":{"parts":[]},"index":0},null],"responseId":"r1"}`, true},
	{"null candidates", `{"candidates":null,"modelVersion":"m"}`, true},
	{"nothing known", `{"foo":1}`, true},

	{"candidates not a list", `{"candidates":{"index":0}}`, false},
	{"thought not a bool", `{"candidates":[{"content":{"parts":[{"text":"x","thought":"yes"}]}}]}`, false},
	{"bool value a string", `{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.b","boolValue":"true"}]}}]}}]}`, false},
	{"fractional index", `{"candidates":[{"index":0.5}]}`, false},
	{"case-folded key", `{"responseid":"r1","candidates":[]}`, false},
	{"duplicate parts", `{"candidates":[{"content":{"parts":[],"parts":[{"text":"x"}]}}]}`, false},
	{"truncated", `{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.city","stringValue":"Pa`, false},
	{"error not an object", `{"error":"boom"}`, false},
}

// TestGemScanEdges is TestScanEdges for Gemini.
func TestGemScanEdges(t *testing.T) {
	for _, c := range gemScanCases {
		t.Run(c.name, func(t *testing.T) {
			if _, ok := scanGemini([]byte(c.raw)); ok != c.fast {
				t.Errorf("scanner decides: %v, want %v", ok, c.fast)
			}
			checkGemScanAgrees(t, []byte(c.raw))
			got, want := feedBoth(t, FormatGemini, [][]byte{[]byte(gemOpen), []byte(c.raw)})
			if got != want {
				t.Errorf("Feed:\n%s\nencoding/json's path:\n%s", got, want)
			}
		})
	}
}

// checkGemScanAgrees is checkScanAgrees for scanGemini.
func checkGemScanAgrees(t testing.TB, raw []byte) {
	t.Helper()
	c, ok := scanGemini(raw)
	if !ok {
		return
	}
	if !json.Valid(raw) {
		t.Fatalf("gemini scanner took %q, which is not valid JSON", raw)
	}
	var ref gemChunk
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatalf("gemini scanner took %q, encoding/json refuses it: %v", raw, err)
	}
	if !reflect.DeepEqual(*c, ref) {
		t.Fatalf("%q:\nscanner       %s\nencoding/json %s", raw, dump(*c), dump(ref))
	}
}

// TestScanDecidesRecordedGemini: every event of the recorded Gemini
// stream is decided by the scanner as encoding/json decodes it, and the
// stream normalises to the same events both ways.
func TestScanDecidesRecordedGemini(t *testing.T) {
	n := 0
	for file, lines := range recordedLines(t) {
		if !strings.Contains(file, "gemini") {
			continue
		}
		for _, l := range lines {
			if _, ok := scanGemini(l); !ok {
				t.Errorf("%s: scanner left %s to encoding/json", file, l)
			}
			checkGemScanAgrees(t, l)
			n++
		}
		if got, want := feedBoth(t, FormatGemini, lines); got != want {
			t.Errorf("%s: Feed:\n%s\nencoding/json's path:\n%s", file, got, want)
		}
	}
	if n == 0 {
		t.Fatal("no Gemini recordings")
	}
}

// checkStringText checks stringText against json.Unmarshal into a string
// for raw as a string value: the same value, or "" where encoding/json
// refuses it.
func checkStringText(t *testing.T, raw []byte) {
	t.Helper()
	if len(raw) == 0 || raw[0] != '"' {
		return
	}
	var want string
	if json.Unmarshal(raw, &want) != nil {
		want = ""
	}
	if got := stringText(raw); got != want {
		t.Fatalf("%q: stringText %q, encoding/json %q", raw, got, want)
	}
}

// TestStringTextMatchesEncodingJSON: the text deltas and argument
// fragments the adapters read from raw values (fragmentText, scalarText)
// are unquoted by the scanner, not json.Unmarshal; each case is one where
// an unquoter could differ from encoding/json.
func TestStringTextMatchesEncodingJSON(t *testing.T) {
	for _, raw := range []string{
		`""`, `"plain"`, `"a\"b"`, `"\u00e9\n\t\/"`, `"caf\u00e9 é"`,
		`"\ud83d\ude00"`, `"\ud83d"`, `"\ude00x"`, `"\ud83d\u0041"`, `"\ud83d\ud83d\ude00"`,
		"\"\xff\xfe\"", "\"\xe2\x82\"", "\"a\x00b\"", `"tail" `, `"tail" x`, `"a""b"`,
		`"unterminated`, `"bad \x escape"`, `"\u12"`, `"\u12g4"`, `"`, `"\"`,
	} {
		checkStringText(t, []byte(raw))
	}
}

// checkTopHasType checks topHasType against decoding raw into a map with
// encoding/json (what injectType did for every named event).
func checkTopHasType(t *testing.T, raw []byte) {
	t.Helper()
	var top map[string]json.RawMessage
	wantOK := json.Unmarshal(raw, &top) == nil
	_, wantType := top["type"]
	if gotType, gotOK := topHasType(raw); gotOK != wantOK || gotOK && gotType != wantType {
		t.Fatalf("%q: topHasType %v, %v; encoding/json %v, %v", raw, gotType, gotOK, wantType, wantOK)
	}
}

// TestTopHasTypeMatchesEncodingJSON: a named server-sent event gets its
// name as "type" exactly when encoding/json finds no top-level "type" key.
func TestTopHasTypeMatchesEncodingJSON(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 300) + "1" + strings.Repeat("}", 300)
	for _, raw := range []string{
		`{}`, `{"type":"x"}`, `{"a":{"type":"x"}}`, `{"Type":"x"}`, `{"\u0074ype":"x"}`,
		`{"a":1,"type":null}`, `{"type":1,"type":2}`, ` {"type":"x"} `, `{"a":[{"type":1}]}`,
		`{"a":`, `{"a":1}x`, `[1]`, `null`, `{"a":1,}`, `{"typ\u00e9":1}`, deep,
		`{"b":1,` + deep[1:],
	} {
		checkTopHasType(t, []byte(raw))
	}
}

// checkScanInts checks scanInts, where it answers, against encoding/json
// decoding raw into Gemini's usage fields.
func checkScanInts(t *testing.T, raw []byte) {
	t.Helper()
	var got [3]*int64
	if !scanInts(raw, gemUsageNames, []**int64{&got[0], &got[1], &got[2]}) {
		return
	}
	var want struct {
		Prompt     *int64 `json:"promptTokenCount"`
		Candidates *int64 `json:"candidatesTokenCount"`
		Thoughts   *int64 `json:"thoughtsTokenCount"`
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatalf("%q: scanInts took it, encoding/json refuses it: %v", raw, err)
	}
	for i, w := range []*int64{want.Prompt, want.Candidates, want.Thoughts} {
		if (got[i] == nil) != (w == nil) || w != nil && *got[i] != *w {
			t.Fatalf("%q: field %s: scanInts %v, encoding/json %v", raw, gemUsageNames[i], got[i], w)
		}
	}
}

// TestScanIntsMatchesEncodingJSON: Gemini's usageMetadata, on most
// chunks, is read by the scanner as encoding/json reads it, or left to it.
func TestScanIntsMatchesEncodingJSON(t *testing.T) {
	for _, c := range []struct {
		raw  string
		fast bool
	}{
		{`{"promptTokenCount":3,"candidatesTokenCount":4,"totalTokenCount":7}`, true},
		{`{"promptTokenCount":null,"thoughtsTokenCount":-2,"promptTokensDetails":[{"modality":"TEXT","tokenCount":3}]}`, true},
		{`{}`, true},
		{`{"promptTokenCount":3.5}`, false},
		{`{"promptTokenCount":"3"}`, false},
		{`{"PromptTokenCount":3}`, false},
		{`{"promptTokenCount":1,"promptTokenCount":2}`, false},
		{`{"promptTokenCount":99999999999999999999}`, false},
		{`{"promptTokenCount":1`, false},
	} {
		var d [3]*int64
		if ok := scanInts([]byte(c.raw), gemUsageNames, []**int64{&d[0], &d[1], &d[2]}); ok != c.fast {
			t.Errorf("%s: scanner decides %v, want %v", c.raw, ok, c.fast)
		}
		checkScanInts(t, []byte(c.raw))
	}
}
