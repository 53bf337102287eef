package check

import (
	"path/filepath"
	"testing"

	"github.com/toolstream/toolstream/verifier/check/checktest"
)

// heldOut17Floors are the least testdata/heldout17 must score: precision
// and recall of contradicted, overall and per language.
//
// They, heldOut17MaxTrueContradicted and heldOut17MaxAnswersContradicted
// were set when the set was written, before the checker ever ran on it:
// nobody had seen a figure of it to tune them to. They are heldout16's
// floors, which sit below heldout16's blind run (precision 0.711, recall
// 0.473, 39 of 477 true claims contradicted, 8.2 %, and 28 of 60 answers,
// 46.7 %, holding one or more) with room for a set of new domains to be
// harder than the last: this one leans harder still on values the answer
// derives (remainders, sums, products, spans, averages, proportions in
// words), the claims heldout16's run got most wrong, and a floor raised
// to its figures would fail a checker for the set's design rather than
// for a regression. A checker as good on unseen domains as it was on
// heldout16's passes, and one that stopped contradicting, contradicted at
// random (206 of the 653 labels are contradicted, so random flags score a
// precision near 0.32) or contradicted one true claim in eight fails.
// Chinese sits lower because its 85 contradicted labels make its figures
// the noisier, and heldout16's blind Chinese recall was 0.430.
var heldOut17Floors = map[string][2]float64{
	"all": {0.55, 0.35},
	"en":  {0.55, 0.38},
	"zh":  {0.45, 0.28},
}

// heldOut17MaxTrueContradicted is the largest share of
// testdata/heldout17's claims labelled supported that the checker may
// contradict (heldOut17Floors says why this figure: heldout16's, about half
// as much again as its blind 8.2 %).
const heldOut17MaxTrueContradicted = 0.12

// heldOut17MaxAnswersContradicted is the largest share of testdata/
// heldout17's answers that may hold one or more true claims the checker
// contradicts: the answers a block policy would stop were their planted
// errors fixed. heldout16's blind run had 46.7 %; 0.60 leaves room for a
// harder set and still fails a checker that would block three correct
// answers in five.
const heldOut17MaxAnswersContradicted = 0.60

// TestHeldOutSet17 checks testdata/heldout17, the seventeenth set written
// and committed before the checker ran on it (its README says how), as
// TestHeldOutSet16 does its set, with heldOut7Kinds, heldOut17Floors, at
// most heldOut17MaxTrueContradicted of its true claims contradicted and at
// most heldOut17MaxAnswersContradicted of its answers holding one. It was
// sealed (VERIFIER_UNSEAL=heldout17) until its one blind run at the end of
// the session that wrote it (docs/evaluation.md has its figures) and runs
// in CI since.
func TestHeldOutSet17(t *testing.T) {
	s := kindedSet{
		name:    "heldout17",
		kinds:   heldOut7Kinds,
		floors:  heldOut17Floors,
		answers: map[string]int{"en": 36, "zh": 24},
		labels:  map[string]int{"supported": 438, "contradicted": 206, "unsupported": 6, "not_checkable": 3},
		sha256:  "d3a4ef1b0d036af9c542524dda874a6a5853ce3b8707e76082d13a5c607a2d95",
	}
	checkKindedSet(t, s)
	if t.Failed() {
		return
	}
	checkTrueContradicted(t, s.name, heldOut17MaxTrueContradicted)
	cases := checktest.Load(t, filepath.Join("testdata", s.name))
	_, _, answers := trueContradicted(cases)
	if share := ratio(answers, len(cases)); share > heldOut17MaxAnswersContradicted {
		t.Errorf("%d of %d answers hold a true claim contradicted (%.3f), at most %.2f", answers, len(cases), share, heldOut17MaxAnswersContradicted)
	}
}
