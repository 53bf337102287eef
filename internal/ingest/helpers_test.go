package ingest_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/ingest"
)

// call is one function call as an assembler would fold it from the canonical
// events: arguments are the authoritative done arguments, else the opening
// arguments followed by the concatenated deltas; "" means {}. A call is
// complete when a completion signal arrived before any abort.
type call struct {
	Response, Item, CallID, Name string
	buf                          strings.Builder
	Args                         string
	Done, Aborted                bool
}

func (c *call) args() string {
	if !c.Done {
		return c.buf.String() // the partial buffer, kept for audit
	}
	if c.Args == "" {
		return "{}"
	}
	return c.Args
}

func (c *call) status() string {
	switch {
	case c.Done:
		return "complete"
	case c.Aborted:
		return "aborted"
	}
	return "open"
}

// fold is what an assembler would make of a stream's canonical events.
type fold struct {
	Calls    []*call
	byKey    map[string]*call // lookup only; order comes from Calls
	Outcomes []string         // "<response> <outcome>" in order of arrival
	Text     strings.Builder
}

func newFold() *fold { return &fold{byKey: map[string]*call{}} }

func (f *fold) add(outs ...ingest.Out) {
	for _, o := range outs {
		key := o.Response + "\x00" + o.Item
		c := f.byKey[key]
		switch b := o.Body.(type) {
		case *events.OutputItemAdded:
			if b.Type != events.ItemFunctionCall || c != nil {
				continue
			}
			c = &call{Response: o.Response, Item: o.Item, CallID: o.CallID, Name: b.Name}
			if b.HasArguments {
				c.buf.WriteString(b.Arguments)
			}
			f.byKey[key] = c
			f.Calls = append(f.Calls, c)
		case *events.ArgumentsDelta:
			if c != nil && !c.Done && !c.Aborted {
				c.buf.WriteString(b.Delta)
			}
		case *events.ArgumentsDone:
			if c != nil && !c.Done && !c.Aborted {
				c.Done = true
				c.Args = c.buf.String()
				if b.HasArguments {
					c.Args = b.Arguments
				}
			}
		case *events.OutputItemDone:
			if c != nil && !c.Done && !c.Aborted {
				c.Done = true
				c.Args = c.buf.String()
				if b.HasArguments {
					c.Args = b.Arguments
				}
				if b.Name != "" {
					c.Name = b.Name
				}
			}
		case *events.ItemAborted:
			if c != nil && !c.Done {
				c.Aborted = true
			}
		case *events.TextDelta:
			f.Text.WriteString(b.Text)
		case *events.ResponseCompleted:
			f.Outcomes = append(f.Outcomes, o.Response+" complete")
		case *events.ResponseIncomplete:
			f.Outcomes = append(f.Outcomes, o.Response+" "+outcomeOf(b.Reason))
		case *events.ResponseFailed:
			f.Outcomes = append(f.Outcomes, o.Response+" error")
		}
		if c != nil && c.CallID == "" && o.CallID != "" {
			c.CallID = o.CallID
		}
	}
}

func outcomeOf(r events.Reason) string {
	if r == events.ReasonTruncated {
		return "truncated"
	}
	return "incomplete:" + string(r)
}

// String prints the fold canonically.
func (f *fold) String() string {
	var b strings.Builder
	for _, c := range f.Calls {
		fmt.Fprintf(&b, "call r=%s i=%s", c.Response, c.Item)
		if c.CallID != "" {
			fmt.Fprintf(&b, " c=%s", c.CallID)
		}
		fmt.Fprintf(&b, " name=%q args=%q %s\n", c.Name, c.args(), c.status())
	}
	for _, o := range f.Outcomes {
		fmt.Fprintf(&b, "outcome %s\n", o)
	}
	if f.Text.Len() > 0 {
		fmt.Fprintf(&b, "text %q\n", f.Text.String())
	}
	return b.String()
}

// errName names the sentinel an error wraps, for stable test output.
func errName(err error) string {
	name := "other"
	for _, s := range []struct {
		err  error
		name string
	}{
		{ingest.ErrMalformedInput, "malformed_input"},
		{ingest.ErrUnknownShape, "unknown_shape"},
		{ingest.ErrUnknownFormat, "unknown_format"},
		{ingest.ErrTooLarge, "too_large"},
		{ingest.ErrBadState, "bad_state"},
	} {
		if errors.Is(err, s.err) {
			name = s.name
			break
		}
	}
	if errors.Is(err, events.ErrBadInput) {
		name += " (bad input)"
	}
	return name
}

// readLines returns the non-blank lines of a recording.
func readLines(t testing.TB, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, ingest.EventMax)
	for sc.Scan() {
		if l := bytes.TrimSpace(sc.Bytes()); len(l) > 0 {
			out = append(out, append([]byte(nil), l...))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// feedAll feeds every event and fails the test on an error.
func feedAll(t testing.TB, n *ingest.Normalizer, lines [][]byte) []ingest.Out {
	t.Helper()
	var all []ingest.Out
	for i, l := range lines {
		out, err := n.Feed(l)
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		all = append(all, out...)
	}
	return append(all, n.Flush()...)
}

// render prints events one per line.
func render(outs []ingest.Out) string {
	var b strings.Builder
	for _, o := range outs {
		b.WriteString(o.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// merged returns outs with adjacent TextDeltas (same item) and adjacent
// ArgumentsDeltas (same item) joined, so that different chunkings compare.
func merged(outs []ingest.Out) []string {
	var res []string
	var prev *ingest.Out
	var acc strings.Builder
	flush := func() {
		if prev == nil {
			return
		}
		o := *prev
		switch b := o.Body.(type) {
		case *events.TextDelta:
			o.Body = &events.TextDelta{Index: b.Index, Text: acc.String()}
		case *events.ArgumentsDelta:
			o.Body = &events.ArgumentsDelta{Delta: acc.String()}
		}
		res = append(res, o.String())
		prev = nil
		acc.Reset()
	}
	for i := range outs {
		o := outs[i]
		var text string
		joinable := false
		switch b := o.Body.(type) {
		case *events.TextDelta:
			text, joinable = b.Text, true
		case *events.ArgumentsDelta:
			text, joinable = b.Delta, true
		}
		if joinable && prev != nil && prev.Item == o.Item && prev.Response == o.Response &&
			prev.Body.Kind() == o.Body.Kind() {
			acc.WriteString(text)
			continue
		}
		flush()
		if joinable {
			prev = &outs[i]
			acc.WriteString(text)
			continue
		}
		res = append(res, o.String())
	}
	flush()
	return res
}
