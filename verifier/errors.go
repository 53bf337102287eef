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

	// ErrCheckFailed wraps a fault of the checker's on one answer (a
	// panic): the projection records the answer as rejected input with
	// the fault as its reason, and goes on with the next; the answer has
	// no verdict, so a run waiting for one withholds it (fail closed).
	ErrCheckFailed = errors.New("verifier: the checker failed on this answer")
)

// ErrNotVerified is returned by Get for an answer with no verdicts.
var ErrNotVerified = errors.New("verifier: answer not verified")
