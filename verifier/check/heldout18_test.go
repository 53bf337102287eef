package check

import (
	"path/filepath"
	"testing"

	"github.com/toolstream/toolstream/verifier/check/checktest"
)

// heldOut18Floors are the least testdata/heldout18 must score: precision
// and recall of contradicted, overall and per language.
//
// They, heldOut18MaxTrueContradicted and heldOut18MaxAnswersContradicted
// were set when the set was written, before the checker ever ran on it:
// nobody had seen a figure of it to tune them to. They sit below
// heldout17's blind run (precision 0.657, recall 0.447, 11.0 % of true
// claims contradicted, 50 % of answers holding one or more) with room for
// a set of new domains to be harder than the last: like heldout17 it leans
// on values the answer derives (remainders, sums, products, spans,
// averages, proportions in words), and a floor raised to heldout17's
// figures would fail a checker for the set's design rather than for a
// regression. A checker as good on unseen domains as it was on heldout17's
// passes, and one that stopped contradicting, contradicted at random (230
// of the 759 labels are contradicted, so random flags score a precision
// near 0.30) or contradicted one true claim in six fails. Chinese sits
// lowest because its 92 contradicted labels make its figures the noisier.
var heldOut18Floors = map[string][2]float64{
	"all": {0.50, 0.33},
	"en":  {0.45, 0.30},
	"zh":  {0.45, 0.28},
}

// heldOut18MaxTrueContradicted is the largest share of
// testdata/heldout18's claims labelled supported that the checker may
// contradict (heldOut18Floors says why this figure: room above heldout17's
// blind 11.0 %).
const heldOut18MaxTrueContradicted = 0.15

// heldOut18MaxAnswersContradicted is the largest share of testdata/
// heldout18's answers that may hold one or more true claims the checker
// contradicts: the answers a block policy would stop were their planted
// errors fixed. heldout17's blind run had 50 %; 0.65 leaves room for a
// harder set and still fails a checker that would block two correct
// answers in three.
const heldOut18MaxAnswersContradicted = 0.65

// TestHeldOutSet18 checks testdata/heldout18, the eighteenth set written
// and committed before the checker ran on it (its README says how), as
// TestHeldOutSet17 does its set, with heldOut7Kinds, heldOut18Floors, at
// most heldOut18MaxTrueContradicted of its true claims contradicted and at
// most heldOut18MaxAnswersContradicted of its answers holding one. It was
// sealed (VERIFIER_UNSEAL=heldout18) until its one blind run at the end of
// the session that wrote it (docs/evaluation.md has its figures) and runs
// in CI since.
func TestHeldOutSet18(t *testing.T) {
	s := kindedSet{
		name:    "heldout18",
		kinds:   heldOut7Kinds,
		floors:  heldOut18Floors,
		answers: map[string]int{"en": 36, "zh": 24},
		labels:  map[string]int{"supported": 520, "contradicted": 230, "unsupported": 5, "not_checkable": 4},
		sha256:  "18a3193c63c88dec74b85e06db4f46b13fc2af7bbde127a3958d6f8fc20179a4",
	}
	checkKindedSet(t, s)
	if t.Failed() {
		return
	}
	checkTrueContradicted(t, s.name, heldOut18MaxTrueContradicted)
	cases := checktest.Load(t, filepath.Join("testdata", s.name))
	_, _, answers := trueContradicted(cases)
	if share := ratio(answers, len(cases)); share > heldOut18MaxAnswersContradicted {
		t.Errorf("%d of %d answers hold a true claim contradicted (%.3f), at most %.2f", answers, len(cases), share, heldOut18MaxAnswersContradicted)
	}
}
