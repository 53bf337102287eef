package check

import "testing"

// heldOut8MaxTrueContradicted is the largest share of testdata/heldout8's
// claims labelled supported that the checker may contradict.
//
// The bar, and the floors (heldOut4Floors: contradicted precision 0.50 and
// recall 0.30 over all, 0.55 and 0.33 in English, 0.40 and 0.20 in
// Chinese), were set when the set was written, before the checker ever ran
// on it: nobody had seen a figure of it to tune them to. They sit below
// heldout7's blind run (precision 0.632, recall 0.527, 8.3 % of true claims
// contradicted; English 0.612 and 0.565, Chinese 0.675 and 0.466), so that a
// checker as good on unseen domains as it was on heldout7's passes, though
// this set leans harder on what heldout7 found weak (statuses, other
// entities' values, Chinese negation, sibling swaps, converted and rounded
// true claims); and one that stopped contradicting, contradicted at random
// or contradicted more than one true claim in seven fails.
const heldOut8MaxTrueContradicted = 0.15

// TestHeldOutSet8 checks testdata/heldout8, the eighth set written and
// committed before the checker ran on it (its README says how), as
// TestHeldOutSet7 does its set, with heldOut7Kinds, heldOut4Floors and at
// most heldOut8MaxTrueContradicted of its true claims contradicted. It was
// sealed (VERIFIER_UNSEAL=heldout8) until its one blind run at the end of
// the session that wrote it (docs/evaluation.md has its figures) and runs
// in CI since.
func TestHeldOutSet8(t *testing.T) {
	s := kindedSet{
		name:    "heldout8",
		kinds:   heldOut7Kinds,
		floors:  heldOut4Floors,
		answers: map[string]int{"en": 43, "zh": 27},
		labels:  map[string]int{"supported": 584, "contradicted": 237, "unsupported": 7, "not_checkable": 6},
		sha256:  "3e5f5e1b338bda22f8f51c6bd4dd29918b3043d283e3a0c602e857fc05b2cbc2",
	}
	checkKindedSet(t, s)
	checkTrueContradicted(t, s.name, heldOut8MaxTrueContradicted)
}
