package ingest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/ingest"
)

// wholeOf folds a recorded stream back into the non-streamed object the
// provider would have answered instead, for each format StreamEventsOf
// converts.
// A stream that carries several responses gives one object per response.
func wholeOf() map[ingest.Format]func(t *testing.T, lines [][]byte) [][]byte {
	return map[ingest.Format]func(t *testing.T, lines [][]byte) [][]byte{
		ingest.FormatOpenAIChat:      wholeChat,
		ingest.FormatAnthropic:       wholeAnthropic,
		ingest.FormatOpenAIResponses: wholeResponses,
	}
}

func unmarshalT(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
}

func marshalT(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func wholeChat(t *testing.T, lines [][]byte) [][]byte {
	type call struct {
		ID       string         `json:"id,omitempty"`
		Type     string         `json:"type"`
		Function map[string]any `json:"function"`
	}
	type choice struct {
		content   *string
		calls     []*call
		byIndex   map[int]*call
		finish    any
		seenFirst bool
	}
	var base map[string]any
	var usage any
	choices := map[int]*choice{}
	var order []int
	for _, l := range lines {
		var c struct {
			Choices []struct {
				Index int `json:"index"`
				Delta struct {
					Content   *string `json:"content"`
					ToolCalls []struct {
						Index    int    `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage any `json:"usage"`
		}
		unmarshalT(t, l, &c)
		if base == nil {
			unmarshalT(t, l, &base)
		}
		if c.Usage != nil {
			usage = c.Usage
		}
		for _, ch := range c.Choices {
			st := choices[ch.Index]
			if st == nil {
				st = &choice{byIndex: map[int]*call{}}
				choices[ch.Index] = st
				order = append(order, ch.Index)
			}
			if ch.Delta.Content != nil {
				s := ""
				if st.content != nil {
					s = *st.content
				}
				s += *ch.Delta.Content
				st.content = &s
			}
			for _, tc := range ch.Delta.ToolCalls {
				k := st.byIndex[tc.Index]
				if k == nil || tc.ID != "" && k.ID != "" && tc.ID != k.ID {
					k = &call{ID: tc.ID, Type: "function", Function: map[string]any{"name": "", "arguments": ""}}
					st.byIndex[tc.Index] = k
					st.calls = append(st.calls, k)
				}
				if k.ID == "" {
					k.ID = tc.ID
				}
				if tc.Function.Name != "" {
					k.Function["name"] = tc.Function.Name
				}
				k.Function["arguments"] = k.Function["arguments"].(string) + tc.Function.Arguments
			}
			if ch.FinishReason != nil {
				st.finish = *ch.FinishReason
			}
		}
	}
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	out["object"] = "chat.completion"
	var cs []any
	for _, i := range order {
		st := choices[i]
		msg := map[string]any{"role": "assistant", "content": st.content}
		if len(st.calls) > 0 {
			msg["tool_calls"] = st.calls
		}
		cs = append(cs, map[string]any{"index": i, "message": msg, "finish_reason": st.finish})
	}
	out["choices"] = cs
	if usage != nil {
		out["usage"] = usage
	}
	return [][]byte{marshalT(t, out)}
}

func wholeAnthropic(t *testing.T, lines [][]byte) [][]byte {
	var msg map[string]any
	var blocks []map[string]any
	partial := map[int]string{}
	for _, l := range lines {
		var ev struct {
			Type         string          `json:"type"`
			Message      map[string]any  `json:"message"`
			Index        int             `json:"index"`
			ContentBlock map[string]any  `json:"content_block"`
			Delta        map[string]any  `json:"delta"`
			Usage        map[string]any  `json:"usage"`
			Raw          json.RawMessage `json:"-"`
		}
		unmarshalT(t, l, &ev)
		switch ev.Type {
		case "message_start":
			msg = ev.Message
		case "content_block_start":
			for len(blocks) <= ev.Index {
				blocks = append(blocks, nil)
			}
			blocks[ev.Index] = ev.ContentBlock
		case "content_block_delta":
			b := blocks[ev.Index]
			switch ev.Delta["type"] {
			case "text_delta":
				b["text"] = b["text"].(string) + ev.Delta["text"].(string)
			case "input_json_delta":
				partial[ev.Index] += ev.Delta["partial_json"].(string)
			}
		case "message_delta":
			for k, v := range ev.Delta {
				msg[k] = v
			}
			u, _ := msg["usage"].(map[string]any)
			for k, v := range ev.Usage {
				u[k] = v
			}
		}
	}
	for i, p := range partial {
		if p != "" {
			var in any
			unmarshalT(t, []byte(p), &in)
			blocks[i]["input"] = in
		}
	}
	msg["content"] = blocks
	return [][]byte{marshalT(t, msg)}
}

func wholeResponses(t *testing.T, lines [][]byte) [][]byte {
	var last [][]byte
	for _, l := range lines {
		var ev struct {
			Response json.RawMessage `json:"response"`
		}
		unmarshalT(t, l, &ev)
		var r struct {
			Status string `json:"status"`
		}
		if ev.Response != nil {
			unmarshalT(t, ev.Response, &r)
			if r.Status != "in_progress" && r.Status != "queued" {
				last = append(last, ev.Response)
			}
		}
	}
	if last == nil {
		t.Fatal("no finished response in the stream")
	}
	return last
}

// modelEvents normalises lines and renders the model events with the
// adjacent deltas joined.
func modelEvents(t *testing.T, f ingest.Format, lines [][]byte) []string {
	t.Helper()
	n := ingest.New(ingest.Config{Format: f, Stream: "s"})
	res := merged(feedAll(t, n, lines))
	quotedJSON := regexp.MustCompile(`(delta|args)="(?:[^"\\]|\\.)*"`) // a rendered event's arguments
	for i, l := range res {
		res[i] = quotedJSON.ReplaceAllStringFunc(l, compactQuoted)
	}
	return res
}

// compactQuoted compacts the JSON text of name="…" (the streamed form
// has the provider's spacing, the whole object's input is re-encoded).
func compactQuoted(s string) string {
	name, q, _ := strings.Cut(s, "=")
	v, err := strconv.Unquote(q)
	if err != nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, []byte(v)) != nil {
		return s
	}
	return name + "=" + strconv.Quote(b.String())
}

// TestStreamEventsOfRecordings: for every recorded stream of a format with a
// conversion, the non-streamed object it corresponds to, converted, yields
// the same model events as the stream, and so does the object indented
// over lines (a provider's pretty-printed answer): each event it becomes
// is one line of valid JSON.
func TestStreamEventsOfRecordings(t *testing.T) {
	tested, wholes := map[ingest.Format]int{}, wholeOf()
	for _, e := range loadManifest(t) {
		f, err := ingest.ParseFormat(e.Provider)
		if err != nil || wholes[f] == nil {
			continue
		}
		t.Run(e.File, func(t *testing.T) {
			lines := readLines(t, filepath.Join(streamsDir, e.File))
			var conv [][]byte
			for _, body := range wholes[f](t, lines) {
				evs, err := ingest.StreamEventsOf(f, body)
				if err != nil {
					t.Fatalf("StreamEventsOf: %v\n%s", err, body)
				}
				conv = append(conv, evs...)
			}
			want, got := modelEvents(t, f, lines), modelEvents(t, f, conv)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("model events of the converted answer:\n%s\nwant (streamed):\n%s\nconverted:\n%s",
					strings.Join(got, "\n"), strings.Join(want, "\n"), joinLines(conv))
			}
			var indented [][]byte
			for _, body := range wholes[f](t, lines) {
				var b bytes.Buffer
				if err := json.Indent(&b, body, "", "  "); err != nil {
					t.Fatal(err)
				}
				evs, err := ingest.StreamEventsOf(f, b.Bytes())
				if err != nil {
					t.Fatalf("StreamEventsOf of the indented answer: %v", err)
				}
				for _, ev := range evs {
					if bytes.IndexByte(ev, '\n') >= 0 || !json.Valid(ev) {
						t.Fatalf("an event of the indented answer is not one line of JSON: %q", ev)
					}
				}
				indented = append(indented, evs...)
			}
			if got := modelEvents(t, f, indented); !reflect.DeepEqual(got, want) {
				t.Errorf("model events of the indented answer:\n%s\nwant (streamed):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
		tested[f]++
	}
	for f := range wholes {
		if tested[f] == 0 {
			t.Errorf("no recording of %s", f)
		}
	}
}

func joinLines(ls [][]byte) string {
	s := make([]string, len(ls))
	for i, l := range ls {
		s[i] = string(l)
	}
	return strings.Join(s, "\n")
}

// TestStreamEventsOfBadInput: what is not a whole answer of the format is
// bad input.
func TestStreamEventsOfBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		f    ingest.Format
		body string
		want error
	}{
		{"not JSON", ingest.FormatOpenAIChat, `{"id":`, ingest.ErrMalformedInput},
		{"array", ingest.FormatAnthropic, `[]`, ingest.ErrMalformedInput},
		{"empty", ingest.FormatOpenAIChat, ``, ingest.ErrMalformedInput},
		{"blank", ingest.FormatOpenAIChat, " \n\t", ingest.ErrMalformedInput},
		{"a string", ingest.FormatOpenAIChat, ` "chat.completion" `, ingest.ErrMalformedInput},
		{"an object and more", ingest.FormatOpenAIChat, `{"object":"chat.completion","choices":[]} {}`, ingest.ErrMalformedInput},
		{"too large", ingest.FormatOpenAIChat, `{"object":"chat.completion","choices":[],"pad":"` + strings.Repeat("x", ingest.EventMax) + `"}`, ingest.ErrTooLarge},
		// Members are the format's as it spells them: json.Unmarshal
		// into a struct would take "Choices" for choices.
		{"chat choices spelt otherwise", ingest.FormatOpenAIChat, `{"object":"chat.completion","Choices":[{"index":0,"message":{"role":"assistant","content":"hi"}}]}`, ingest.ErrUnknownShape},
		{"chat without choices", ingest.FormatOpenAIChat, `{"id":"x","object":"chat.completion"}`, ingest.ErrUnknownShape},
		{"chat chunk", ingest.FormatOpenAIChat, `{"object":"chat.completion.chunk","choices":[]}`, ingest.ErrUnknownShape},
		{"chat choice without message", ingest.FormatOpenAIChat, `{"object":"chat.completion","choices":[{"index":0}]}`, ingest.ErrUnknownShape},
		{"chat choices of the wrong type", ingest.FormatOpenAIChat, `{"object":"chat.completion","choices":{}}`, ingest.ErrUnknownShape},
		{"an event, not a message", ingest.FormatAnthropic, `{"type":"message_start","message":{}}`, ingest.ErrUnknownShape},
		{"message block without type", ingest.FormatAnthropic, `{"type":"message","content":[{}]}`, ingest.ErrUnknownShape},
		{"an error body", ingest.FormatAnthropic, `{"type":"error","error":{"type":"overloaded_error"}}`, ingest.ErrUnknownShape},
		{"response in progress", ingest.FormatOpenAIResponses, `{"object":"response","status":"in_progress","output":[]}`, ingest.ErrUnknownShape},
		{"response without output", ingest.FormatOpenAIResponses, `{"object":"response","status":"completed"}`, ingest.ErrUnknownShape},
		{"gemini", ingest.FormatGemini, `{"candidates":[]}`, ingest.ErrUnknownFormat},
		{"auto", ingest.FormatAuto, `{}`, ingest.ErrUnknownFormat},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ingest.StreamEventsOf(c.f, []byte(c.body))
			if !errors.Is(err, c.want) || !errors.Is(err, events.ErrBadInput) {
				t.Errorf("err = %v, want %v (bad input)", err, c.want)
			}
		})
	}
}

// TestStreamEventsOfShapes checks a whole answer of each API, with text and
// two calls, against the calls and text it must give.
func TestStreamEventsOfShapes(t *testing.T) {
	for _, c := range []struct {
		f    ingest.Format
		body string
		want []string
	}{
		{ingest.FormatOpenAIChat, `{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi","tool_calls":[` +
			`{"id":"call_a","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}},` +
			`{"id":"call_b","type":"function","function":{"name":"g","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":4}}`,
			[]string{"call_a f {\"x\":1}", "call_b g {}"}},
		{ingest.FormatAnthropic, `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"hi"},` +
			`{"type":"tool_use","id":"toolu_a","name":"f","input":{"x":1}},{"type":"tool_use","id":"toolu_b","name":"g","input":{}}],` +
			`"stop_reason":"tool_use","usage":{"input_tokens":3,"output_tokens":4}}`,
			[]string{"toolu_a f {\"x\":1}", "toolu_b g {}"}},
		{ingest.FormatOpenAIResponses, `{"id":"resp_1","object":"response","status":"completed","model":"m","output":[` +
			`{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"hi","annotations":[]}]},` +
			`{"id":"fc_a","type":"function_call","status":"completed","call_id":"call_a","name":"f","arguments":"{\"x\":1}"},` +
			`{"id":"fc_b","type":"function_call","status":"completed","call_id":"call_b","name":"g","arguments":"{}"}],"usage":{"input_tokens":3,"output_tokens":4}}`,
			[]string{"call_a f {\"x\":1}", "call_b g {}"}},
	} {
		t.Run(string(c.f), func(t *testing.T) {
			conv, err := ingest.StreamEventsOf(c.f, []byte(c.body))
			if err != nil {
				t.Fatal(err)
			}
			n := ingest.New(ingest.Config{Format: c.f, Stream: "s"})
			fo := newFold()
			outs := feedAll(t, n, conv)
			fo.add(outs...)
			var got []string
			text := fo.Text.String()
			for _, cl := range fo.Calls {
				if cl.status() == "complete" {
					got = append(got, cl.CallID+" "+cl.Name+" "+cl.args())
				}
			}
			if !reflect.DeepEqual(got, c.want) || text != "hi" {
				t.Errorf("calls %q text %q, want %q and \"hi\"\n%s", got, text, c.want, joinLines(conv))
			}
		})
	}
}
