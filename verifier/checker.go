package verifier

import (
	"github.com/toolstream/toolstream/verifier/check"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// The checker is package check's (verifier/check): answer and evidence in,
// a Report out, a pure function; the evidence index it checks against is
// package evidence's (verifier/evidence). These names are the verifier's
// public API for both, so that callers name one package; they are their
// types, not copies.

// Evidence is one tool result an answer may rest on (evidence.Evidence).
type Evidence = evidence.Evidence

// Failure is the typed error of a call that failed (evidence.Failure).
type Failure = evidence.Failure

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
// (evidence.EvidenceIndex).
type EvidenceIndex = evidence.EvidenceIndex

// ErrIndexFormat is returned by UnmarshalEvidenceIndex for an index encoded
// by another version of the verifier (evidence.ErrIndexFormat).
var ErrIndexFormat = evidence.ErrIndexFormat

// NewChecker returns a Checker with cfg's zero fields set to their
// defaults (check.NewChecker).
func NewChecker(cfg CheckerConfig) *Checker { return check.NewChecker(cfg) }

// SplitClaims cuts an answer into claims (check.SplitClaims).
func SplitClaims(answer string) []Claim { return check.SplitClaims(answer) }

// IndexEvidence indexes one result (evidence.IndexEvidence).
func IndexEvidence(e Evidence) *EvidenceIndex { return evidence.IndexEvidence(e) }

// UnmarshalEvidenceIndex reads an index MarshalBinary encoded
// (evidence.UnmarshalEvidenceIndex): ErrIndexFormat for another format, an
// error for damaged bytes.
func UnmarshalEvidenceIndex(data, result []byte) (*EvidenceIndex, error) {
	return evidence.UnmarshalEvidenceIndex(data, result)
}
