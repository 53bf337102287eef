package client

import (
	"errors"
	"fmt"

	"github.com/toolstream/toolstream/events"
)

// Errors a caller branches on with errors.Is. Every error a method returns
// wraps one of these when it is one of these cases; the others (a lost
// connection, a cancelled context) wrap what nats.go or the context said.
var (
	// ErrInvalidOption is returned by Connect and the constructors for an
	// option that cannot work (no address, both a connection and a URL, a
	// window below one).
	ErrInvalidOption = errors.New("client: invalid option")
	// ErrNotFound: the call, run, record or user asked for does not exist,
	// or not in this tenant.
	ErrNotFound = errors.New("client: not found")
	// ErrStaleVersion: a write carried a version that is no longer the
	// current one; *StaleError says which is.
	ErrStaleVersion = errors.New("client: stale version")
	// ErrPermissionDenied: the server refused this identity the subject or
	// the operation (a NATS permission violation, or a service's refusal).
	ErrPermissionDenied = errors.New("client: permission denied")
	// ErrBadInput: the request, or an event read from the log, is malformed
	// (a bad tenant, format or argument; an event that does not decode:
	// *MalformedError).
	ErrBadInput = errors.New("client: bad input")
	// ErrNotConfirmed: an erasure that reaches more than one user
	// (EraseUserLess) was not confirmed by naming its tenant again; it
	// comes wrapped in ErrBadInput, and nothing was erased.
	ErrNotConfirmed = errors.New("client: not confirmed: name the tenant again to erase what it published without a user")
	// ErrErased: the event's personal data was erased (its user or record
	// was forgotten); what is left of it is its place in the log. A memory
	// record asked for after it was forgotten is ErrNotFound and ErrErased.
	ErrErased = errors.New("client: erased")
	// ErrUnavailable: nobody answers the service (the server runs no such
	// service, or it is starting).
	ErrUnavailable = errors.New("client: service unavailable")
	// ErrNoTenantStream: no stream of the log takes the tenant's subjects,
	// so nothing was stored: on the layout with per-tenant ingress streams
	// (docs/security.md) a tenant's stream is made when its first producer
	// or gateway credential is issued (toolstream creds producer --tenant T,
	// toolstream setup --tenants T on a cluster). The server answers such a
	// publish with no responders; on the shared layout it means JetStream
	// is not available.
	ErrNoTenantStream = errors.New("client: no stream of the log takes this tenant's events")
	// ErrDuplicateNotOurs: the log acknowledged an event as the duplicate
	// of a stored message that is not that event (another subject or
	// payload under its message id): the event was not stored. Message
	// ids are tagged with the publisher's key (WithMsgIDKey), so another
	// identity cannot cause it; the check is made where this identity may
	// read the log (a producer may not, and relies on the tag).
	ErrDuplicateNotOurs = errors.New("client: the log holds another message under this event's message id; the event was not stored")
)

// MalformedError is an event of the log that could not be decoded into
// the value asked for: a consumer gets it in place of the value, with the
// message's place in the log, and the iteration goes on. It is
// ErrBadInput, or ErrErased when the event's data key was destroyed.
type MalformedError struct {
	Stream  string // the log's stream
	Seq     uint64 // its sequence in Stream
	Subject string
	Err     error // what the decoder said
}

func (e *MalformedError) Error() string {
	return fmt.Sprintf("client: malformed event at %s seq %d (%s): %v", e.Stream, e.Seq, e.Subject, e.Err)
}

// Unwrap gives ErrBadInput (ErrErased for erased data) and the decoder's
// error.
func (e *MalformedError) Unwrap() []error {
	if errors.Is(e.Err, events.ErrErased) {
		return []error{ErrErased, e.Err}
	}
	return []error{ErrBadInput, e.Err}
}

// StaleError is a write refused because the version it read is no longer
// the current one.
type StaleError struct {
	Current uint64 // the version now
	Reason  string
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("client: stale version (current %d): %s", e.Current, e.Reason)
}

// Unwrap gives ErrStaleVersion.
func (e *StaleError) Unwrap() error { return ErrStaleVersion }
