package assembler_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
)

// TestDecidingACallReadsNoArgumentRow: a call's argument bytes are kept in
// the assembler's memory as its deltas are applied, so deciding it reads
// no argument row back, whatever the batches; only a call whose bytes are
// past the memory bound, or a runner that restarted mid-call (its memory
// rebuilt from the row when the call is first seen again), reads it. The
// arguments emitted are the deltas' bytes in every case.
func TestDecidingACallReadsNoArgumentRow(t *testing.T) {
	for _, tc := range []struct {
		name      string
		deltas    int    // argument deltas of the call, besides its opening and closing ones
		piece     string // each delta's bytes
		restartAt int    // restart the runner after this many deltas (0: never)
		reads     int    // argument rows read to decide it
	}{
		{name: "english, one runner", deltas: 40, piece: "find flights to "},
		{name: "中文, one runner", deltas: 40, piece: "查询明天北京的天气"},
		{name: "restart mid-call", deltas: 40, piece: "abcdefghijklmnop", restartAt: 20},
		{name: "past the memory bound", deltas: 300, piece: "abcdefghijklmnop", reads: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, assembler.Config{})
			pub := func(b events.Body) uint64 {
				return h.publish(&events.Event{Tenant: "acme", Response: "r1", Item: "i1", CallID: "c1", Body: b})
			}
			last := pub(&events.OutputItemAdded{Type: events.ItemFunctionCall, Name: "search"})
			last = pub(&events.ArgumentsDelta{Delta: `{"q":"`})
			for d := 1; d <= tc.deltas; d++ {
				last = pub(&events.ArgumentsDelta{Delta: tc.piece})
				if d == tc.restartAt {
					h.settle(last)
					h.stop()
					h.start()
				}
			}
			pub(&events.ArgumentsDelta{Delta: `"}`})
			last = pub(&events.ArgumentsDone{})
			h.settle(last)
			var got []string
			for _, ev := range h.emitted() {
				if c, ok := ev.Body.(*events.CallCompleted); ok {
					var v struct{ Q string }
					if err := json.Unmarshal(c.Arguments, &v); err != nil {
						t.Fatalf("arguments %q: %v", c.Arguments, err)
					}
					got = append(got, v.Q, fmt.Sprint(c.From.Deltas))
				} else {
					t.Fatalf("emitted %s, want CallCompleted", ev.Kind)
				}
			}
			want := []string{strings.Repeat(tc.piece, tc.deltas), fmt.Sprint(tc.deltas + 2)}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("emitted %.80q, want %.80q", got, want)
			}
			h.stop()
			if n := assembler.ArgReads(h.a); n != tc.reads {
				t.Fatalf("deciding the call read %d argument rows, want %d", n, tc.reads)
			}
		})
	}
}
