package verifier

import (
	"encoding/json"
	"fmt"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/check"
	"github.com/toolstream/toolstream/verifier/evidence"
	"slices"
)

// An external judge (internal/judging) may decide the claims Check leaves
// undecided; its verdicts are events in the log, and the projection applies
// them here, live and in a replay, without calling anyone.

func validVerdict(v events.Verdict) bool {
	switch v {
	case events.VerdictSupported, events.VerdictContradicted, events.VerdictUnsupported, events.VerdictNotCheckable:
		return true
	}
	return false
}

// LatestEvidence returns each call's newest version of in, in the order
// the calls first appear: the evidence Check reads.
func LatestEvidence(in []Evidence) []Evidence { return evidence.LatestEvidence(in) }

// ApplyJudgeVerdicts returns a copy of r with recorded judge verdicts in
// place of the deterministic ones, those claims no longer undecided and
// Faithfulness recomputed. Verdicts for unknown claims or with an unknown
// verdict are ignored.
func ApplyJudgeVerdicts(r Report, vs []events.JudgeVerdict) Report {
	out := Report{Claims: slices.Clone(r.Claims)}
	decided := map[int]bool{}
	for _, v := range vs {
		if v.Claim < 0 || v.Claim >= len(out.Claims) || !validVerdict(v.Verdict) {
			continue
		}
		c := &out.Claims[v.Claim]
		c.Verdict = v.Verdict
		c.Reason = "judge: " + v.Reason
		if v.Verdict != events.VerdictSupported {
			c.Evidence = nil
		}
		decided[v.Claim] = true
	}
	for _, i := range r.Undecided {
		if !decided[i] {
			out.Undecided = append(out.Undecided, i)
		}
	}
	supported, checkable := 0, 0
	for _, c := range out.Claims {
		switch c.Verdict {
		case events.VerdictSupported:
			supported++
			checkable++
		case events.VerdictContradicted, events.VerdictUnsupported:
			checkable++
		}
	}
	out.Faithfulness = check.Faithfulness(supported, checkable)
	return out
}

// ValidateEvidence reports whether e can serve as evidence: a call id and
// a result that is one JSON value. It returns an error wrapping
// ErrBadEvidence otherwise.
func ValidateEvidence(e Evidence) error {
	if e.CallID == "" {
		return fmt.Errorf("verifier: evidence from %q without a call id: %w", e.Name, ErrBadEvidence)
	}
	if !json.Valid(e.Result) {
		return fmt.Errorf("verifier: evidence %s: result is not JSON: %w", e.CallID, ErrBadEvidence)
	}
	return nil
}
