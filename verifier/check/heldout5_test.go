package check

import (
	"slices"
	"testing"
)

// heldOut5Kinds are the kinds of label of testdata/heldout5 (its README
// says what each plants), in the order the report lists them: heldout4's,
// with sibling_true (a true claim naming one of two sibling fields of one
// dimension) after ordinal_row and sibling_swap (a field's claim with its
// sibling's value) after row_swap.
var heldOut5Kinds = func() []struct{ kind, verdict string } {
	at := func(ks []struct{ kind, verdict string }, kind string) int {
		return slices.IndexFunc(ks, func(k struct{ kind, verdict string }) bool { return k.kind == kind })
	}
	ks := slices.Clone(heldOut4Kinds)
	ks = slices.Insert(ks, at(ks, "ordinal_row")+1, struct{ kind, verdict string }{"sibling_true", "supported"})
	return slices.Insert(ks, at(ks, "row_swap")+1, struct{ kind, verdict string }{"sibling_swap", "contradicted"})
}()

// TestHeldOutSet5 checks testdata/heldout5, the fifth set written and
// committed before the checker ran on it (its README says how), as
// TestHeldOutSet4 does its set, against heldout4's floors (set for a blind
// run, the same bar for this one). It was sealed until its one blind run
// (docs/evaluation.md has its figures); it is development data since.
func TestHeldOutSet5(t *testing.T) {
	checkKindedSet(t, kindedSet{
		name:    "heldout5",
		kinds:   heldOut5Kinds,
		floors:  heldOut4Floors,
		answers: map[string]int{"en": 42, "zh": 21},
		labels:  map[string]int{"supported": 274, "contradicted": 112, "unsupported": 12},
		sha256:  "ddd9f296240718abdbdb9df50996b28a2544ffba1a594aff356e2a8a69f47a06",
	})
}
