package check

import "testing"

// TestHeldOutSet6 checks testdata/heldout6, the sixth set written and
// committed before the checker ran on it (its README says how), as
// TestHeldOutSet5 does its set: heldout5's kinds, heldout4's floors. It is
// sealed: without VERIFIER_UNSEAL=heldout6 it checks only the set's
// integrity (its size, kinds, texts and pointers; no verdict is computed)
// and skips, so that its one blind run, at the end of the session that
// wrote it, is the first time anyone sees its verdicts.
func TestHeldOutSet6(t *testing.T) {
	checkKindedSet(t, kindedSet{
		name:    "heldout6",
		kinds:   heldOut5Kinds,
		floors:  heldOut4Floors,
		answers: map[string]int{"en": 42, "zh": 21},
		labels:  map[string]int{"supported": 387, "contradicted": 152, "unsupported": 8},
		sealed:  true,
	})
}
