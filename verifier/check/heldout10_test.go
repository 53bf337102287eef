package check

import "testing"

// heldOut10Floors are the least testdata/heldout10 must score: precision
// and recall of contradicted, overall and per language.
//
// They, and heldOut10MaxTrueContradicted, were set when the set was
// written, before the checker ever ran on it: nobody had seen a figure of
// it to tune them to. They sit below heldout9's blind run (precision
// 0.766, recall 0.581, 6.3 % of true claims contradicted; English 0.747
// and 0.602, Chinese 0.793 and 0.554) with room for a set of new domains
// to be harder than the last: a checker as good on unseen domains as it
// was on heldout9's passes, and one that stopped contradicting,
// contradicted at random (150 of the 651 labels are contradicted, so
// random flags score a precision near 0.23) or contradicted one true claim
// in eight fails. Chinese sits lower because its 60 contradicted labels
// make its figures the noisier, and heldout7's blind Chinese recall was
// 0.466.
var heldOut10Floors = map[string][2]float64{
	"all": {0.55, 0.35},
	"en":  {0.55, 0.38},
	"zh":  {0.45, 0.28},
}

// heldOut10MaxTrueContradicted is the largest share of
// testdata/heldout10's claims labelled supported that the checker may
// contradict (heldOut10Floors says why this figure: about twice
// heldout9's blind 6.3 %).
const heldOut10MaxTrueContradicted = 0.12

// TestHeldOutSet10 checks testdata/heldout10, the tenth set written and
// committed before the checker ran on it (its README says how), as
// TestHeldOutSet9 does its set, with heldOut7Kinds, heldOut10Floors and at
// most heldOut10MaxTrueContradicted of its true claims contradicted. It was
// sealed (VERIFIER_UNSEAL=heldout10) until its one blind run at the end of
// the session that wrote it (docs/evaluation.md has its figures) and runs
// in CI since.
func TestHeldOutSet10(t *testing.T) {
	s := kindedSet{
		name:    "heldout10",
		kinds:   heldOut7Kinds,
		floors:  heldOut10Floors,
		answers: map[string]int{"en": 37, "zh": 25},
		labels:  map[string]int{"supported": 491, "contradicted": 150, "unsupported": 6, "not_checkable": 4},
		sha256:  "f6fe1652cfd27d71cf3d3bbb4b016259581ca287c58ee10985d4e168ee443458",
	}
	checkKindedSet(t, s)
	checkTrueContradicted(t, s.name, heldOut10MaxTrueContradicted)
}
