package registry

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"

	"github.com/toolstream/toolstream/events"
)

// A registry change is signed so that only the operator decides what runs
// (docs/design.md invariant 10). The signature is ed25519 over signedMessage: a
// domain-separation prefix, then the digest, the issue time, the key id,
// the source and the spec, each length-prefixed (or fixed-size), so no two
// different changes share the signed bytes and a signature made for
// anything else never verifies as a registry change.
//
// Checks run cheapest first and nothing is parsed before the signature
// verifies: the spec's size, the signature over the raw bytes, the digest
// (SHA-256 of the spec), the issue time against the registry in force, and
// only then the spec, as canonical JSON.

// SpecBytesMax bounds a RegistryChanged's spec: a larger change is rejected
// (registry_too_large) before its signature is checked.
const SpecBytesMax = 1 << 20

// signPrefix separates registry signatures from any other use of the key.
const signPrefix = "toolstream registry change v1\x00"

func signedMessage(rc *events.RegistryChanged) []byte {
	b := make([]byte, 0, len(signPrefix)+4*4+8+len(rc.Digest)+len(rc.KeyID)+len(rc.Source)+len(rc.Spec))
	b = append(b, signPrefix...)
	b = appendField(b, []byte(rc.Digest))
	b = binary.BigEndian.AppendUint64(b, uint64(rc.IssuedAt))
	b = appendField(b, []byte(rc.KeyID))
	b = appendField(b, []byte(rc.Source))
	return appendField(b, rc.Spec)
}

func appendField(b, f []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(f)))
	return append(b, f...)
}

// Sign returns the change that makes r the registry in force, issued at
// issuedAt (Unix nanoseconds, > 0) and signed by key. source names where r
// comes from (a file path). It returns ErrNoSigningKey without a key and an
// error wrapping ErrInvalidRegistry for a nil registry or a spec larger
// than SpecBytesMax.
func Sign(key *SigningKey, r *Registry, source string, issuedAt int64) (*events.RegistryChanged, error) {
	switch {
	case key == nil:
		return nil, ErrNoSigningKey
	case r == nil:
		return nil, fmt.Errorf("registry: sign: %w: nil registry", ErrInvalidRegistry)
	case len(r.Spec()) > SpecBytesMax:
		return nil, fmt.Errorf("registry: sign: %w: the spec is %d bytes, more than %d", ErrInvalidRegistry, len(r.Spec()), SpecBytesMax)
	case issuedAt <= 0:
		return nil, fmt.Errorf("registry: sign: issue time %d is not after 1970", issuedAt)
	}
	rc := &events.RegistryChanged{Digest: r.Digest(), Source: source, Spec: r.Spec(), IssuedAt: issuedAt, KeyID: key.KeyID()}
	rc.Sig = key.sign(signedMessage(rc))
	return rc, nil
}

// ChangeError is a registry change refused: the registry in force stays.
// Err is one of ErrUnsigned, ErrUnknownKey, ErrBadSignature, ErrStale,
// ErrSpecTooLarge, or an error wrapping ErrInvalidRegistry; errors.Is also
// sees events.ErrBadInput (a projection records the event as rejected).
type ChangeError struct {
	ID     string        // the event's id
	Reason events.Reason // events.ReasonRegistry…
	Err    error
}

func (e *ChangeError) Error() string {
	return fmt.Sprintf("registry: change %q rejected: %s: %s", e.ID, e.Reason, e.Err.Error())
}

// Unwrap returns Err and events.ErrBadInput.
func (e *ChangeError) Unwrap() []error { return []error{e.Err, events.ErrBadInput} }

func rejected(ev *events.Event, reason events.Reason, err error) *ChangeError {
	return &ChangeError{ID: ev.ID, Reason: reason, Err: err}
}

// verify checks what can be checked without parsing: the kind, the spec's
// size, the signature against trust and the digest. It reads nothing
// else of the spec.
func verify(trust *Trust, ev *events.Event) (*events.RegistryChanged, *ChangeError) {
	rc, ok := events.As[*events.RegistryChanged](ev)
	if !ok {
		return nil, rejected(ev, events.ReasonRegistryInvalid, fmt.Errorf("%w: %s is not a registry change", ErrInvalidRegistry, ev.Kind))
	}
	if len(rc.Spec) > SpecBytesMax {
		return nil, rejected(ev, events.ReasonRegistryTooLarge, fmt.Errorf("%w: %d bytes, more than %d", ErrSpecTooLarge, len(rc.Spec), SpecBytesMax))
	}
	if len(rc.Sig) == 0 && rc.KeyID == "" {
		return nil, rejected(ev, events.ReasonRegistryUnsigned, ErrUnsigned)
	}
	pub, ok := trust.key(rc.KeyID)
	if !ok {
		return nil, rejected(ev, events.ReasonRegistryUnknownKey, fmt.Errorf("%w: %q (trusted: %v)", ErrUnknownKey, rc.KeyID, trust.KeyIDs()))
	}
	if rc.IssuedAt <= 0 || len(rc.Sig) != ed25519.SignatureSize || !ed25519.Verify(pub, signedMessage(rc), rc.Sig) {
		return nil, rejected(ev, events.ReasonRegistryBadSignature, fmt.Errorf("%w (key %s)", ErrBadSignature, rc.KeyID))
	}
	sum := sha256.Sum256(rc.Spec)
	if hex.EncodeToString(sum[:]) != rc.Digest {
		return nil, rejected(ev, events.ReasonRegistryInvalid, fmt.Errorf("%w: the spec's digest is not the event's %.16s…", ErrInvalidRegistry, rc.Digest))
	}
	return rc, nil
}

// FromEvent rebuilds the registry a RegistryChanged event carries, after
// checking that trust vouches for it (see Accept, which also orders it
// against the registry in force). The registry remembers the change's
// IssuedAt and KeyID.
//
// A refused change is a *ChangeError with its reason: another kind of
// event or a spec that is not the canonical JSON of a registry
// (registry_invalid), unsigned, signed by a key trust does not hold, a bad
// signature, a spec larger than SpecBytesMax. A nil or empty trust refuses
// every change.
func FromEvent(trust *Trust, ev *events.Event) (*Registry, error) {
	rc, cerr := verify(trust, ev)
	if cerr != nil {
		return nil, cerr
	}
	return fromChange(ev, rc)
}

// Accept decides a RegistryChanged event read after inForce, the registry
// in force (nil: none): it returns the registry in force after it. A
// change is accepted when FromEvent accepts it and it was issued later
// than inForce; the same change again (same issue time and digest) is a
// no-op that returns inForce. An earlier or equally old other change is
// refused as stale (ErrStale), so re-publishing an old signed change never
// rolls the registry back. A refusal is a *ChangeError and leaves inForce
// in force. The decision depends only on the events, so replaying the log
// decides the same way.
func Accept(trust *Trust, inForce *Registry, ev *events.Event) (*Registry, error) {
	rc, cerr := verify(trust, ev)
	if cerr != nil {
		return nil, cerr
	}
	if inForce != nil && inForce.issuedAt > 0 {
		if rc.IssuedAt == inForce.issuedAt && rc.Digest == inForce.digest {
			return inForce, nil
		}
		if rc.IssuedAt <= inForce.issuedAt {
			return nil, rejected(ev, events.ReasonRegistryStale, fmt.Errorf("%w: issued at %d, the registry in force (%.12s) at %d",
				ErrStale, rc.IssuedAt, inForce.digest, inForce.issuedAt))
		}
	}
	return fromChange(ev, rc)
}

// fromChange parses a verified change's spec, which must be canonical JSON.
func fromChange(ev *events.Event, rc *events.RegistryChanged) (*Registry, error) {
	r, err := parseSpec(rc.Spec)
	if err != nil {
		return nil, rejected(ev, events.ReasonRegistryInvalid, err)
	}
	r.issuedAt, r.keyID = rc.IssuedAt, rc.KeyID
	return r, nil
}

// ReasonOf returns the reason of a refused change (a *ChangeError in
// err's chain), or "" when err is not one.
func ReasonOf(err error) events.Reason {
	var ce *ChangeError
	if errors.As(err, &ce) {
		return ce.Reason
	}
	return ""
}

// Accepter returns Accept bound to trust for a consumer that holds the
// registry as V, an interface *Registry implements: the assembler, which
// does not import this package, takes registry.Accepter[assembler.Validator]
// in its Config. A V that *Registry does not implement is an error at the
// first accepted change.
func Accepter[V any](trust *Trust) func(inForce V, ev *events.Event) (V, error) {
	return func(inForce V, ev *events.Event) (V, error) {
		var zero V
		cur, _ := any(inForce).(*Registry)
		r, err := Accept(trust, cur, ev)
		if err != nil {
			return zero, err
		}
		v, ok := any(r).(V)
		if !ok {
			return zero, fmt.Errorf("registry: accepter: *Registry does not implement %s", reflect.TypeFor[V]())
		}
		return v, nil
	}
}
