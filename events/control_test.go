package events_test

import (
	"errors"
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestCheckControl: a control event passes only on its own subjects, and a
// control subject holds only its own kind; the error is typed.
func TestCheckControl(t *testing.T) {
	tick := &events.Event{ID: "t", Tenant: "acme", Body: &events.Tick{}}
	reg := &events.Event{ID: "r", Tenant: events.SystemTenant, Body: &events.RegistryChanged{}}
	erased := &events.Event{ID: "e", Tenant: events.SystemTenant, Body: &events.Erased{Tenant: "acme", User: "ann"}}
	delta := &events.Event{ID: "d", Tenant: "acme", Body: &events.TextDelta{Text: "x"}}
	for _, c := range []struct {
		subject string
		ev      *events.Event
		forged  bool
	}{
		{events.ModelClockSubject, tick, false},
		{events.InClockSubject, tick, false},
		{events.RegistrySubject, reg, false},
		{events.EraseSubjects[events.StreamModel], erased, false},
		{events.EraseSubjects[events.StreamIn], erased, false},
		{"ts.model.acme.r1.i1", delta, false},
		{"ts.model.acme.r1.i1", tick, true},
		{"ts.model.acme.r1.i1.3", tick, true},
		{"ts.in.acme.openai.s1", tick, true},
		{"ts.ctl.acme.clock", tick, true},
		{events.RegistrySubject, tick, true},
		{events.ModelClockSubject, reg, true},
		{"ts.model.acme.r1.i1", reg, true},
		{"ts.mem.acme.ann", erased, true},
		{events.ModelClockSubject, delta, true},
		{events.RegistrySubject, delta, true},
	} {
		err := events.CheckControl(c.subject, c.ev)
		if got := err != nil; got != c.forged {
			t.Errorf("%s on %s: %v, want forged %v", c.ev.Body.Kind(), c.subject, err, c.forged)
			continue
		}
		if c.forged && (!errors.Is(err, events.ErrBadInput) || events.ReasonOf(err) != events.ReasonForgedControl) {
			t.Errorf("%s on %s: %v is not bad input of reason %s", c.ev.Body.Kind(), c.subject, err, events.ReasonForgedControl)
		}
	}
}
