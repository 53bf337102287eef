package assembler_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
)

// A raw event whose field that holds a call's bytes has a corrupted name
// (one byte off) is refused with a typed rejection, and the call it
// belonged to ends incomplete with that reason: it never completes with
// the arguments streamed without that event's part (FuzzPipeline,
// which=11 seed=29 op=2, completed getWeather {"location":""} where
// "San Francisco" was streamed). Each row corrupts one name in the
// recorded Gemini stream's second call.
func TestAMisspeltFieldNeverCompletesTheCallWithoutIt(t *testing.T) {
	var rec recording
	for _, r := range recordings(t) {
		if strings.Contains(r.file, "gemini-two-getweather-streamed-args") {
			rec = r
		}
	}
	if rec.events == nil {
		t.Fatal("the recorded Gemini stream is missing")
	}
	const at = 5 // "San Francisco", the second call's first part
	if !bytes.Contains(rec.events[at], []byte("San Francisco")) {
		t.Fatalf("event %d is not the second call's first part: %s", at, rec.events[at])
	}
	p := newPipeline(t)
	want := p.run(rec.provider, rec.events, seqPositions(len(rec.events)))
	if len(want) != 2 {
		t.Fatalf("the intact stream completed %q, want two calls", want)
	}
	for _, tc := range []struct{ from, to string }{
		{`"content"`, `"conYent"`},
		{`"parts"`, `"partX"`},
		{`"functionCall"`, `"functionCalX"`},
		{`"partialArgs"`, `"partialyrgs"`},
		{`"stringValue"`, `"strinXValue"`},
	} {
		t.Run(tc.to, func(t *testing.T) {
			evs := slices.Clone(rec.events)
			evs[at] = bytes.Replace(evs[at], []byte(tc.from), []byte(tc.to), 1)
			got := p.run(rec.provider, evs, seqPositions(len(evs)))
			if !slices.Equal(got, want[:1]) {
				t.Fatalf("completed %q, want only the first call %q", got, want[:1])
			}
			var rejected, incomplete bool
			for _, ev := range p.out {
				if r, ok := events.As[*events.InputRejected](ev); ok && strings.Contains(r.Detail, "one byte off") {
					rejected = true
				}
				if _, ok := events.As[*events.CallIncomplete](ev); ok {
					incomplete = true
				}
			}
			if !rejected || !incomplete {
				t.Fatalf("typed rejection %v, call incomplete %v: want both; emitted %v", rejected, incomplete, kinds(p.out))
			}
		})
	}
}

func kinds(evs []*events.Event) []events.Kind {
	var out []events.Kind
	for _, ev := range evs {
		out = append(out, ev.Kind)
	}
	return out
}
