package events

import (
	"errors"
	"fmt"
)

// ReasonTenantMismatch: an event's envelope names another tenant than the
// tenant token of the subject it was stored on. Permissions are granted by
// subject, so such an event speaks for a tenant its writer may not write
// for: it is refused by every reader.
const ReasonTenantMismatch Reason = "tenant_mismatch"

// ErrTenantMismatch is DecodeAt's error for an event whose envelope tenant
// is not its subject's tenant. It wraps ErrBadInput.
var ErrTenantMismatch = BadInput("events: tenant_mismatch")

// DecodeAt decodes data stored on the log subject subject and checks that
// the envelope's tenant is the subject's tenant token (invariant 10: a
// writer allowed one tenant's subjects cannot speak for another). It
// returns Decode's errors, or ErrTenantMismatch.
func DecodeAt(subject string, data []byte) (*Event, error) { return DecodeAtWith(subject, data, nil) }

// DecodeAtWith is DecodeAt opening a sealed body with kr (DecodeWith).
func DecodeAtWith(subject string, data []byte, kr Keyring) (*Event, error) {
	ev, err := DecodeWith(data, kr)
	if err != nil {
		return nil, err
	}
	if err := CheckSubject(subject, ev); err != nil {
		return nil, err
	}
	return ev, nil
}

// CheckSubject returns ErrTenantMismatch unless ev's tenant is the tenant
// token of subject (a malformed subject is ErrMalformed), ErrIDTooLong for
// an envelope id past its bound (CheckIDs), and ErrWrongSubject for what a
// built-in call's outcome subject may not hold (CheckBuiltinResultSubject).
func CheckSubject(subject string, ev *Event) error {
	t, err := SubjectTenant(subject)
	if err != nil {
		return err
	}
	if t != ev.Tenant {
		return fmt.Errorf("%w: event %s on %s says tenant %q", ErrTenantMismatch, ev.ID, subject, ev.Tenant)
	}
	if err := CheckIDs(ev); err != nil {
		return err
	}
	return CheckBuiltinResultSubject(subject, ev)
}

// IDBytesMax bounds each id of an envelope that a writer chooses (user,
// session, run, step, response, item, call id). They go into bucket keys
// and request subjects that no subject builder sees (the executor's record
// key is tenant/run/step/call), and nats-server closes a connection whose
// control line passes 4 KiB: one producer's Ts-Run of 3,500 bytes took
// every projection on serve's shared connection down. Four ids at this
// bound and their separators stay well inside the line.
const IDBytesMax = 512

// EventIDBytesMax bounds an event's own id and its causation, which are
// derived from the ids above (a response, an item, an index) and travel
// in the body of a message or a header, never alone in a subject.
const EventIDBytesMax = 4 * IDBytesMax

// ErrIDTooLong is CheckIDs' error. It wraps ErrMalformed (and so
// ErrBadInput): every reader refuses such an event as malformed input.
var ErrIDTooLong = fmt.Errorf("%w: an envelope id too long", ErrMalformed)

// CheckIDs returns ErrIDTooLong for an envelope id of ev past IDBytesMax
// (EventIDBytesMax for the event's id and causation). DecodeAt and every
// projection's read (CheckSubject) run it, so an event written past the
// bound by anyone, at the edge or straight onto the log, is refused where
// it is read, before any of its ids is used.
func CheckIDs(ev *Event) error {
	for _, f := range [...]struct {
		name, v string
		max     int
	}{
		{"user", ev.User, IDBytesMax}, {"session", ev.Session, IDBytesMax}, {"run", ev.Run, IDBytesMax},
		{"step", ev.Step, IDBytesMax}, {"response", ev.Response, IDBytesMax}, {"item", ev.Item, IDBytesMax},
		{"call id", ev.CallID, IDBytesMax}, {"id", ev.ID, EventIDBytesMax}, {"causation", ev.Causation, EventIDBytesMax},
	} {
		if len(f.v) > f.max {
			return fmt.Errorf("%w: the %s of a %s event of tenant %s is %d bytes, over %d", ErrIDTooLong, f.name, ev.Kind, ev.Tenant, len(f.v), f.max)
		}
	}
	return nil
}

// ReasonOf is the typed reason of a bad-input error: the Reason it names,
// or ReasonMalformedEvent for any other bad input, "" for an error that is
// not bad input.
func ReasonOf(err error) Reason {
	switch {
	case errors.Is(err, ErrTenantMismatch):
		return ReasonTenantMismatch
	case isForgedControl(err):
		return ReasonForgedControl
	case errors.Is(err, ErrWrongSubject):
		return ReasonWrongSubject
	case errors.Is(err, ErrBadKey):
		return ReasonBadKey
	case errors.Is(err, ErrKeyQuota):
		return ReasonQuotaExceeded
	case errors.Is(err, ErrBadInput):
		return ReasonMalformedEvent
	}
	return ""
}
