package ingest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/internal/ingest"
)

// wholeRun normalises a whole answer on a fresh Stream, each event's
// outs (or its refusal, as the edge refuses one) then the stream's end:
// decoded, by DecodeWhole and FeedWhole; otherwise by StreamEventsOf and
// Feed of its JSON events, as the gateway did before DecodeWhole.
func wholeRun(f ingest.Format, body []byte, decoded bool) (string, error) {
	s := ingest.NewStream(ingest.Config{Format: f, Stream: "s"})
	var b strings.Builder
	step := func(i int, outs []ingest.Out, err error) {
		if err != nil {
			outs = s.Refuse(uint64(i), err)
		}
		fmt.Fprintf(&b, "event %d\n%s", i, render(outs))
	}
	if decoded {
		a, err := ingest.DecodeWhole(f, body)
		if err != nil {
			return "", err
		}
		for i := range a.Len() {
			outs, err := s.FeedWhole(a, i)
			step(i, outs, err)
		}
	} else {
		evs, err := ingest.StreamEventsOf(f, body)
		if err != nil {
			return "", err
		}
		for i, ev := range evs {
			outs, err := s.Feed(ev)
			step(i, outs, err)
		}
	}
	b.WriteString("end\n" + render(s.End()))
	return b.String(), nil
}

// checkWholeSame fails unless DecodeWhole and FeedWhole give what
// StreamEventsOf and Feed give: the same outs event by event, the same
// refusals, the same error.
func checkWholeSame(t *testing.T, f ingest.Format, body []byte) {
	t.Helper()
	want, werr := wholeRun(f, body, false)
	got, gerr := wholeRun(f, body, true)
	if fmt.Sprint(gerr) != fmt.Sprint(werr) {
		t.Fatalf("DecodeWhole: error %v, StreamEventsOf: %v\n%s", gerr, werr, body)
	}
	if got != want {
		t.Fatalf("DecodeWhole:\n%s\nStreamEventsOf:\n%s\nbody: %s", got, want, body)
	}
}

// decodedOnce reports whether DecodeWhole read body into chunks.
func decodedOnce(t *testing.T, f ingest.Format, body []byte) bool {
	t.Helper()
	a, err := ingest.DecodeWhole(f, body)
	return err == nil && a.Decoded()
}

// TestDecodeWholeRecordings: the whole answer of every recorded Chat
// stream, compact and indented, is read once (no JSON events) and gives
// the events StreamEventsOf's JSON gives.
func TestDecodeWholeRecordings(t *testing.T) {
	tested := 0
	for _, e := range loadManifest(t) {
		f, err := ingest.ParseFormat(e.Provider)
		if err != nil || f != ingest.FormatOpenAIChat {
			continue
		}
		t.Run(e.File, func(t *testing.T) {
			for _, body := range wholeChat(t, readLines(t, filepath.Join(streamsDir, e.File))) {
				var ind bytes.Buffer
				if err := json.Indent(&ind, body, "", "  "); err != nil {
					t.Fatal(err)
				}
				for _, b := range [][]byte{body, ind.Bytes()} {
					if !decodedOnce(t, f, b) {
						t.Errorf("not read into chunks: %s", b)
					}
					checkWholeSame(t, f, b)
				}
			}
		})
		tested++
	}
	if tested == 0 {
		t.Fatal("no Chat recording")
	}
}

// wholeChatCases are Chat answers of every shape the conversion handles
// and of shapes it refuses or leaves to encoding/json: the seeds of
// FuzzDecodeWhole and the table of TestDecodeWholeShapes (decoded says
// whether DecodeWhole reads it into chunks).
var wholeChatCases = []struct {
	name    string
	body    string
	decoded bool
}{
	{"text", `{"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":4}}`, true},
	{"two calls", `{"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_a","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}},{"id":"call_b","type":"function","function":{"name":"g","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`, true},
	{"calls without ids or index, two choices", `{"id":"c1","choices":[{"message":{"tool_calls":[{"function":{"name":"f","arguments":"{}"}},null,{"id":null,"function":null}]},"finish_reason":"tool_calls"},{"message":{"content":"b"},"finish_reason":"length"}]}`, true},
	{"the same call id twice", `{"id":"c1","choices":[{"index":0,"message":{"tool_calls":[{"id":"x","function":{"name":"f","arguments":"{}"}},{"id":"x","function":{"name":"g","arguments":"{}"}}]},"finish_reason":"stop"}]}`, true},
	{"arguments as an object, spaced", `{ "id" : "c1" , "choices" : [ { "index" : 0 , "message" : { "tool_calls" : [ { "id" : "a" , "function" : { "name" : "f" , "arguments" : { "x" : [ 1 , 2 ] } } } ] } , "finish_reason" : "tool_calls" } ] }`, true},
	{"legacy function_call", `{"id":"c1","choices":[{"index":0,"message":{"function_call":{"name":"f","arguments":"{}"}},"finish_reason":"function_call"}]}`, true},
	{"content parts", `{"id":"c1","choices":[{"index":0,"message":{"content":[{"type":"text","text":"a"},{"type":"image","text":"x"},{"text":"b"}]},"finish_reason":"stop"}]}`, true},
	{"an error member", `{"id":"c1","choices":[{"index":0,"message":{"content":"a"},"finish_reason":"stop"}],"error":{"code":"boom","message":"no"}}`, true},
	{"an error string", `{"id":"c1","choices":[],"error":"overloaded"}`, true},
	{"no choices", `{"id":"c1","object":"chat.completion","choices":[]}`, true},
	{"usage null", `{"id":"c1","choices":[{"index":0,"message":{"content":"a"},"finish_reason":"stop"}],"usage":null}`, true},
	{"unknown finish reason", `{"id":"c1","choices":[{"index":3,"message":{"content":"a","tool_calls":[]},"finish_reason":"weird"}]}`, true},
	{"content filter, finish null", `{"id":"c1","choices":[{"index":0,"message":{"content":"a"},"finish_reason":"content_filter"},{"index":1,"message":{"content":"b"},"finish_reason":null}]}`, true},
	{"a delta beside the message", `{"id":"c1","choices":[{"index":0,"delta":{"content":"d"},"message":{"content":"m"},"finish_reason":"stop"}]}`, true},
	{"too many choices", `{"id":"c1","choices":[` + strings.Repeat(`{"message":{"content":"a"},"finish_reason":"stop"},`, 70) + `{"message":{}}]}`, true},
	// Left to StreamEventsOf, which decides.
	{"a chunk", `{"object":"chat.completion.chunk","choices":[]}`, false},
	{"without choices", `{"id":"x","object":"chat.completion"}`, false},
	{"choice without message", `{"object":"chat.completion","choices":[{"index":0}]}`, false},
	{"message null", `{"choices":[{"index":0,"message":null}]}`, false},
	{"an unknown content key", `{"id":"c1","choices":[{"index":0,"message":{"contnet":"a"},"finish_reason":"stop"}]}`, true},
	{"an unknown call key", `{"id":"c1","choices":[{"index":0,"message":{"tool_calls":[{"id":"a","fuction":{"name":"f"}}]},"finish_reason":"stop"}]}`, true},
	{"misspelt content", `{"id":"c1","choices":[{"index":0,"message":{"contant":"a"},"finish_reason":"stop"}]}`, false},
	{"case-folded key", `{"id":"c1","choices":[{"index":0,"message":{"Content":"a"},"finish_reason":"stop"}]}`, false},
	{"misspelt call key", `{"id":"c1","choices":[{"index":0,"message":{"tool_calls":[{"id":"a","functian":{"name":"f"}}]},"finish_reason":"stop"}]}`, false},
	{"duplicate key", `{"id":"c1","id":"c2","choices":[]}`, false},
	{"a call id that is a number", `{"id":"c1","choices":[{"index":0,"message":{"tool_calls":[{"id":7,"function":{"name":"f","arguments":"{}"}}]},"finish_reason":"stop"}]}`, false},
	{"an index that is a string", `{"id":"c1","choices":[{"index":"0","message":{"content":"a"},"finish_reason":"stop"}]}`, false},
	{"an id that is a number", `{"id":1,"choices":[{"index":0,"message":{"content":"a"},"finish_reason":"stop"}]}`, false},
	{"not JSON", `{"id":`, false},
	{"an object and more", `{"object":"chat.completion","choices":[]} {}`, false},
}

// TestDecodeWholeShapes: each answer is read into chunks or left to
// StreamEventsOf as the table says, and gives what StreamEventsOf's JSON
// gives, refusals and errors included.
func TestDecodeWholeShapes(t *testing.T) {
	for _, c := range wholeChatCases {
		t.Run(c.name, func(t *testing.T) {
			if got := decodedOnce(t, ingest.FormatOpenAIChat, []byte(c.body)); got != c.decoded {
				t.Errorf("read into chunks: %v, want %v", got, c.decoded)
			}
			checkWholeSame(t, ingest.FormatOpenAIChat, []byte(c.body))
		})
	}
}

// TestFeedWholeOnAnotherFormat: a decoded answer fed to a stream of
// another format (or one still detecting it) is fed as its JSON events,
// as Feed of them would be.
func TestFeedWholeOnAnotherFormat(t *testing.T) {
	body := []byte(wholeChatCases[1].body)
	a, err := ingest.DecodeWhole(ingest.FormatOpenAIChat, body)
	if err != nil || !a.Decoded() {
		t.Fatalf("DecodeWhole: %v, decoded %v", err, a != nil && a.Decoded())
	}
	evs, err := ingest.StreamEventsOf(ingest.FormatOpenAIChat, body)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []ingest.Format{ingest.FormatAuto, ingest.FormatAnthropic} {
		want, got := ingest.NewStream(ingest.Config{Format: f, Stream: "s"}), ingest.NewStream(ingest.Config{Format: f, Stream: "s"})
		for i, ev := range evs {
			wo, werr := want.Feed(ev)
			go_, gerr := got.FeedWhole(a, i)
			if render(go_) != render(wo) || !errors.Is(gerr, errors.Unwrap(werr)) && fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Fatalf("%s event %d: FeedWhole %s %v, Feed %s %v", f, i, render(go_), gerr, render(wo), werr)
			}
		}
	}
}

// FuzzDecodeWhole: on any bytes, DecodeWhole and FeedWhole give what
// StreamEventsOf and Feed give.
func FuzzDecodeWhole(f *testing.F) {
	for _, c := range wholeChatCases {
		f.Add([]byte(c.body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkWholeSame(t, ingest.FormatOpenAIChat, body)
	})
}
