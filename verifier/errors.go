package verifier

import (
	"errors"
	"fmt"
)

var (
	// ErrUnknownPolicy is returned by ParsePolicy for a name that is not
	// annotate, redact or block.
	ErrUnknownPolicy = errors.New("verifier: unknown policy")

	// ErrBadEvidence is returned by ValidateEvidence for a result that is
	// not one JSON value or has no call id. Check skips such evidence; a
	// projection records it as rejected input.
	ErrBadEvidence = errors.New("verifier: bad evidence")

	// ErrJudgeUnavailable is returned when an external judge cannot be
	// reached or answers with a non-2xx status (see JudgeStatusError). The
	// deterministic verdicts stand; the caller may retry later.
	ErrJudgeUnavailable = errors.New("verifier: judge unavailable")

	// ErrJudgeResponse is returned when a judge's answer breaks the
	// contract: not JSON, a verdict outside supported / contradicted /
	// unsupported / not_checkable, or an index that was not asked about.
	ErrJudgeResponse = errors.New("verifier: malformed judge response")
)

// JudgeStatusError is a judge's non-2xx HTTP answer. It wraps
// ErrJudgeUnavailable.
type JudgeStatusError struct {
	StatusCode int
	Body       string // at most the first 512 bytes
}

func (e *JudgeStatusError) Error() string {
	return fmt.Sprintf("verifier: judge answered %d: %s", e.StatusCode, e.Body)
}

func (e *JudgeStatusError) Unwrap() error { return ErrJudgeUnavailable }

// ErrNotVerified is returned by Get for an answer with no verdicts.
var ErrNotVerified = errors.New("verifier: answer not verified")
