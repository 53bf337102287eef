package check

import (
	"path/filepath"
	"testing"

	"github.com/toolstream/toolstream/verifier/check/checktest"
)

// heldOut16Floors are the least testdata/heldout16 must score: precision
// and recall of contradicted, overall and per language.
//
// They, heldOut16MaxTrueContradicted and heldOut16MaxAnswersContradicted
// were set when the set was written, before the checker ever ran on it:
// nobody had seen a figure of it to tune them to. They sit below
// heldout15's blind run (precision 0.827, recall 0.573, 22 of 484 true
// claims contradicted, 4.5 %, and 22 of 60 answers, 36.7 %, holding one or
// more) with room for a set of new domains to be harder than the last: a
// checker as good on unseen domains as it was on heldout15's passes, and
// one that stopped contradicting, contradicted at random (203 of the 689
// labels are contradicted, so random flags score a precision near 0.29) or
// contradicted one true claim in eight fails. Chinese sits lower because
// its 79 contradicted labels make its figures the noisier, and heldout7's
// blind Chinese recall was 0.466.
var heldOut16Floors = map[string][2]float64{
	"all": {0.55, 0.35},
	"en":  {0.55, 0.38},
	"zh":  {0.45, 0.28},
}

// heldOut16MaxTrueContradicted is the largest share of
// testdata/heldout16's claims labelled supported that the checker may
// contradict (heldOut16Floors says why this figure: more than twice
// heldout15's blind 4.5 %).
const heldOut16MaxTrueContradicted = 0.12

// heldOut16MaxAnswersContradicted is the largest share of testdata/
// heldout16's answers that may hold one or more true claims the checker
// contradicts: the answers a block policy would stop were their planted
// errors fixed. heldout15's blind run had 36.7 %; 0.60 leaves room for a
// harder set and still fails a checker that would block three correct
// answers in five.
const heldOut16MaxAnswersContradicted = 0.60

// TestHeldOutSet16 checks testdata/heldout16, the sixteenth set written
// and committed before the checker ran on it (its README says how), as
// TestHeldOutSet15 does its set, with heldOut7Kinds, heldOut16Floors, at
// most heldOut16MaxTrueContradicted of its true claims contradicted and at
// most heldOut16MaxAnswersContradicted of its answers holding one. It was
// sealed (VERIFIER_UNSEAL=heldout16) until its one blind run at the end of
// the session that wrote it (docs/evaluation.md has its figures) and runs
// in CI since.
func TestHeldOutSet16(t *testing.T) {
	s := kindedSet{
		name:    "heldout16",
		kinds:   heldOut7Kinds,
		floors:  heldOut16Floors,
		answers: map[string]int{"en": 36, "zh": 24},
		labels:  map[string]int{"supported": 477, "contradicted": 203, "unsupported": 6, "not_checkable": 3},
		sha256:  "073e38e9711e8e812266bc0d10baa550e9786028232da0c2dddd6c99696ddd73",
	}
	checkKindedSet(t, s)
	if t.Failed() {
		return
	}
	checkTrueContradicted(t, s.name, heldOut16MaxTrueContradicted)
	cases := checktest.Load(t, filepath.Join("testdata", s.name))
	_, _, answers := trueContradicted(cases)
	if share := ratio(answers, len(cases)); share > heldOut16MaxAnswersContradicted {
		t.Errorf("%d of %d answers hold a true claim contradicted (%.3f), at most %.2f", answers, len(cases), share, heldOut16MaxAnswersContradicted)
	}
}
