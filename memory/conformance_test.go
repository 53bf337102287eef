package memory

import (
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/projector/projectortest"
)

// TestConformance runs the projection contract's suite on a recorded
// history: messages, episodes, typed observations, corrections (some
// stale), forgets and repeated ids of three users of two tenants, and a
// message that is not an event. The memory view is made as serve makes
// it.
func TestConformance(t *testing.T) {
	projectortest.Run(t, projectortest.Subject{
		New:    func() projector.Projection { return NewProjection(NewEngine(Config{}, nil)) },
		Record: recordHistory,
	})
}

func recordHistory(t testing.TB) []projectortest.Message {
	var out []projectortest.Message
	for i, ev := range genEvents(11, 160) {
		subj, err := events.MemorySubject(ev.Tenant, ev.User)
		if err != nil {
			t.Fatal(err)
		}
		m, err := projectortest.Event(subj, ev)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
		if i == 80 {
			out = append(out, projectortest.Message{Subject: subj, Data: []byte("\x00not an event")})
		}
	}
	return out
}
