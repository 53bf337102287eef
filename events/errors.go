package events

import "errors"

var (
	// ErrBadInput is the root of every error caused by input rather than by
	// Toolstream itself. Projections record events that fail with it as
	// rejected and go on; they never retry them.
	ErrBadInput = errors.New("events: bad input")

	// ErrMalformed is returned by Decode for bytes that are not an encoded
	// event (garbage, truncation). It wraps ErrBadInput.
	ErrMalformed = BadInput("events: malformed event")

	// ErrUnknownKind is returned by Decode for a kind this reader does not
	// know. It wraps ErrBadInput.
	ErrUnknownKind = BadInput("events: unknown event kind")

	// ErrUnknownVersion is returned by Decode for a schema version newer than
	// this reader knows. It wraps ErrBadInput.
	ErrUnknownVersion = BadInput("events: unknown schema version")

	// ErrInvalidTenant is returned for an empty tenant or one that is not a
	// valid tenant name ([A-Za-z0-9_-], 1 to 64 bytes). It wraps ErrBadInput.
	ErrInvalidTenant = BadInput("events: invalid tenant")

	// ErrMissingField is returned when an envelope lacks a field its kind
	// requires (for example a model event without a response id). It wraps
	// ErrBadInput.
	ErrMissingField = BadInput("events: missing field")

	// ErrBadKey is returned by a Keyring (package keys: keys.ErrBadKey
	// wraps it) when the stored data key of a scope is not a key (the wrong
	// length: corrupted, or written by something that should not have):
	// nothing of that scope can be sealed or opened until an operator
	// erases it. It wraps ErrBadInput, so a projection records that user's
	// event as rejected (ReasonBadKey) and goes on with everyone else's.
	ErrBadKey = BadInput("events: the stored data key is not a key")

	// ErrKeyQuota is returned by a Keyring (package keys: keys.ErrTooManyKeys
	// wraps it) asked to make a new user's data key for a tenant that holds
	// as many as it may: nothing of that user can be sealed until an
	// erasure frees a slot. It wraps ErrBadInput, so a projection records
	// the event that needed the key as rejected (ReasonQuotaExceeded) and
	// goes on with everyone else's.
	ErrKeyQuota = BadInput("events: the tenant holds as many user keys as it may")
)

// BadInput returns a sentinel error with the message msg that wraps
// ErrBadInput: how every package declares the bad-input errors its callers
// branch on (errors.Is) while the projector still records them as
// rejected.
func BadInput(msg string) error { return &badInput{msg} }

type badInput struct{ msg string }

func (e *badInput) Error() string { return e.msg }
func (e *badInput) Unwrap() error { return ErrBadInput }
