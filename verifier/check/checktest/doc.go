// Package checktest reads the verifier's labelled set for its tests: the
// files verifier/check/testdata/*.jsonl (and the halves below it), one case
// a line — tool results, an answer, the answer's time, and the expected
// verdict of its claims (found by a substring of the claim) with, for
// supported claims, the evidence pointer a reviewer would cite. The labels
// were written by hand from the evidence, not from the checker's output.
//
// The checker's tests (package check) and the projection's (package
// verifier) read the set with the one Load. It only reads: a line that is
// not a case (JSON that does not decode, a time or a duration that does
// not parse) fails the test naming its file and line, so a case is never
// checked against a time it does not state. Safe for concurrent use.
package checktest
