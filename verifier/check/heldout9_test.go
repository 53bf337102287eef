package check

import "testing"

// heldOut9Floors are the least testdata/heldout9 must score: precision and
// recall of contradicted, overall and per language.
//
// They, and heldOut9MaxTrueContradicted, were set when the set was
// written, before the checker ever ran on it: nobody had seen a figure of
// it to tune them to. They sit below heldout8's blind run (precision 0.740,
// recall 0.565, 7.9 % of true claims contradicted; English 0.726 and 0.603,
// Chinese 0.766 and 0.510) with room for a set of new domains to be harder
// than the last: a checker as good on unseen domains as it was on
// heldout8's passes, and one that stopped contradicting, contradicted at
// random (about a quarter of the labels are contradicted, so random flags
// score a precision near 0.26) or contradicted one true claim in seven
// fails. Chinese sits lower because its 83 contradicted labels make its
// figures the noisier, and heldout7's blind Chinese recall was 0.466.
var heldOut9Floors = map[string][2]float64{
	"all": {0.55, 0.35},
	"en":  {0.55, 0.38},
	"zh":  {0.45, 0.28},
}

// heldOut9MaxTrueContradicted is the largest share of testdata/heldout9's
// claims labelled supported that the checker may contradict (heldOut9Floors
// says why this figure).
const heldOut9MaxTrueContradicted = 0.14

// TestHeldOutSet9 checks testdata/heldout9, the ninth set written and
// committed before the checker ran on it (its README says how), as
// TestHeldOutSet8 does its set, with heldOut7Kinds, heldOut9Floors and at
// most heldOut9MaxTrueContradicted of its true claims contradicted. It was
// sealed (VERIFIER_UNSEAL=heldout9) until its one blind run at the end of
// the session that wrote it (docs/evaluation.md has its figures) and runs
// in CI since.
func TestHeldOutSet9(t *testing.T) {
	s := kindedSet{
		name:    "heldout9",
		kinds:   heldOut7Kinds,
		floors:  heldOut9Floors,
		answers: map[string]int{"en": 38, "zh": 27},
		labels:  map[string]int{"supported": 526, "contradicted": 186, "unsupported": 6, "not_checkable": 7},
		sha256:  "d62f593b9be81135e1e67c0ef72be46938cab6b5175eebb8cbaaeceecb5ee6cd",
	}
	checkKindedSet(t, s)
	checkTrueContradicted(t, s.name, heldOut9MaxTrueContradicted)
}
