package check

import "testing"

// TestHeldOutSet6 checks testdata/heldout6, the sixth set written and
// committed before the checker ran on it (its README says how), as
// TestHeldOutSet5 does its set: heldout5's kinds, heldout4's floors. It was
// sealed until its one blind run, at the end of the session that wrote it
// (docs/evaluation.md has the figures), and runs in CI since.
func TestHeldOutSet6(t *testing.T) {
	checkKindedSet(t, kindedSet{
		name:    "heldout6",
		kinds:   heldOut5Kinds,
		floors:  heldOut4Floors,
		answers: map[string]int{"en": 42, "zh": 21},
		labels:  map[string]int{"supported": 387, "contradicted": 152, "unsupported": 8},
		sha256:  "9867cdcc5cd2ba5a48a97535668266ded45c54fc4f1741a18f3161b3f719290c",
	})
}
