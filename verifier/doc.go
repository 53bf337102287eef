// Package verifier checks a model's final answer against the tool results
// that preceded it, as a projection of the log: results in
// (CallSucceeded, CallFailed), answers in (a completed ResponseOutcome
// with no calls, AnswerSubmitted), one AnswerVerified out per answer with
// a verdict and evidence pointers for each of its claims, the tenant's
// policy applied (annotate, redact, block), and an external judge's
// recorded verdicts (JudgeVerdict) applied to the claims the checker left
// undecided, and a run driver's recorded check of the answer against its
// user's constraints in force (ConstraintsChecked on its own subject,
// ts.check, made with package verifier/constraint) applied as
// violates_constraint claims, which a policy treats as contradictions
// (constraints.go); nothing but such a check is read on a check subject.
//
// The checking itself is package verifier/check: a pure function of the
// answer, the evidence and the answer's time, whose doc says how a claim is
// read, bound to the evidence and judged, and what bounds its work; the
// evidence index it checks against is package verifier/evidence (a result
// indexed once, its stored encoding, its lookups). This package names
// their types and functions as its own (Evidence, Report, Checker,
// EvidenceIndex, SplitClaims, IndexEvidence, …: aliases, not copies), so
// that memory, the gateway, the judge and the commands import verifier
// only.
//
// # The projection
//
// A result is indexed once, when it arrives (evidence.IndexEvidence), and its
// index is kept in the view beside the result, its time, freshness and
// array cuts; a failed call is kept as its typed error. An answer is
// checked against the kept indexes of the evidence in its scope (the
// run's, else the session's, else the tenant's) with check's CheckKept: an
// index of another format, or one damaged, is made again from its result,
// with the same verdicts. Get reads an answer's verdicts; Evidences and
// AnswerEvidence read the evidence in scope (what a judge is shown).
//
// # Invariants (numbers from docs/design.md)
//
//   - 6, replay equals live: Apply reads no clock (an answer is checked at
//     its event's time) and the checker is deterministic, and a kept index
//     encodes to the same bytes every time, so the view's digest is the
//     same however the log is batched (TestProjectionIndexedEvidence,
//     TestConformance).
//   - 7, tenant isolation: every key is under its event's tenant, and an
//     answer is checked only against its tenant's evidence.
//   - 9, bad input loses nothing: a result that is not JSON is kept and
//     skipped by the checker; an answer event without its response id is
//     a typed error (events.ErrMissingField); no answer text fails a check.
//
// # Concurrency
//
// A Projection is applied by one projector at a time; its Checker may be
// shared. ApplyPolicy, ApplyJudgeVerdicts, LatestEvidence and
// ValidateEvidence are pure functions.
package verifier
