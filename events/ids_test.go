package events_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestEnvelopeIDsAreBounded: every reader (DecodeAt, a projection's
// Envelope) refuses an event whose writer-chosen id is past
// events.IDBytesMax, or whose own id or causation is past
// events.EventIDBytesMax, as malformed input; ids at the bound are read.
func TestEnvelopeIDsAreBounded(t *testing.T) {

	for _, tc := range []struct {
		name string
		set  func(*events.Event, string)
		max  int
	}{
		{"user", func(e *events.Event, v string) { e.User = v }, events.IDBytesMax},
		{"session", func(e *events.Event, v string) { e.Session = v }, events.IDBytesMax},
		{"run", func(e *events.Event, v string) { e.Run = v }, events.IDBytesMax},
		{"step", func(e *events.Event, v string) { e.Step = v }, events.IDBytesMax},
		{"response", func(e *events.Event, v string) { e.Response = v }, events.IDBytesMax},
		{"item", func(e *events.Event, v string) { e.Item = v }, events.IDBytesMax},
		{"call id", func(e *events.Event, v string) { e.CallID = v }, events.IDBytesMax},
		{"id", func(e *events.Event, v string) { e.ID = v }, events.EventIDBytesMax},
		{"causation", func(e *events.Event, v string) { e.Causation = v }, events.EventIDBytesMax},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, n := range []int{tc.max, tc.max + 1} {
				ev := &events.Event{ID: "e1", Tenant: "acme", Response: "r1", Item: "i1", At: 1, Body: &events.Tick{}}
				tc.set(ev, strings.Repeat("y", n))
				data, err := events.Encode(ev)
				if err != nil {
					t.Fatal(err)
				}
				_, derr := events.DecodeAt("ts.model.acme.r1.i1", data)
				env, _ := events.EnvelopeWith(data, nil)
				cerr := events.CheckSubject("ts.model.acme.r1.i1", env)
				if n <= tc.max {
					if derr != nil || cerr != nil {
						t.Errorf("%s of %d bytes refused: %v / %v", tc.name, n, derr, cerr)
					}
					continue
				}
				for _, err := range []error{derr, cerr} {
					if !errors.Is(err, events.ErrIDTooLong) || !errors.Is(err, events.ErrBadInput) || events.ReasonOf(err) != events.ReasonMalformedEvent {
						t.Errorf("%s of %d bytes: %v, want ErrIDTooLong (bad input, malformed)", tc.name, n, err)
					}
				}
			}
		})
	}
}
