package verifier

import "errors"

var (
	// ErrUnknownPolicy is returned by ParsePolicy for a name that is not
	// annotate, redact or block.
	ErrUnknownPolicy = errors.New("verifier: unknown policy")

	// ErrBadEvidence is returned by ValidateEvidence for a result that is
	// not one JSON value or has no call id. Check skips such evidence; a
	// projection records it as rejected input.
	ErrBadEvidence = errors.New("verifier: bad evidence")
)

// ErrNotVerified is returned by Get for an answer with no verdicts.
var ErrNotVerified = errors.New("verifier: answer not verified")
