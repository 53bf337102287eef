package registry

import (
	"errors"
	"fmt"
)

var (
	// ErrInvalidRegistry is the root of every error Parse and Load return for
	// a tools file they cannot use. Each problem is a *FieldError naming the
	// field (tools[2].retry.on[0]) that wraps it.
	ErrInvalidRegistry = errors.New("registry: invalid registry")

	// ErrNoRegistry is returned by Follower.Wait when the log holds no
	// registry yet and the context ends.
	ErrNoRegistry = errors.New("registry: no registry in the log")

	// ErrNoSigningKey is returned by Sign, Publish and NewWatcher (with a
	// log to record in) when no signing key is given.
	ErrNoSigningKey = errors.New("registry: no signing key")
	// ErrDuplicateNotOurs: Publish's change was acknowledged as the
	// duplicate of a message that is not a registry change; it was not
	// recorded.
	ErrDuplicateNotOurs = errors.New("registry: message id taken by another message")

	// The reasons a registry change is refused, each wrapped by a
	// *ChangeError (with its events.Reason) that also wraps
	// events.ErrBadInput. A change whose spec is not the canonical JSON of
	// a registry wraps ErrInvalidRegistry instead.

	// ErrUnsigned: the change carries no signature (events written before
	// registry signing carry none).
	ErrUnsigned = errors.New("registry: change not signed")
	// ErrUnknownKey: the change is signed by a key the Trust does not hold
	// (a nil or empty Trust holds none).
	ErrUnknownKey = errors.New("registry: change signed by a key that is not trusted")
	// ErrBadSignature: the signature does not verify with the key it names.
	ErrBadSignature = errors.New("registry: bad signature")
	// ErrStale: the change was issued no later than the registry in force.
	ErrStale = errors.New("registry: stale change")
	// ErrSpecTooLarge: the change's spec is larger than SpecBytesMax.
	ErrSpecTooLarge = errors.New("registry: spec too large")
)

// FieldError is one problem of a tools file: the field's path and what is
// wrong with it. It wraps ErrInvalidRegistry.
type FieldError struct {
	Path string // e.g. "tools[0].timeout"; "" for the document itself
	Msg  string
}

func (e *FieldError) Error() string {
	if e.Path == "" {
		return "registry: " + e.Msg
	}
	return fmt.Sprintf("registry: %s: %s", e.Path, e.Msg)
}

// Unwrap returns ErrInvalidRegistry.
func (e *FieldError) Unwrap() error { return ErrInvalidRegistry }
