package check

import (
	"path/filepath"
	"testing"

	"github.com/toolstream/toolstream/verifier/check/checktest"
)

// heldOut15Floors are the least testdata/heldout15 must score: precision
// and recall of contradicted, overall and per language.
//
// They, heldOut15MaxTrueContradicted and heldOut15MaxAnswersContradicted
// were set when the set was written, before the checker ever ran on it:
// nobody had seen a figure of it to tune them to. They sit below
// heldout14's blind run (precision 0.803, recall 0.553, 24 of 464 true
// claims contradicted, 5.2 %, and 18 of 60 answers, 30.0 %, holding one or
// more) with room for a set of new domains to be harder than the last: a
// checker as good on unseen domains as it was on heldout14's passes, and
// one that stopped contradicting, contradicted at random (192 of the 685
// labels are contradicted, so random flags score a precision near 0.28) or
// contradicted one true claim in eight fails. Chinese sits lower because
// its 75 contradicted labels make its figures the noisier, and heldout7's
// blind Chinese recall was 0.466.
var heldOut15Floors = map[string][2]float64{
	"all": {0.55, 0.35},
	"en":  {0.55, 0.38},
	"zh":  {0.45, 0.28},
}

// heldOut15MaxTrueContradicted is the largest share of
// testdata/heldout15's claims labelled supported that the checker may
// contradict (heldOut15Floors says why this figure: more than twice
// heldout14's blind 5.2 %).
const heldOut15MaxTrueContradicted = 0.12

// heldOut15MaxAnswersContradicted is the largest share of testdata/
// heldout15's answers that may hold one or more true claims the checker
// contradicts: the answers a block policy would stop were their planted
// errors fixed. heldout14's blind run had 30.0 %; 0.60 leaves room for a
// harder set and still fails a checker that would block three correct
// answers in five.
const heldOut15MaxAnswersContradicted = 0.60

// TestHeldOutSet15 checks testdata/heldout15, the fifteenth set written
// and committed before the checker ran on it (its README says how), as
// TestHeldOutSet14 does its set, with heldOut7Kinds, heldOut15Floors, at
// most heldOut15MaxTrueContradicted of its true claims contradicted and at
// most heldOut15MaxAnswersContradicted of its answers holding one. It was
// sealed (VERIFIER_UNSEAL=heldout15) until its one blind run at the end of
// the session that wrote it (docs/evaluation.md has its figures) and runs
// in CI since.
func TestHeldOutSet15(t *testing.T) {
	s := kindedSet{
		name:    "heldout15",
		kinds:   heldOut7Kinds,
		floors:  heldOut15Floors,
		answers: map[string]int{"en": 36, "zh": 24},
		labels:  map[string]int{"supported": 484, "contradicted": 192, "unsupported": 6, "not_checkable": 3},
		sha256:  "1a78cb406cc7b4cd1a0f6a466716c02b2bf94ba23546a214bafed8181adf7b51",
	}
	checkKindedSet(t, s)
	if t.Failed() {
		return
	}
	checkTrueContradicted(t, s.name, heldOut15MaxTrueContradicted)
	cases := checktest.Load(t, filepath.Join("testdata", s.name))
	_, _, answers := trueContradicted(cases)
	if share := ratio(answers, len(cases)); share > heldOut15MaxAnswersContradicted {
		t.Errorf("%d of %d answers hold a true claim contradicted (%.3f), at most %.2f", answers, len(cases), share, heldOut15MaxAnswersContradicted)
	}
}
