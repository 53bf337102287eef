package check

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/check/checktest"
)

// heldOut7Kinds are the kinds of label of testdata/heldout7 (its README
// says what each plants), in the order the report lists them: heldout5's,
// with count_true (a count that the length of a list, or of its members
// passing a filter, makes true) after negation_true, count_wrong (a count
// the list does not have) after sibling_swap, and not_checkable (a
// greeting, an offer, a piece of advice: nothing the evidence could decide)
// last.
var heldOut7Kinds = func() []struct{ kind, verdict string } {
	type kind = struct{ kind, verdict string }
	var ks []kind
	for _, k := range heldOut5Kinds {
		ks = append(ks, k)
		switch k.kind {
		case "negation_true":
			ks = append(ks, kind{"count_true", "supported"})
		case "sibling_swap":
			ks = append(ks, kind{"count_wrong", "contradicted"})
		}
	}
	return append(ks, kind{"not_checkable", "not_checkable"})
}()

// heldOut7MaxTrueContradicted is the largest share of testdata/heldout7's
// claims labelled supported that the checker may contradict.
//
// The bar, and the floors (heldOut4Floors: contradicted precision 0.50 and
// recall 0.30 over all, 0.55 and 0.33 in English, 0.40 and 0.20 in
// Chinese), were set when the set was written, before the checker ever ran
// on it: they are not tuned to its figures, which nobody had seen. They sit
// well below heldout6's blind run (precision 0.735, recall 0.474, 6.5 % of
// true claims contradicted; Chinese 0.719 and 0.383), so that a checker as
// good on unseen domains as it was on heldout6's passes, and one that
// stopped contradicting, contradicted at random or flagged one true claim
// in seven fails.
const heldOut7MaxTrueContradicted = 0.15

// TestHeldOutSet7 checks testdata/heldout7, the seventh set written and
// committed before the checker ran on it (its README says how), as
// TestHeldOutSet6 does its set, with heldOut7Kinds, heldOut4Floors and at
// most heldOut7MaxTrueContradicted of its true claims contradicted. It was
// sealed (VERIFIER_UNSEAL=heldout7) until its one blind run at the end of
// the session that wrote it (docs/evaluation.md has its figures) and runs
// in CI since.
func TestHeldOutSet7(t *testing.T) {
	s := kindedSet{
		name:    "heldout7",
		kinds:   heldOut7Kinds,
		floors:  heldOut4Floors,
		answers: map[string]int{"en": 41, "zh": 24},
		labels:  map[string]int{"supported": 545, "contradicted": 150, "unsupported": 8, "not_checkable": 10},
		sha256:  "53ed185770db3ef5dac056dd506e4b0408c19eca5fb9e6d63481e24590786d31",
	}
	checkKindedSet(t, s)
	checkTrueContradicted(t, s.name, heldOut7MaxTrueContradicted)
}

// checkTrueContradicted fails t when the checker contradicts more than max
// (a share) of the claims testdata/<set> labels supported, and logs how many
// it contradicts.
func checkTrueContradicted(t *testing.T, set string, max float64) {
	t.Helper()
	cases := checktest.Load(t, filepath.Join("testdata", set))
	contradicted, supported, answers := trueContradicted(cases)
	share := ratio(contradicted, supported)
	t.Logf("true claims contradicted: %d of %d (%.1f%%); answers with one or more: %d of %d (%.1f%%)",
		contradicted, supported, 100*share, answers, len(cases), 100*ratio(answers, len(cases)))
	if share > max {
		t.Errorf("%d of %d true claims contradicted (%.3f), at most %.2f", contradicted, supported, share, max)
	}
}

// trueContradicted counts the claims of cases labelled supported and, of
// them, those the checker contradicts, and the answers holding one or more
// of those: what a block policy would stop were the answers' planted errors
// fixed (the issue's "a true sentence contradicted in half of the clean
// answers"). A label no claim holds is not contradicted.
func trueContradicted(cases []checktest.Case) (contradicted, supported, answers int) {
	c := NewChecker(CheckerConfig{})
	for _, hc := range cases {
		now, _ := time.Parse(time.RFC3339, hc.Now) // NB: checked by Load
		rep := c.Check(hc.Answer, hc.Evidences(), now)
		flagged := false
		for _, e := range hc.Expected {
			if e.Verdict != string(events.VerdictSupported) {
				continue
			}
			supported++
			if got, ok := findClaim(rep, hc.Answer, e.Text); ok && got.Verdict == events.VerdictContradicted {
				contradicted++
				flagged = true
			}
		}
		if flagged {
			answers++
		}
	}
	return contradicted, supported, answers
}
