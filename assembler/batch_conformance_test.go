package assembler_test

import (
	"fmt"
	"testing"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/projector/projectortest"
)

// TestConformanceAssemblerBatches runs the projection contract's suite on
// a history made for where a batch ends: an open response's row waits for
// the batch's Flush (finish), so the suite's batches of one message, of
// four and of everything, its restarts and its crashes at several commits
// (views cloned with only what was fsynced, or some of the rest) must all
// reach the view and the events of the reference. Three responses of two
// tenants interleave event by event, with text and two calls each; in the
// middle of two of them an event the assembler refuses (a delta without
// an item: bad input, its Tx dropped while the response's row waits for
// Flush) and a repeated done of a decided call; one response goes silent
// until a clock tick times it out.
func TestConformanceAssemblerBatches(t *testing.T) {
	projectortest.Run(t, projectortest.Subject{
		New:    func() projector.Projection { return assembler.New(assembler.Config{}) },
		Record: batchesHistory,
		Name:   "assembler_batches",
	})
}

func batchesHistory(t testing.TB) []projectortest.Message {
	var out []projectortest.Message
	n := 0
	add := func(tenant, line string) {
		t.Helper()
		n++
		ev := parseLine(t, tenant, line)
		ev.ID = fmt.Sprintf("batches:%d", n)
		if ev.At == 0 {
			ev.At = int64(n) * 1e9
		}
		subj, err := events.ModelSubject(ev.Tenant, ev.Response, ev.Item)
		if _, tick := ev.Body.(*events.Tick); tick {
			subj, err = events.ModelClockSubject, nil
		}
		if err != nil {
			t.Fatal(err)
		}
		m, err := projectortest.Event(subj, ev)
		if err != nil {
			t.Fatal(err)
		}
		m.Time = ev.At
		out = append(out, m)
	}
	type resp struct{ tenant, id string }
	rs := []resp{{"acme", "ra"}, {"acme", "rb"}, {"globex", "rc"}}
	script := func(r resp) []string {
		return []string{
			"start " + r.id,
			"text " + r.id + " -- Looking that up.",
			"added " + r.id + " i1 name=lookup call=c1 --",
			"delta " + r.id + " i1 -- {\"q\":",
			"added " + r.id + " i2 name=lookup call=c2 --",
			"delta " + r.id + " i1 -- \"" + r.id + "\"}",
			"done " + r.id + " i1 --",
			"delta " + r.id + " i2 -- {\"q\":2}",
			"done " + r.id + " i2 --",
			"completed " + r.id,
		}
	}
	for step := range 10 {
		for i, r := range rs {
			lines := script(r)
			switch {
			case i == 2 && step >= 7:
				continue // rc goes silent before its second call is done
			case step == 4 && i == 0:
				add(r.tenant, "delta "+r.id+" -- no item") // refused: bad input
			case step == 8 && i == 1:
				add(r.tenant, "done "+r.id+" i1 --") // decided already: changes nothing
			}
			add(r.tenant, lines[step])
		}
	}
	add(events.SystemTenant, "tick at=1000") // rc: silent past the idle deadline
	return out
}
