package check

import (
	"path/filepath"
	"testing"

	"github.com/toolstream/toolstream/verifier/check/checktest"
)

// heldOut12Floors are the least testdata/heldout12 must score: precision
// and recall of contradicted, overall and per language.
//
// They, heldOut12MaxTrueContradicted and heldOut12MaxAnswersContradicted
// were set when the set was written, before the checker ever ran on it:
// nobody had seen a figure of it to tune them to. They sit below heldout11's
// blind run (precision 0.754, recall 0.543, 29 of 542 true claims
// contradicted, 5.4 %, and 22 of 62 answers, 35.5 %, holding one or more)
// with room for a set of new domains to be harder than the last: a checker
// as good on unseen domains as it was on heldout11's passes, and one that
// stopped contradicting, contradicted at random (188 of the 684 labels are
// contradicted, so random flags score a precision near 0.27) or
// contradicted one true claim in eight fails. Chinese sits lower because
// its 78 contradicted labels make its figures the noisier, and heldout7's
// blind Chinese recall was 0.466.
var heldOut12Floors = map[string][2]float64{
	"all": {0.55, 0.35},
	"en":  {0.55, 0.38},
	"zh":  {0.45, 0.28},
}

// heldOut12MaxTrueContradicted is the largest share of
// testdata/heldout12's claims labelled supported that the checker may
// contradict (heldOut12Floors says why this figure: about twice
// heldout11's blind 5.4 %).
const heldOut12MaxTrueContradicted = 0.12

// heldOut12MaxAnswersContradicted is the largest share of testdata/
// heldout12's answers that may hold one or more true claims the checker
// contradicts: the answers a block policy would stop were their planted
// errors fixed. heldout11's blind run had 35.5 %; 0.55 leaves room for a
// harder set and still fails a checker that would block more than half of
// the correct answers (the issue started from "half of the clean answers").
const heldOut12MaxAnswersContradicted = 0.55

// TestHeldOutSet12 checks testdata/heldout12, the twelfth set written and
// committed before the checker ran on it (its README says how), as
// TestHeldOutSet11 does its set, with heldOut7Kinds, heldOut12Floors, at
// most heldOut12MaxTrueContradicted of its true claims contradicted and at
// most heldOut12MaxAnswersContradicted of its answers holding one. It was
// sealed (VERIFIER_UNSEAL=heldout12) until its one blind run at the end of
// the session that wrote it (docs/evaluation.md has its figures) and runs
// in CI since.
func TestHeldOutSet12(t *testing.T) {
	s := kindedSet{
		name:    "heldout12",
		kinds:   heldOut7Kinds,
		floors:  heldOut12Floors,
		answers: map[string]int{"en": 37, "zh": 25},
		labels:  map[string]int{"supported": 488, "contradicted": 188, "unsupported": 4, "not_checkable": 4},
		sha256:  "72a79d1e8a386c67a2a6aa5c390a5fdac23ac6b44340d264e5431c67d6698ca3",
	}
	checkKindedSet(t, s)
	if t.Failed() {
		return
	}
	checkTrueContradicted(t, s.name, heldOut12MaxTrueContradicted)
	cases := checktest.Load(t, filepath.Join("testdata", s.name))
	_, _, answers := trueContradicted(cases)
	if share := ratio(answers, len(cases)); share > heldOut12MaxAnswersContradicted {
		t.Errorf("%d of %d answers hold a true claim contradicted (%.3f), at most %.2f", answers, len(cases), share, heldOut12MaxAnswersContradicted)
	}
}
