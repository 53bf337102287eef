package check

import (
	"path/filepath"
	"testing"

	"github.com/toolstream/toolstream/verifier/check/checktest"
)

// heldOut13Floors are the least testdata/heldout13 must score: precision
// and recall of contradicted, overall and per language.
//
// They, heldOut13MaxTrueContradicted and heldOut13MaxAnswersContradicted
// were set when the set was written, before the checker ever ran on it:
// nobody had seen a figure of it to tune them to. They sit below heldout12's
// blind run (precision 0.752, recall 0.564, 35 of 488 true claims
// contradicted, 7.2 %, and 25 of 62 answers, 40.3 %, holding one or more)
// with room for a set of new domains to be harder than the last: a checker
// as good on unseen domains as it was on heldout12's passes, and one that
// stopped contradicting, contradicted at random (188 of the 678 labels are
// contradicted, so random flags score a precision near 0.28) or
// contradicted one true claim in eight fails. Chinese sits lower because
// its 77 contradicted labels make its figures the noisier, and heldout7's
// blind Chinese recall was 0.466.
var heldOut13Floors = map[string][2]float64{
	"all": {0.55, 0.35},
	"en":  {0.55, 0.38},
	"zh":  {0.45, 0.28},
}

// heldOut13MaxTrueContradicted is the largest share of
// testdata/heldout13's claims labelled supported that the checker may
// contradict (heldOut13Floors says why this figure: about 1.7 times
// heldout12's blind 7.2 %).
const heldOut13MaxTrueContradicted = 0.12

// heldOut13MaxAnswersContradicted is the largest share of testdata/
// heldout13's answers that may hold one or more true claims the checker
// contradicts: the answers a block policy would stop were their planted
// errors fixed. heldout12's blind run had 40.3 %; 0.60 leaves room for a
// harder set and still fails a checker that would block three correct
// answers in five (the issue started from "half of the clean answers").
const heldOut13MaxAnswersContradicted = 0.60

// TestHeldOutSet13 checks testdata/heldout13, the thirteenth set written
// and committed before the checker ran on it (its README says how), as
// TestHeldOutSet12 does its set, with heldOut7Kinds, heldOut13Floors, at
// most heldOut13MaxTrueContradicted of its true claims contradicted and at
// most heldOut13MaxAnswersContradicted of its answers holding one. It was
// sealed (VERIFIER_UNSEAL=heldout13) until its one blind run at the end of
// the session that wrote it (docs/evaluation.md has its figures) and runs
// in CI since.
func TestHeldOutSet13(t *testing.T) {
	s := kindedSet{
		name:    "heldout13",
		kinds:   heldOut7Kinds,
		floors:  heldOut13Floors,
		answers: map[string]int{"en": 37, "zh": 25},
		labels:  map[string]int{"supported": 480, "contradicted": 188, "unsupported": 6, "not_checkable": 4},
		sha256:  "759634e22dd7224194053d2711cbb2f02505455ae3e3b4f091e6fafc2d13a17d",
	}
	checkKindedSet(t, s)
	if t.Failed() {
		return
	}
	checkTrueContradicted(t, s.name, heldOut13MaxTrueContradicted)
	cases := checktest.Load(t, filepath.Join("testdata", s.name))
	_, _, answers := trueContradicted(cases)
	if share := ratio(answers, len(cases)); share > heldOut13MaxAnswersContradicted {
		t.Errorf("%d of %d answers hold a true claim contradicted (%.3f), at most %.2f", answers, len(cases), share, heldOut13MaxAnswersContradicted)
	}
}
