package events

import (
	"errors"
	"fmt"
)

// Control events. A clock tick, a registry change and an erasure
// tombstone act on every tenant, so each is accepted only on the subjects
// of the system tenant that its sender writes (the clock and the registry
// only the assembler role may publish, the tombstones the operator): on a
// tenant's subject anyone holding that tenant's producer credential could
// have written it. A reader that applies control events by their body
// checks CheckControl first.

// ReasonForgedControl: a control event (tick, registry change, erasure
// tombstone) on a subject other than its own, or another kind of event on
// a control subject. It is refused and changes nothing, for no tenant.
const ReasonForgedControl Reason = "forged_control"

// ErrForgedControl is CheckControl's error. It wraps ErrBadInput.
var ErrForgedControl = BadInput("events: forged_control")

// controlSubjects are the subjects each control kind is accepted on.
var controlSubjects = func() map[Kind][]string {
	m := map[Kind][]string{
		KindTick:            ClockSubjects,
		KindRegistryChanged: {RegistrySubject},
	}
	for _, s := range Streams {
		m[KindErased] = append(m[KindErased], EraseSubjects[s])
	}
	return m
}()

// kindOfControlSubject is the control kind each control subject holds.
var kindOfControlSubject = func() map[string]Kind {
	m := map[string]Kind{}
	for k, subjects := range controlSubjects {
		for _, s := range subjects {
			m[s] = k
		}
	}
	return m
}()

// IsControl reports whether k is a control kind: one whose events act on
// every tenant (ticks, registry changes, erasure tombstones).
func IsControl(k Kind) bool { _, ok := controlSubjects[k]; return ok }

// ControlSubjects are the subjects an event of control kind k is accepted
// on; nil for a kind that is not a control kind.
func ControlSubjects(k Kind) []string { return controlSubjects[k] }

// CheckControl returns ErrForgedControl for an event of a control kind
// stored on any subject but its kind's own, and for an event of another
// kind stored on a control subject. Other events on other subjects pass.
// It does not check the tenant (CheckSubject does).
func CheckControl(subject string, ev *Event) error {
	kind := ev.Kind
	if ev.Body != nil {
		kind = ev.Body.Kind()
	}
	want, onControl := kindOfControlSubject[subject]
	switch {
	case IsControl(kind) && (!onControl || want != kind):
		return fmt.Errorf("%w: %s %q on %s (accepted only on %v)", ErrForgedControl, kind, ev.ID, subject, controlSubjects[kind])
	case !IsControl(kind) && onControl:
		return fmt.Errorf("%w: %s %q on the control subject %s (which holds only %s)", ErrForgedControl, kind, ev.ID, subject, want)
	}
	return nil
}

// isForgedControl reports whether err is CheckControl's.
func isForgedControl(err error) bool { return errors.Is(err, ErrForgedControl) }
