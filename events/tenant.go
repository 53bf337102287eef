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
// token of subject (a malformed subject is ErrMalformed).
func CheckSubject(subject string, ev *Event) error {
	t, err := SubjectTenant(subject)
	if err != nil {
		return err
	}
	if t != ev.Tenant {
		return fmt.Errorf("%w: event %s on %s says tenant %q", ErrTenantMismatch, ev.ID, subject, ev.Tenant)
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
	case errors.Is(err, ErrBadInput):
		return ReasonMalformedEvent
	}
	return ""
}
