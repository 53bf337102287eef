package verifier

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
)

// An answer is also checked against its user's constraints in force at the
// answer's time (a memory record of kind constraint: "don't call me after
// 6pm", a shellfish allergy, a hotel budget's cap). The run driver reads
// them from memory as of the answer's event time, checks the answer with
// package verifier/constraint and records what it found in the log
// (events.ConstraintsChecked, on its own subject, ts.check, which the
// driver role may write and the answer's, where verdicts are, it may not;
// logs written before hold checks on the answer's subject, still read).
// On a check subject nothing else is read (events.CheckConstraintsSubject:
// a verdict or an answer there is refused, wrong_subject, and changes no
// verdict). The projection applies the record here,
// live and in a replay, without asking memory: each claim the record's
// violations overlap gets VerdictViolatesConstraint, naming the constraint
// (a violation that overlaps no claim becomes a claim of its own, last), and the
// tenant's policy treats it as a contradiction. The record carries record
// ids and spans, never a constraint's text.

// constrained applies a recorded constraint check to the answer it names:
// once (a check recorded again changes nothing and emits nothing).
func (p *Projection) constrained(tx *projector.Tx, ev *events.Event, cc *events.ConstraintsChecked) error {
	if ev.Response == "" {
		return fmt.Errorf("%w: constraint check without response id", events.ErrMissingField)
	}
	v, err := Get(tx, ev.Tenant, ev.Response)
	if err != nil {
		return fmt.Errorf("%w: constraint check of an answer never verified: %v", events.ErrBadInput, err)
	}
	if v.Verified.ConstraintsChecked {
		return nil
	}
	r := Report{Faithfulness: v.Verified.Faithfulness, Claims: slices.Clone(v.Verified.Claims), Undecided: v.Undecided}
	r = ApplyConstraintViolations(r, []rune(v.Answer), cc.Violations)
	v.Undecided = r.Undecided
	v.Verified = p.verdict(ev.Tenant, v.Answer, r)
	v.Verified.ConstraintsChecked, v.Verified.Constraints = true, cc.InForce
	return p.store(tx, ev, &v, events.ConstrainedID(ev.Tenant, ev.Response))
}

// ApplyConstraintViolations returns r with every claim a violation
// overlaps marked VerdictViolatesConstraint (its constraint named, its
// evidence kept), no longer undecided; a violation that overlaps no claim
// is added as a claim of its own, after the others. Violations whose span
// does not fit the answer are ignored.
func ApplyConstraintViolations(r Report, answer []rune, vs []events.ConstraintViolation) Report {
	var added []events.ClaimVerdict
	marked := map[int]bool{}
	for _, vi := range vs {
		if vi.Start < 0 || vi.End > len(answer) || vi.Start >= vi.End || vi.Constraint.Record == "" {
			continue
		}
		ref := &events.ConstraintRef{Record: vi.Constraint.Record, Version: vi.Constraint.Version}
		reason := "violates constraint " + ref.Record + "@" + strconv.Itoa(ref.Version)
		if vi.Reason != "" {
			reason += ": " + vi.Reason
		}
		hit := false
		for i := range r.Claims {
			c := &r.Claims[i]
			if c.End <= vi.Start || c.Start >= vi.End || marked[i] {
				continue
			}
			hit, marked[i] = true, true
			if c.Verdict != events.VerdictViolatesConstraint {
				reason := reason
				if c.Verdict != "" {
					reason += " (against the evidence: " + string(c.Verdict) + ")"
				}
				c.Verdict, c.Reason, c.Constraint = events.VerdictViolatesConstraint, reason, ref
			}
		}
		if !hit {
			added = append(added, events.ClaimVerdict{Text: string(answer[vi.Start:vi.End]), Start: vi.Start, End: vi.End,
				Verdict: events.VerdictViolatesConstraint, Reason: reason, Constraint: ref})
		}
	}
	// Added claims go last, so the indexes of the others (the undecided
	// ones, a judge's verdicts) keep meaning the same claims.
	r.Claims = append(r.Claims, added...)
	var und []int
	for _, i := range r.Undecided {
		if !marked[i] {
			und = append(und, i)
		}
	}
	r.Undecided = und
	return r
}
