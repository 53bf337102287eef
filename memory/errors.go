package memory

import (
	"errors"

	"github.com/toolstream/toolstream/events"
)

var (
	// ErrNoTenant is returned by Recall, Get, List and History for a query
	// without a tenant, or with a string that is not a tenant name (then it
	// also wraps events.ErrInvalidTenant). A query without a tenant is an
	// error, never "all tenants" (invariant 7).
	ErrNoTenant = errors.New("memory: query without a tenant")

	// ErrNoUser is returned by Recall, Get, List and History for a query
	// without a user. Memory belongs to one user of one tenant; there is no
	// "all users" query.
	ErrNoUser = errors.New("memory: query without a user")

	// ErrNotFound is returned by Get and History for a record id the user
	// never had, and by Apply (together with events.ErrBadInput) for a
	// correction of such an id.
	ErrNotFound = errors.New("memory: record not found")

	// ErrForgotten is returned for a record id that was forgotten. It wraps
	// ErrNotFound: nothing of the record is left to return.
	ErrForgotten = &wrapped{"memory: record forgotten", ErrNotFound}

	// ErrVersionConflict is returned by Apply for a correction whose
	// expected version is not the record's current version: someone else
	// corrected it first. Nothing is written; the caller re-reads (Get) and
	// decides again. It wraps events.ErrBadInput, so a projection records the
	// event as a typed rejection and goes on.
	ErrVersionConflict = &wrapped{"memory: version conflict", events.ErrBadInput}

	// ErrDuplicateID is returned by Apply for an observation that reuses the
	// id of an existing record with different content. A record changes only
	// through a correction, which names the version it read. It wraps
	// events.ErrBadInput.
	ErrDuplicateID = &wrapped{"memory: observation id already used", events.ErrBadInput}

	// ErrInvalid is returned by Apply for a memory event that cannot be
	// applied as it is: missing tenant, user, event id, record id or text,
	// an unknown kind or polarity, a negative time or TTL, a confidence
	// outside [0, 1], an oversize text, or a body that is not a memory
	// event. It wraps events.ErrBadInput.
	ErrInvalid = &wrapped{"memory: invalid memory event", events.ErrBadInput}
)

// wrapped is a sentinel that is also another one (errors.Is sees both).
type wrapped struct {
	msg   string
	inner error
}

func (e *wrapped) Error() string { return e.msg }
func (e *wrapped) Unwrap() error { return e.inner }
