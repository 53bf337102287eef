package check

import (
	"path/filepath"
	"testing"

	"github.com/toolstream/toolstream/verifier/check/checktest"
)

// heldOut14Floors are the least testdata/heldout14 must score: precision
// and recall of contradicted, overall and per language.
//
// They, heldOut14MaxTrueContradicted and heldOut14MaxAnswersContradicted
// were set when the set was written, before the checker ever ran on it:
// nobody had seen a figure of it to tune them to. They sit below heldout13's
// blind run (precision 0.764, recall 0.516, 29 of 480 true claims
// contradicted, 6.0 %, and 20 of 62 answers, 32.3 %, holding one or more)
// with room for a set of new domains to be harder than the last: a checker
// as good on unseen domains as it was on heldout13's passes, and one that
// stopped contradicting, contradicted at random (199 of the 672 labels are
// contradicted, so random flags score a precision near 0.30) or
// contradicted one true claim in eight fails. Chinese sits lower because
// its 82 contradicted labels make its figures the noisier, and heldout7's
// blind Chinese recall was 0.466.
var heldOut14Floors = map[string][2]float64{
	"all": {0.55, 0.35},
	"en":  {0.55, 0.38},
	"zh":  {0.45, 0.28},
}

// heldOut14MaxTrueContradicted is the largest share of
// testdata/heldout14's claims labelled supported that the checker may
// contradict (heldOut14Floors says why this figure: twice heldout13's
// blind 6.0 %).
const heldOut14MaxTrueContradicted = 0.12

// heldOut14MaxAnswersContradicted is the largest share of testdata/
// heldout14's answers that may hold one or more true claims the checker
// contradicts: the answers a block policy would stop were their planted
// errors fixed. heldout13's blind run had 32.3 %; 0.60 leaves room for a
// harder set and still fails a checker that would block three correct
// answers in five (the issue started from "half of the clean answers").
const heldOut14MaxAnswersContradicted = 0.60

// TestHeldOutSet14 checks testdata/heldout14, the fourteenth set written
// and committed before the checker ran on it (its README says how), as
// TestHeldOutSet13 does its set, with heldOut7Kinds, heldOut14Floors, at
// most heldOut14MaxTrueContradicted of its true claims contradicted and at
// most heldOut14MaxAnswersContradicted of its answers holding one. It was
// sealed (VERIFIER_UNSEAL=heldout14) until its one blind run at the end of
// the session that wrote it (docs/evaluation.md has its figures) and runs
// in CI since.
func TestHeldOutSet14(t *testing.T) {
	s := kindedSet{
		name:    "heldout14",
		kinds:   heldOut7Kinds,
		floors:  heldOut14Floors,
		answers: map[string]int{"en": 36, "zh": 24},
		labels:  map[string]int{"supported": 464, "contradicted": 199, "unsupported": 5, "not_checkable": 4},
		sha256:  "923ec6b1375e63156eccb614424af7e493e7d615b354b9ebc9a6281e27b0225e",
	}
	checkKindedSet(t, s)
	if t.Failed() {
		return
	}
	checkTrueContradicted(t, s.name, heldOut14MaxTrueContradicted)
	cases := checktest.Load(t, filepath.Join("testdata", s.name))
	_, _, answers := trueContradicted(cases)
	if share := ratio(answers, len(cases)); share > heldOut14MaxAnswersContradicted {
		t.Errorf("%d of %d answers hold a true claim contradicted (%.3f), at most %.2f", answers, len(cases), share, heldOut14MaxAnswersContradicted)
	}
}
