package ingest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/ingest"
)

// chatText builds a Chat chunk carrying content.
func chatText(content string) []byte {
	b, _ := json.Marshal(map[string]any{"id": "p1", "model": "m",
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": content}}}})
	return b
}

var chatStop = []byte(`{"id":"p1","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)

// runChunks feeds text as the given chunks of one Chat stream with tagged
// text on, then the finish.
func runChunks(t *testing.T, chunks []string) []string {
	t.Helper()
	n := ingest.New(ingest.Config{Format: ingest.FormatOpenAIChat, TaggedText: true})
	var all []ingest.Out
	for _, c := range chunks {
		out, err := n.Feed(chatText(c))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, out...)
	}
	out, err := n.Feed(chatStop)
	if err != nil {
		t.Fatal(err)
	}
	return merged(append(append(all, out...), n.Flush()...))
}

// The tagged-text scanner must not care where the chunks break: split at
// every byte boundary (and every pair of boundaries, and byte by byte), the
// merged output is the same. (The text is ASCII: a provider's text chunks
// are JSON strings, so they break between characters.)
func TestTaggedTextSplitAtEveryByte(t *testing.T) {
	texts := []string{
		`Hi <tool_call>{"name":"a","arguments":{"x":"<tool_call> inside"}}</tool_call> and <tool <tool_call>{"name":"b","parameters":"{\"y\":2}"}</tool_call></tool_call> <<tool_call>x</tool_call><`,
		`<tool_call>{"name":"open","arguments":{"z":1}}</tool_`,
		`plain text with < and </ and <tool_cal but no tags`,
	}
	for _, text := range texts {
		want := runChunks(t, []string{text})
		if !strings.Contains(text, "no tags") && len(want) < 4 {
			t.Fatalf("suspiciously short baseline: %v", want)
		}
		for i := 0; i <= len(text); i++ {
			if got := runChunks(t, []string{text[:i], text[i:]}); !reflect.DeepEqual(got, want) {
				t.Fatalf("split at %d:\n got %q\nwant %q", i, got, want)
			}
		}
		step := 1
		if len(text) > 80 {
			step = 3
		}
		for i := 0; i <= len(text); i += step {
			for j := i; j <= len(text); j += step {
				if got := runChunks(t, []string{text[:i], text[i:j], text[j:]}); !reflect.DeepEqual(got, want) {
					t.Fatalf("split at %d,%d:\n got %q\nwant %q", i, j, got, want)
				}
			}
		}
		bytewise := make([]string, len(text))
		for i := range text {
			bytewise[i] = text[i : i+1]
		}
		if got := runChunks(t, bytewise); !reflect.DeepEqual(got, want) {
			t.Fatalf("byte by byte:\n got %q\nwant %q", got, want)
		}
	}
}

// randomSplit cuts s into 1..n fragments at rune boundaries.
func randomSplit(rng *rand.Rand, s string, n int) []string {
	var cuts []int
	for i := range s {
		if i > 0 && rng.IntN(len(s)) < n {
			cuts = append(cuts, i)
		}
	}
	var out []string
	prev := 0
	for _, c := range cuts {
		out = append(out, s[prev:c])
		prev = c
	}
	return append(out, s[prev:])
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// streamFor builds a stream of one call whose arguments arrive as frags, in
// the given format, ending normally.
func streamFor(f ingest.Format, frags []string) [][]byte {
	var s []string
	switch f {
	case ingest.FormatOpenAIChat:
		for i, fr := range frags {
			tc := map[string]any{"index": 0, "function": map[string]any{"arguments": fr}}
			if i == 0 {
				tc["id"], tc["type"] = "call_1", "function"
				tc["function"].(map[string]any)["name"] = "f"
			}
			s = append(s, mustJSON(map[string]any{"id": "c", "choices": []any{map[string]any{"index": 0,
				"delta": map[string]any{"tool_calls": []any{tc}}}}}))
		}
		s = append(s, `{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
	case ingest.FormatOpenAIResponses:
		s = append(s, `{"type":"response.created","response":{"id":"r","status":"in_progress"}}`,
			`{"type":"response.output_item.added","output_index":0,"item":{"id":"fc","type":"function_call","arguments":"","call_id":"call_1","name":"f"}}`)
		for _, fr := range frags {
			s = append(s, mustJSON(map[string]any{"type": "response.function_call_arguments.delta", "item_id": "fc", "output_index": 0, "delta": fr}))
		}
		s = append(s, `{"type":"response.output_item.done","output_index":0,"item":{"id":"fc","type":"function_call","status":"completed","call_id":"call_1","name":"f"}}`,
			`{"type":"response.completed","response":{"id":"r","status":"completed"}}`)
	case ingest.FormatAnthropic:
		s = append(s, `{"type":"message_start","message":{"id":"m","model":"x"}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"call_1","name":"f","input":{}}}`)
		for _, fr := range frags {
			s = append(s, mustJSON(map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": fr}}), `{"type":"ping"}`)
		}
		s = append(s, `{"type":"content_block_stop","index":0}`, `{"type":"message_delta","delta":{"stop_reason":"tool_use"}}`,
			`{"type":"message_stop"}`)
	}
	out := make([][]byte, len(s))
	for i := range s {
		out[i] = []byte(s[i])
	}
	return out
}

// Any re-chunking of the argument fragments yields the same reconstructed
// arguments.
func TestArgumentRechunkingInvariance(t *testing.T) {
	args := `{"city":"São Paulo","note":"say \"hi\"\n","n":[1,2.5,{"x":null,"ok":true}],"emoji":"🙂"}`
	rng := rand.New(rand.NewPCG(1, 2))
	for _, f := range []ingest.Format{ingest.FormatOpenAIChat, ingest.FormatOpenAIResponses, ingest.FormatAnthropic} {
		for round := 0; round < 200; round++ {
			frags := randomSplit(rng, args, 1+round%40)
			fo := newFold()
			fo.add(feedAll(t, ingest.New(ingest.Config{Format: f}), streamFor(f, frags))...)
			if len(fo.Calls) != 1 || !fo.Calls[0].Done || fo.Calls[0].args() != args {
				t.Fatalf("%s %q:\n%s", f, frags, fo)
			}
		}
	}
}

// Gemini partialArgs: any document sent as leaf values in document order,
// strings in random pieces, reconstructs to the same JSON, and the deltas
// concatenate to exactly the closing arguments.
func TestGeminiPartialArgsReconstruct(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 300; round++ {
		doc := randomObject(rng, 3)
		var parts []string
		parts = append(parts, `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}],"responseId":"g"}`)
		var leaves []map[string]any
		collectLeaves(rng, "$", doc, &leaves)
		for _, pa := range leaves {
			parts = append(parts, mustJSON(map[string]any{"candidates": []any{map[string]any{"content": map[string]any{
				"parts": []any{map[string]any{"functionCall": map[string]any{"partialArgs": []any{pa}, "willContinue": true}}}}}},
				"responseId": "g"}))
		}
		parts = append(parts, `{"candidates":[{"content":{"parts":[{"functionCall":{}}]},"finishReason":"STOP"}],"responseId":"g"}`)
		lines := make([][]byte, len(parts))
		for i := range parts {
			lines[i] = []byte(parts[i])
		}
		outs := feedAll(t, ingest.New(ingest.Config{Format: ingest.FormatGemini}), lines)
		var deltas strings.Builder
		var done string
		for _, o := range outs {
			switch b := o.Body.(type) {
			case *events.ArgumentsDelta:
				deltas.WriteString(b.Delta)
			case *events.ArgumentsDone:
				done = b.Arguments
			}
		}
		var got any
		if err := json.Unmarshal([]byte(done), &got); err != nil {
			t.Fatalf("round %d: %q: %v", round, done, err)
		}
		want := normalise(doc)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d:\n got %s\nwant %s", round, done, mustJSON(want))
		}
		if deltas.String() != done {
			t.Fatalf("round %d: deltas %q != done %q", round, deltas.String(), done)
		}
	}
}

// ordered is a JSON object with key order.
type ordered struct {
	keys []string
	vals []any
}

func randomObject(rng *rand.Rand, depth int) *ordered {
	o := &ordered{}
	for i := 0; i < 1+rng.IntN(4); i++ {
		o.keys = append(o.keys, []string{"a", "b.c", "name", "ключ", "q\"k", "x y"}[rng.IntN(6)]+string(rune('0'+i)))
		o.vals = append(o.vals, randomValue(rng, depth-1))
	}
	return o
}

func randomValue(rng *rand.Rand, depth int) any {
	k := rng.IntN(7)
	if depth <= 0 && k >= 5 {
		k = rng.IntN(5)
	}
	switch k {
	case 0:
		return []string{"", "plain", "with \"quotes\" and \\", "tab\tnew\nline", "ünïcødé 🙂", "<tool_call>"}[rng.IntN(6)]
	case 1:
		return json.Number([]string{"0", "-1", "3.25", "1e9", "42"}[rng.IntN(5)])
	case 2:
		return rng.IntN(2) == 0
	case 3:
		return nil
	case 4:
		return "s" + strings.Repeat("x", rng.IntN(20))
	case 5:
		return randomObject(rng, depth)
	}
	var arr []any
	for i := 0; i < 1+rng.IntN(3); i++ {
		arr = append(arr, randomValue(rng, depth-1))
	}
	return arr
}

// collectLeaves lists the partialArgs that send v at path, in document
// order, strings in random pieces.
func collectLeaves(rng *rand.Rand, path string, v any, out *[]map[string]any) {
	switch x := v.(type) {
	case *ordered:
		for i, k := range x.keys {
			p := path + "." + k
			if strings.ContainsAny(k, ".[ \"") {
				p = path + "['" + k + "']"
			}
			collectLeaves(rng, p, x.vals[i], out)
		}
	case []any:
		for i, e := range x {
			collectLeaves(rng, path+"["+strconv.Itoa(i)+"]", e, out)
		}
	case string:
		pieces := randomSplit(rng, x, 3)
		for i, p := range pieces {
			pa := map[string]any{"jsonPath": path, "stringValue": p}
			if i < len(pieces)-1 || rng.IntN(2) == 0 {
				pa["willContinue"] = true
			}
			*out = append(*out, pa)
		}
		if last := (*out)[len(*out)-1]; last["willContinue"] == true {
			*out = append(*out, map[string]any{"jsonPath": path, "stringValue": ""})
		}
	case json.Number:
		*out = append(*out, map[string]any{"jsonPath": path, "numberValue": x})
	case bool:
		*out = append(*out, map[string]any{"jsonPath": path, "boolValue": x})
	case nil:
		*out = append(*out, map[string]any{"jsonPath": path, "nullValue": "NULL_VALUE"})
	}
}

// normalise turns an ordered document into what json.Unmarshal gives.
func normalise(v any) any {
	switch x := v.(type) {
	case *ordered:
		m := map[string]any{}
		for i, k := range x.keys {
			m[k] = normalise(x.vals[i])
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = normalise(x[i])
		}
		return out
	case json.Number:
		f, _ := x.Float64()
		return f
	}
	return v
}

// stream is one input of the restore property: a config and raw events.
type stream struct {
	name  string
	cfg   ingest.Config
	lines [][]byte
}

// allStreams returns every recording (plain and tagged) and every fed
// stream of the datadriven files.
func allStreams(t *testing.T) []stream {
	var out []stream
	for _, e := range loadManifest(t) {
		lines := readLines(t, filepath.Join(streamsDir, e.File))
		out = append(out, stream{e.File, ingest.Config{Stream: "s"}, lines},
			stream{e.File + "/tagged", ingest.Config{Stream: "s", TaggedText: true}, lines})
	}
	for _, file := range behaviourFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var cur *stream
		inInput := false
		for _, line := range strings.Split(string(data), "\n") {
			switch {
			case strings.HasPrefix(line, "feed"):
				if args := strings.Fields(line)[1:]; len(args) > 0 || cur == nil {
					cfg := ingest.Config{}
					for _, a := range args {
						k, v, _ := strings.Cut(a, "=")
						switch k {
						case "format":
							cfg.Format, _ = ingest.ParseFormat(v)
						case "stream":
							cfg.Stream = v
						case "tagged":
							cfg.TaggedText = true
						}
					}
					out = append(out, stream{name: file, cfg: cfg})
					cur = &out[len(out)-1]
				}
				inInput = true
			case line == "----":
				inInput = false
			case inInput && strings.TrimSpace(line) != "":
				cur.lines = append(cur.lines, []byte(line))
			}
		}
	}
	return out
}

// runStream feeds a stream, optionally restoring the Normalizer from its
// marshalled state before every event, and renders outputs and errors.
func runStream(t *testing.T, s stream, restore bool) string {
	t.Helper()
	n := ingest.New(s.cfg)
	var b strings.Builder
	for _, l := range s.lines {
		if restore {
			st, err := n.MarshalState()
			if err != nil {
				t.Fatal(err)
			}
			st2, _ := n.MarshalState()
			if !bytes.Equal(st, st2) {
				t.Fatal("MarshalState is not deterministic")
			}
			if n, err = ingest.Restore(s.cfg, st); err != nil {
				t.Fatal(err)
			}
		}
		out, err := n.Feed(l)
		if err != nil {
			b.WriteString("error: " + errName(err) + "\n")
			continue
		}
		b.WriteString(render(out))
	}
	b.WriteString(render(n.Flush()))
	return b.String()
}

// MarshalState/Restore between any two events yields exactly the output of
// an uninterrupted run (and a second uninterrupted run yields the same:
// determinism).
func TestRestoreMidStreamEqualsLive(t *testing.T) {
	streams := allStreams(t)
	if len(streams) < 50 {
		t.Fatalf("only %d streams found", len(streams))
	}
	for _, s := range streams {
		live := runStream(t, s, false)
		if again := runStream(t, s, false); again != live {
			t.Fatalf("%s: two live runs differ", s.name)
		}
		if restored := runStream(t, s, true); restored != live {
			t.Fatalf("%s: restored run differs:\n%s\nlive:\n%s", s.name, restored, live)
		}
	}
}

// Every event the adapters emit is well formed: a response id, a body, an
// item for item-level bodies and none for response-level ones; at most one
// terminal event and one start per response.
func TestOutputWellFormed(t *testing.T) {
	for _, s := range allStreams(t) {
		n := ingest.New(s.cfg)
		var outs []ingest.Out
		for _, l := range s.lines {
			out, _ := n.Feed(l)
			outs = append(outs, out...)
		}
		checkWellFormed(t, s.name, outs)
	}
}

func checkWellFormed(t testing.TB, name string, outs []ingest.Out) {
	t.Helper()
	started := map[string]int{}
	ended := map[string]int{}
	for _, o := range outs {
		if o.Response == "" || o.Body == nil {
			t.Fatalf("%s: malformed %v", name, o)
		}
		switch o.Body.(type) {
		case *events.ResponseStarted:
			started[o.Response]++
			if o.Item != "" {
				t.Fatalf("%s: response event with item: %v", name, o)
			}
		case *events.ResponseCompleted, *events.ResponseIncomplete, *events.ResponseFailed:
			ended[o.Response]++
			if o.Item != "" {
				t.Fatalf("%s: response event with item: %v", name, o)
			}
		default:
			if o.Item == "" {
				t.Fatalf("%s: item event without item: %v", name, o)
			}
			if started[o.Response] == 0 {
				t.Fatalf("%s: event before its ResponseStarted: %v", name, o)
			}
		}
		if started[o.Response] > 1 || ended[o.Response] > 1 {
			t.Fatalf("%s: response %s started %d ended %d times", name, o.Response, started[o.Response], ended[o.Response])
		}
	}
}

// FuzzFeed: Feed never panics on any input, leaves the state unchanged on
// error, and emits only well-formed events. Seeds are the recordings (whole
// files: the input is split into events at newlines). Run as a normal test
// it only replays the seeds, quickly.
func FuzzFeed(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(streamsDir, "*.jsonl"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) > 20000 {
			data = data[:20000] // a prefix: a cut stream is a fine seed too
		}
		f.Add(data)
	}
	f.Add([]byte(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"a","willContinue":true}}]}}]}` + "\n" +
		`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a[3].b","stringValue":"x","willContinue":true}]}}]}}]}`))
	f.Add([]byte(`{"id":"x","choices":[{"delta":{"content":"<tool_call>{\"name\":\"a\"}</tool_c"}}]}`))
	f.Add([]byte(`{"tYpe":""}`)) // found by the fuzzer: json matches field names case-insensitively
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := bytes.Split(data, []byte("\n"))
		for _, format := range []ingest.Format{ingest.FormatAuto, ingest.FormatOpenAIResponses,
			ingest.FormatOpenAIChat, ingest.FormatAnthropic, ingest.FormatGemini} {
			cfg := ingest.Config{Format: format, TaggedText: len(data)%2 == 0}
			n := ingest.New(cfg)
			var outs []ingest.Out
			for _, l := range lines {
				before, err := n.MarshalState()
				if err != nil {
					t.Fatal(err)
				}
				out, err := n.Feed(l)
				if err != nil {
					if !errors.Is(err, events.ErrBadInput) {
						t.Fatalf("error not bad input: %v", err)
					}
					if after, _ := n.MarshalState(); !bytes.Equal(before, after) {
						t.Fatalf("state changed on error %v", err)
					}
					continue
				}
				outs = append(outs, out...)
				if n, err = ingest.Restore(cfg, before); err != nil {
					t.Fatal(err)
				}
				again, _ := n.Feed(l) // replaying from the saved state is identical
				if render(again) != render(out) {
					t.Fatalf("replay from state differs")
				}
			}
			outs = append(outs, n.Flush()...)
			checkWellFormed(t, string(format), outs)
		}
	})
}
