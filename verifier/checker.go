package verifier

import "github.com/toolstream/toolstream/verifier/check"

// The checker is package check's (verifier/check): answer and evidence in,
// a Report out, a pure function. These names are the verifier's public API
// for it, so that callers name one package; they are check's types, not
// copies.

// Evidence is one tool result an answer may rest on (check.Evidence).
type Evidence = check.Evidence

// Failure is the typed error of a call that failed (check.Failure).
type Failure = check.Failure

// CheckerConfig bounds a Checker's work (check.CheckerConfig).
type CheckerConfig = check.CheckerConfig

// Checker checks answers against evidence (check.Checker).
type Checker = check.Checker

// Report is the verdicts on one answer's claims (check.Report).
type Report = check.Report

// Claim is one atomic claim of an answer with its rune offsets
// (check.Claim).
type Claim = check.Claim

// EvidenceIndex is one tool result indexed for checking
// (check.EvidenceIndex).
type EvidenceIndex = check.EvidenceIndex

// ErrIndexFormat is returned by UnmarshalEvidenceIndex for an index encoded
// by another version of the verifier (check.ErrIndexFormat).
var ErrIndexFormat = check.ErrIndexFormat

// NewChecker returns a Checker with cfg's zero fields set to their
// defaults (check.NewChecker).
func NewChecker(cfg CheckerConfig) *Checker { return check.NewChecker(cfg) }

// SplitClaims cuts an answer into claims (check.SplitClaims).
func SplitClaims(answer string) []Claim { return check.SplitClaims(answer) }

// IndexEvidence indexes one result (check.IndexEvidence).
func IndexEvidence(e Evidence) *EvidenceIndex { return check.IndexEvidence(e) }

// UnmarshalEvidenceIndex reads an index MarshalBinary encoded
// (check.UnmarshalEvidenceIndex): ErrIndexFormat for another format, an
// error for damaged bytes.
func UnmarshalEvidenceIndex(data, result []byte) (*EvidenceIndex, error) {
	return check.UnmarshalEvidenceIndex(data, result)
}
