package assembler_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
)

// TestCallsReadFromMemoryOrTheViewAgree: a response first seen by this
// process has its calls' rows read from memory, one found in the view (the
// assembler restarted in the middle of it) from the view, and one with
// more calls than the memory keeps (1,024) from the view past them. The
// three get the same decisions: every call decided once (each done call
// completed, the others incomplete when the response ends, in the same
// order), a late done or a repeated added of a decided call changing
// nothing.
func TestCallsReadFromMemoryOrTheViewAgree(t *testing.T) {
	h := newHarness(t, assembler.Config{})
	run := func(resp string, calls int, restartAt int) []string {
		var last uint64
		pub := func(line string) { last = h.publish(parseLine(t, "acme", line)) }
		pub("start " + resp)
		for i := range calls {
			if i == restartAt {
				h.settle(last)
				h.stop()
				h.start()
			}
			item := fmt.Sprintf("i%04d", i)
			pub(fmt.Sprintf("added %s %s name=f call=c%d --", resp, item, i))
			pub(fmt.Sprintf("delta %s %s -- {\"n\":%d}", resp, item, i))
			if i%2 == 0 {
				pub(fmt.Sprintf("done %s %s --", resp, item))
				pub(fmt.Sprintf("itemdone %s %s name=f --", resp, item))          // late: decided already
				pub(fmt.Sprintf("added %s %s name=f call=c%d --", resp, item, i)) // again: stays decided
			}
		}
		pub("completed " + resp)
		h.settle(last)
		var out []string
		for _, ev := range h.emitted() {
			switch b := ev.Body.(type) {
			case *events.CallCompleted:
				out = append(out, fmt.Sprintf("completed %s %s", ev.Item, b.Arguments))
			case *events.CallIncomplete:
				out = append(out, fmt.Sprintf("incomplete %s %s %s", ev.Item, b.Reason, b.Partial))
			case *events.CallRejected:
				out = append(out, fmt.Sprintf("rejected %s %s", ev.Item, b.Reason))
			case *events.ResponseOutcome:
				out = append(out, fmt.Sprintf("response %s calls=%d", b.Status, b.Calls))
			}
		}
		return out
	}
	want := func(calls int) []string {
		var done, open []string
		for i := range calls {
			if i%2 == 0 {
				done = append(done, fmt.Sprintf("completed i%04d {\"n\":%d}", i, i))
			} else {
				open = append(open, fmt.Sprintf("incomplete i%04d %s {\"n\":%d}", i, events.ReasonStreamEnded, i))
			}
		}
		return append(append(done, open...), fmt.Sprintf("response completed calls=%d", calls))
	}
	const calls = 24
	memory := run("r1", calls, -1)
	if w := want(calls); !slices.Equal(memory, w) {
		t.Fatalf("from memory:\n%q\nwant\n%q", memory, w)
	}
	if view := run("r2", calls, calls/2); !slices.Equal(memory, view) {
		t.Fatalf("from memory:\n%q\nafter a restart, from the view:\n%q", memory, view)
	}
	const many = 1024 + 6
	if past, w := run("r3", many, -1), want(many); !slices.Equal(past, w) {
		t.Fatalf("past the memory's bound:\n%q\nwant\n%q", past, w)
	}
}
