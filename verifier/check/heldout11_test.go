package check

import (
	"path/filepath"
	"testing"

	"github.com/toolstream/toolstream/verifier/check/checktest"
)

// heldOut11Floors are the least testdata/heldout11 must score: precision
// and recall of contradicted, overall and per language.
//
// They, heldOut11MaxTrueContradicted and heldOut11MaxAnswersContradicted
// were set when the set was written, before the checker ever ran on it:
// nobody had seen a figure of it to tune them to. They sit below heldout10's
// blind run (precision 0.752, recall 0.627, 30 of 491 true claims
// contradicted, 6.1 %, and 19 of 62 answers, 30.6 %, holding one or more)
// with room for a set of new domains to be harder than the last: a checker
// as good on unseen domains as it was on heldout10's passes, and one that
// stopped contradicting, contradicted at random (164 of the 713 labels are
// contradicted, so random flags score a precision near 0.23) or
// contradicted one true claim in eight fails. Chinese sits lower because
// its 76 contradicted labels make its figures the noisier, and heldout7's
// blind Chinese recall was 0.466.
var heldOut11Floors = map[string][2]float64{
	"all": {0.55, 0.35},
	"en":  {0.55, 0.38},
	"zh":  {0.45, 0.28},
}

// heldOut11MaxTrueContradicted is the largest share of
// testdata/heldout11's claims labelled supported that the checker may
// contradict (heldOut11Floors says why this figure: about twice
// heldout10's blind 6.1 %).
const heldOut11MaxTrueContradicted = 0.12

// heldOut11MaxAnswersContradicted is the largest share of testdata/
// heldout11's answers that may hold one or more true claims the checker
// contradicts: the answers a block policy would stop were their planted
// errors fixed. heldout10's blind run had 30.6 %; 0.55 leaves room for a
// harder set and still fails a checker that would block more than half of
// the correct answers (the first independent set found half of the clean
// answers stopped).
const heldOut11MaxAnswersContradicted = 0.55

// TestHeldOutSet11 checks testdata/heldout11, the eleventh set written and
// committed before the checker ran on it (its README says how), as
// TestHeldOutSet10 does its set, with heldOut7Kinds, heldOut11Floors, at
// most heldOut11MaxTrueContradicted of its true claims contradicted and at
// most heldOut11MaxAnswersContradicted of its answers holding one. It was
// sealed (VERIFIER_UNSEAL=heldout11) until its one blind run at the end of
// the session that wrote it (docs/evaluation.md has its figures) and runs
// in CI since.
func TestHeldOutSet11(t *testing.T) {
	s := kindedSet{
		name:    "heldout11",
		kinds:   heldOut7Kinds,
		floors:  heldOut11Floors,
		answers: map[string]int{"en": 36, "zh": 26},
		labels:  map[string]int{"supported": 542, "contradicted": 164, "unsupported": 4, "not_checkable": 3},
		sha256:  "8afe5d4d072a3331475e34b3868062d302d70cf977b17a487d90bd84e660ef00",
	}
	checkKindedSet(t, s)
	if t.Failed() {
		return
	}
	checkTrueContradicted(t, s.name, heldOut11MaxTrueContradicted)
	cases := checktest.Load(t, filepath.Join("testdata", s.name))
	_, _, answers := trueContradicted(cases)
	if share := ratio(answers, len(cases)); share > heldOut11MaxAnswersContradicted {
		t.Errorf("%d of %d answers hold a true claim contradicted (%.3f), at most %.2f", answers, len(cases), share, heldOut11MaxAnswersContradicted)
	}
}
