package assembler_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
)

// What a byte mutation of a recorded stream may and may not do to the
// calls (DESIGN invariants 1, 2 and 9), checked by mutationProblems for
// FuzzPipeline and TestTheMutationRule.
//
// A byte changed inside an argument's value ("Paris" -> "Parix") cannot be
// told from the model saying it, so a mutated run may complete a call with
// other arguments than the intact run, but only where the mutation hit the
// bytes the arguments came from. Which bytes those are is read from the
// intact raw events themselves: every member of an event whose path is an
// argument, identity or name field of its format (spanClasses) covers its
// key, its value and the keys of the members it sits in (a corrupted
// "delta" key loses its value as surely as a corrupted value). A raw event
// "touches" a call when ingest emitted something for that call while
// reading it in the intact run.

// span classes: what a member's bytes decide.
const (
	spanArgs  = "args"  // a call's argument text (or the paths that build it)
	spanIdent = "ident" // which call (item id, index, call id) bytes go to
	spanResp  = "resp"  // which response the calls belong to
	spanName  = "name"  // the tool's name
)

// spanClasses gives, per format (the name ResponseStarted carries), the
// member paths ("a.*.b": member b of an element of array a) whose bytes
// decide a call's arguments, identity or name.
var spanClasses = map[string]map[string]string{
	"openai-responses": {
		"delta": spanArgs, "arguments": spanArgs, "item.arguments": spanArgs, "item.input": spanArgs,
		"response.id": spanResp,
		"item_id":     spanIdent, "output_index": spanIdent, "item.id": spanIdent, "item.call_id": spanIdent,
		"item.name": spanName,
	},
	"openai-chat": {
		"choices.*.delta.tool_calls.*.function.arguments":   spanArgs,
		"choices.*.delta.function_call.arguments":           spanArgs,
		"choices.*.message.tool_calls.*.function.arguments": spanArgs,
		"id":                                           spanResp,
		"choices.*.index":                              spanIdent,
		"choices.*.delta.tool_calls.*.index":           spanIdent,
		"choices.*.delta.tool_calls.*.id":              spanIdent,
		"choices.*.message.tool_calls.*.index":         spanIdent,
		"choices.*.message.tool_calls.*.id":            spanIdent,
		"choices.*.delta.tool_calls.*.function.name":   spanName,
		"choices.*.delta.function_call.name":           spanName,
		"choices.*.message.tool_calls.*.function.name": spanName,
	},
	"anthropic": {
		"delta.partial_json": spanArgs, "content_block.input": spanArgs,
		"message.id": spanResp,
		"index":      spanIdent, "content_block.id": spanIdent,
		"content_block.name": spanName,
	},
	"gemini": {
		"candidates.*.content.parts.*.functionCall.args":        spanArgs,
		"candidates.*.content.parts.*.functionCall.partialArgs": spanArgs,
		"responseId":         spanResp,
		"candidates.*.index": spanIdent,
		"candidates.*.content.parts.*.functionCall.id":   spanIdent,
		"candidates.*.content.parts.*.functionCall.name": spanName,
	},
}

// mutation is one byte of one raw event replaced.
type mutation struct {
	ev, off int
	to      byte
}

// mutate replaces 1 to 4 random bytes of random events of evs (op picks how
// many), as FuzzPipeline always has, and returns the mutated events.
func mutate(evs [][]byte, seed uint64, op uint8) ([][]byte, []mutation) {
	rng := rand.New(rand.NewPCG(seed, uint64(op)))
	out := slices.Clone(evs)
	var muts []mutation
	for k := 0; k <= int(op%4); k++ {
		i := rng.IntN(len(out))
		b := slices.Clone(out[i])
		if len(b) > 0 {
			off := rng.IntN(len(b))
			b[off] = byte(rng.IntN(256))
			muts = append(muts, mutation{ev: i, off: off, to: b[off]})
		}
		out[i] = b
	}
	return out, muts
}

// member is one object member of a raw event: its path, the byte spans of
// its key and value, and the key spans of the members it is nested in.
type member struct {
	path     string
	key, val [2]int
	anc      [][2]int
}

// members lists every object member of b, which must be valid JSON (the
// intact events are).
func members(b []byte) []member {
	w := &jwalk{b: b}
	w.value(w.ws(0), "", nil)
	return w.out
}

type jwalk struct {
	b   []byte
	out []member
}

func (w *jwalk) ws(i int) int {
	for i < len(w.b) && strings.IndexByte(" \t\r\n", w.b[i]) >= 0 {
		i++
	}
	return i
}

// str returns the end of the string starting at i (past its quote).
func (w *jwalk) str(i int) int {
	for i++; i < len(w.b); i++ {
		switch w.b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

func (w *jwalk) value(i int, path string, anc [][2]int) int {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch w.b[i] {
	case '{':
		i = w.ws(i + 1)
		if w.b[i] == '}' {
			return i + 1
		}
		for {
			i = w.ws(i)
			ks, ke := i, w.str(i)
			var k string
			json.Unmarshal(w.b[ks:ke], &k)
			i = w.ws(w.ws(ke) + 1) // past ':'
			a := append(slices.Clip(anc), [2]int{ks, ke})
			vs := i
			i = w.value(i, join(k), a)
			w.out = append(w.out, member{path: join(k), key: [2]int{ks, ke}, val: [2]int{vs, i}, anc: slices.Clone(anc)})
			i = w.ws(i)
			if w.b[i] == '}' {
				return i + 1
			}
			i++ // ','
		}
	case '[':
		i = w.ws(i + 1)
		if w.b[i] == ']' {
			return i + 1
		}
		for {
			i = w.value(w.ws(i), join("*"), anc)
			i = w.ws(i)
			if w.b[i] == ']' {
				return i + 1
			}
			i++
		}
	case '"':
		return w.str(i)
	}
	for i < len(w.b) && strings.IndexByte(",]} \t\r\n", w.b[i]) < 0 {
		i++
	}
	return i
}

// hits says, per raw event and span class, whether a mutated byte (one that
// differs from the intact event) lies in the value of a member of that
// class. "bytes" counts an event's mutated bytes. A name corrupted in one
// byte is refused (a key one byte off a field read there, a type one byte
// off a type read there) or still read (a case variant); a name corrupted
// in more bytes can spell a field or type a provider may add, which is
// passed over unread by design: in an event with more than one mutated
// byte, a hit in a key (the member's own or one it sits in) or in a
// "type" value counts as a hit of every class the event carries.
func hits(format string, intact, mutated [][]byte) []map[string]bool {
	out := make([]map[string]bool, len(intact))
	for i := range intact {
		var offs []int
		for j := range intact[i] {
			if intact[i][j] != mutated[i][j] {
				offs = append(offs, j)
			}
		}
		out[i] = map[string]bool{}
		if len(offs) == 0 {
			continue
		}
		out[i]["any"] = true
		out[i]["one"] = len(offs) == 1
		in := func(s [2]int) bool {
			return slices.ContainsFunc(offs, func(o int) bool { return o >= s[0] && o < s[1] })
		}
		shape := false
		ms := members(intact[i])
		for _, m := range ms {
			if in(m.key) || (m.path == "type" || strings.HasSuffix(m.path, ".type")) && in(m.val) {
				out[i]["names"] = true // a key or a type: what decides whether a value is read
				shape = shape || len(offs) > 1
			}
			if c, ok := spanClasses[format][m.path]; ok && in(m.val) {
				out[i][c] = true
			}
		}
		if shape {
			for _, m := range ms {
				if c, ok := spanClasses[format][m.path]; ok {
					out[i][c] = true
				}
			}
		}
	}
	return out
}

type callID struct{ resp, item string }

func (c callID) String() string { return c.resp + "/" + c.item }

// runInfo is what one run's trace says about the calls.
type runInfo struct {
	format    string
	completed map[callID]*events.CallCompleted
	order     []callID          // completed, in order
	touches   []map[callID]bool // per raw event: the function calls ingest emitted for
	emitted   []int             // per raw event: model events ingest emitted (InputRejected not counted)
	rejected  []bool            // per raw event: refused (InputRejected)
	index     map[callID]int    // a call's provider position (OutputItemAdded.Index)
	doneFrom  map[callID][]int  // raw events whose reading emitted the call's ArgumentsDone / OutputItemDone
	names     map[callID]string // the completed call's name
}

func readTrace(trace []step, n int) *runInfo {
	r := &runInfo{completed: map[callID]*events.CallCompleted{}, touches: make([]map[callID]bool, n),
		emitted: make([]int, n), rejected: make([]bool, n), index: map[callID]int{}, doneFrom: map[callID][]int{}, names: map[callID]string{}}
	for i := range r.touches {
		r.touches[i] = map[callID]bool{}
	}
	calls := map[callID]bool{}
	for _, s := range trace {
		id := callID{s.ev.Response, s.ev.Item}
		if !s.ingest {
			if c, ok := events.As[*events.CallCompleted](s.ev); ok {
				r.completed[id] = c
				r.order = append(r.order, id)
				r.names[id] = c.Name
			}
			continue
		}
		switch b := s.ev.Body.(type) {
		case *events.ResponseStarted:
			if r.format == "" {
				r.format = b.Provider
			}
		case *events.OutputItemAdded:
			if b.Type == events.ItemFunctionCall {
				calls[id] = true
				r.index[id] = b.Index
			}
		case *events.ArgumentsDone, *events.OutputItemDone:
			if calls[id] && s.raw >= 0 {
				r.doneFrom[id] = append(r.doneFrom[id], s.raw)
			}
		}
		if s.raw < 0 {
			continue
		}
		if s.ev.Kind == events.KindInputRejected {
			r.rejected[s.raw] = true
			continue
		}
		r.emitted[s.raw]++
		if calls[id] {
			r.touches[s.raw][id] = true
		}
	}
	return r
}

// mutationProblems checks a mutated run against the intact one: every
// completed call of the mutated run (a) has an identity of the intact run
// or one whose identity bytes the mutation hit; (b) was completed by its
// protocol's own signal, present in the mutated stream; (c) has arguments
// that are one JSON object; (d) has the intact call's name and arguments
// unless the mutation hit that call's name or argument bytes, or the
// identity bytes of an event that carried argument text. Every mutated
// event that ingest read in the intact run is read or refused typed, and a
// refusal ends every call open at that point incomplete, never completed.
//
// rerun runs other events (the same stream, a new run) and returns its
// trace: an event that emits nothing after an earlier refusal ended its
// call is not passed over by its own mutation, which a run with that event
// intact tells.
func mutationProblems(intactEvs, mutatedEvs [][]byte, intactTrace, mutatedTrace []step, rerun func([][]byte) []step) []string {
	var bad []string
	fail := func(f string, a ...any) { bad = append(bad, fmt.Sprintf(f, a...)) }
	in, mu := readTrace(intactTrace, len(intactEvs)), readTrace(mutatedTrace, len(mutatedEvs))
	format := in.format
	if _, ok := spanClasses[format]; !ok && len(in.completed) > 0 {
		return []string{fmt.Sprintf("no span classes for format %q", format)}
	}
	hit := hits(format, intactEvs, mutatedEvs)
	anyHit := func(class string, only func(i int) bool) bool {
		for i, h := range hit {
			if h[class] && (only == nil || only(i)) {
				return true
			}
		}
		return false
	}
	carriesCall := func(i int) bool { return len(in.touches[i]) > 0 }
	// Argument text may come out different: a hit in the call's own
	// argument or name bytes, or in the routing (identity, response, name)
	// bytes of any event that carried a call's bytes.
	argsMayDiffer := func(c callID) bool {
		return anyHit(spanArgs, func(i int) bool { return in.touches[i][c] }) ||
			anyHit(spanName, func(i int) bool { return in.touches[i][c] }) ||
			anyHit(spanIdent, carriesCall) || anyHit(spanResp, carriesCall)
	}
	resps, items := map[string]bool{}, map[string][]callID{}
	for c := range in.completed {
		resps[c.resp] = true
		items[c.item] = append(items[c.item], c)
	}
	for _, c := range mu.order {
		got := mu.completed[c]
		// (a) identity
		twin, known := c, in.completed[c] != nil
		if !known {
			identHit := anyHit(spanIdent, nil) || anyHit(spanResp, nil)
			// an event that carries identity fields and was refused: its
			// identity could not be read.
			for i := range mutatedEvs {
				if mu.rejected[i] && hit[i]["any"] && carriesIdentity(format, intactEvs[i]) {
					identHit = true
				}
			}
			if !identHit {
				fail("completed %s %s, an identity the intact run has not, and no identity byte was hit", c, got.Name)
			}
			if !resps[c.resp] && len(items[c.item]) == 1 {
				twin, known = items[c.item][0], true
			}
		}
		// (b) the protocol's own signal, in the mutated stream
		if msg := signalProblem(mu.format, c, mu, mutatedEvs); msg != "" {
			fail("completed %s %s: %s", c, got.Name, msg)
		}
		// (c) one JSON object
		var obj map[string]any
		if err := json.Unmarshal(got.Arguments, &obj); err != nil || obj == nil {
			fail("completed %s %s with arguments that are not one JSON object: %s", c, got.Name, got.Arguments)
		}
		// (d) the intact call's name and arguments, unless hit
		if !known {
			continue
		}
		want := in.completed[twin]
		if !bytes.Equal(got.Arguments, want.Arguments) && !argsMayDiffer(twin) {
			fail("completed %s %s with arguments %s, the intact run %s, and no byte of its argument text was hit", c, got.Name, got.Arguments, want.Arguments)
		}
		if got.Name != want.Name && !anyHit(spanName, nil) && !anyHit(spanIdent, carriesCall) {
			fail("completed %s as %s, the intact run as %s, and no byte of its name was hit", c, got.Name, want.Name)
		}
	}
	// An event with one mutated byte, in a key or a type, is read or
	// refused typed. (One mutated byte in another value is read as that
	// value, a status that is no longer "completed", say: what it does to
	// the calls is (a) to (d).)
	for i := range mutatedEvs {
		if hit[i]["one"] && hit[i]["names"] && in.emitted[i] > 0 && mu.emitted[i] == 0 && !mu.rejected[i] {
			restored := slices.Clone(mutatedEvs)
			restored[i] = intactEvs[i]
			if readTrace(rerun(restored), len(restored)).emitted[i] == 0 {
				continue // not read with its own bytes either
			}
			fail("mutated event %d was passed over unread (the intact one emitted %d events), not refused: %s", i, in.emitted[i], mutatedEvs[i])
		}
	}
	// A refusal ends the calls open at that point incomplete.
	open := map[callID]bool{}
	var mustEnd []callID
	for k, s := range mutatedTrace {
		id := callID{s.ev.Response, s.ev.Item}
		switch b := s.ev.Body.(type) {
		case *events.OutputItemAdded:
			if s.ingest && b.Type == events.ItemFunctionCall {
				open[id] = true
			}
		case *events.CallCompleted, *events.CallRejected, *events.CallIncomplete:
			delete(open, id)
		case *events.InputRejected:
			for c := range open {
				mustEnd = append(mustEnd, c)
				var ended bool
				for _, t := range mutatedTrace[k+1:] {
					if t.ingest || (callID{t.ev.Response, t.ev.Item}) != c {
						continue
					}
					switch t.ev.Body.(type) {
					case *events.CallCompleted:
						fail("%s was open when raw event %d was refused, and completed after", c, s.raw)
					case *events.CallIncomplete:
						ended = true
					}
				}
				if !ended {
					fail("%s was open when raw event %d was refused, and never ended incomplete", c, s.raw)
				}
			}
		}
	}
	_ = mustEnd
	return bad
}

// signalProblem says why call c of a run did not complete by its
// protocol's own signal, or "" when it did: the raw event whose reading
// emitted the call's done must be that signal, for that call.
func signalProblem(format string, c callID, r *runInfo, evs [][]byte) string {
	from := r.doneFrom[c]
	if len(from) == 0 {
		return "no raw event emitted its done"
	}
	for _, j := range from {
		raw := evs[j]
		ok := false
		switch format {
		case "openai-responses":
			var e struct {
				Type        string  `json:"type"`
				ItemID      *string `json:"item_id"`
				OutputIndex *int    `json:"output_index"`
				Item        *struct {
					ID string `json:"id"`
				} `json:"item"`
			}
			if json.Unmarshal(raw, &e) == nil && (e.Type == "response.function_call_arguments.done" || e.Type == "response.output_item.done" || e.Type == "response.custom_tool_call_input.done") {
				ok = (e.ItemID != nil && *e.ItemID == c.item) || (e.Item != nil && e.Item.ID == c.item) ||
					(e.OutputIndex != nil && *e.OutputIndex == r.index[c])
			}
		case "openai-chat":
			var e struct {
				Choices []struct {
					FinishReason *string `json:"finish_reason"`
				} `json:"choices"`
			}
			if json.Unmarshal(raw, &e) == nil {
				for _, ch := range e.Choices {
					// DESIGN: tool_calls or stop; function_call is the
					// legacy form, the rest are servers' synonyms of stop.
					if ch.FinishReason != nil && slices.Contains([]string{"tool_calls", "stop", "function_call", "end_turn", "stop_sequence", "eos", "eos_token"}, *ch.FinishReason) {
						ok = true
					}
				}
			}
		case "anthropic":
			// the block's content_block_stop, then the message's stop_reason
			// that is not a truncation.
			var e struct {
				Type  string `json:"type"`
				Delta *struct {
					StopReason string `json:"stop_reason"`
				} `json:"delta"`
			}
			if json.Unmarshal(raw, &e) == nil && e.Type == "message_delta" && e.Delta != nil &&
				!slices.Contains([]string{"", "max_tokens", "model_context_window_exceeded", "refusal"}, e.Delta.StopReason) {
				for _, b := range evs[:j] {
					var s struct {
						Type  string `json:"type"`
						Index *int   `json:"index"`
					}
					if json.Unmarshal(b, &s) == nil && s.Type == "content_block_stop" && s.Index != nil && *s.Index == r.index[c] {
						ok = true
					}
				}
			}
		case "gemini":
			var e struct {
				Candidates []struct {
					FinishReason string `json:"finishReason"`
					Content      *struct {
						Parts []struct {
							FunctionCall *map[string]json.RawMessage `json:"functionCall"`
						} `json:"parts"`
					} `json:"content"`
				} `json:"candidates"`
			}
			if json.Unmarshal(raw, &e) == nil {
				for _, cand := range e.Candidates {
					if slices.Contains([]string{"STOP", "OTHER", "FINISH_REASON_UNSPECIFIED"}, cand.FinishReason) {
						ok = true
					}
					if cand.Content == nil {
						continue
					}
					for _, p := range cand.Content.Parts {
						if p.FunctionCall != nil && len(*p.FunctionCall) == 0 {
							ok = true // the empty closing functionCall
						}
					}
				}
			}
		default:
			return fmt.Sprintf("format %q has no completion signal here", format)
		}
		if !ok {
			return fmt.Sprintf("its done came from raw event %d, which is not its protocol's completion signal: %s", j, raw)
		}
	}
	return ""
}

// carriesIdentity says whether raw has a member naming a response or a call.
func carriesIdentity(format string, raw []byte) bool {
	for _, m := range members(raw) {
		if c := spanClasses[format][m.path]; c == spanIdent || c == spanResp {
			return true
		}
	}
	return false
}

// parallelChat is a Chat Completions stream of two calls, the second
// starting after the first's arguments are whole: a new index is not the
// first call's completion, the finish_reason is.
var parallelChat = [][]byte{
	[]byte(`{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"weather","arguments":""}}]}}]}`),
	[]byte(`{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":\"Oslo\"}"}}]}}]}`),
	[]byte(`{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"weather","arguments":""}}]}}]}`),
	[]byte(`{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"city\":\"Rome\"}"}}]}}]}`),
	[]byte(`{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`),
}

// TestTheMutationRule: the intact run of every recording (and of a stream
// of two parallel Chat calls) keeps to mutationProblems' rule with no
// mutation at all: each call completes by its protocol's own signal.
// (The mutations that once broke it are FuzzPipeline's seeds.)
func TestTheMutationRule(t *testing.T) {
	recs := append(recordings(t), recording{file: "parallel chat", provider: "openai-chat", events: parallelChat})
	for _, rec := range recs {
		t.Run(rec.file, func(t *testing.T) {
			p := newPipeline(t)
			if len(p.run(rec.provider, rec.events, seqPositions(len(rec.events)))) == 0 && strings.Contains(rec.file, "parallel") {
				t.Fatal("the parallel calls did not complete")
			}
			intact := p.trace
			rerun := func(evs [][]byte) []step {
				p.run(rec.provider, evs, seqPositions(len(evs)))
				return p.trace
			}
			if bad := mutationProblems(rec.events, rec.events, intact, intact, rerun); len(bad) > 0 {
				t.Fatalf("intact:\n%s", strings.Join(bad, "\n"))
			}
		})
	}
}
