package check

import "testing"

// heldOut3Kinds are the kinds of label of testdata/heldout3 (its README
// says what each plants), in the order the report lists them, with the
// verdict each must have.
var heldOut3Kinds = []struct{ kind, verdict string }{
	{"true", "supported"},
	{"later_row", "supported"},
	{"minor_units", "supported"},
	{"rounding_within", "supported"},
	{"unit_converted", "supported"},
	{"negation_true", "supported"},
	{"wrong_number", "contradicted"},
	{"wrong_date", "contradicted"},
	{"wrong_entity", "contradicted"},
	{"wrong_status", "contradicted"},
	{"negation", "contradicted"},
	{"rounding_beyond", "contradicted"},
	{"unit_mismatch", "contradicted"},
	{"row_swap", "contradicted"},
	{"made_up", "unsupported"},
}

// heldOut3Floors are the least testdata/heldout3 must score: precision and
// recall of contradicted, overall and per language, a little below the
// figures docs/evaluation.md records so that one claim's verdict moving
// does not fail the test; they are not a target to tune to.
var heldOut3Floors = map[string][2]float64{
	"all": {0.87, 0.57}, // blind first run 0.810, 0.548; after the fixes 0.902, 0.597
	"en":  {0.86, 0.62}, // 0.781, 0.625; 0.897, 0.650
	"zh":  {0.88, 0.47}, // 0.900, 0.409; 0.917, 0.500
}

// TestHeldOutSet3 checks testdata/heldout3, the third set written and
// committed before the checker ran on it (its README says how), as
// TestHeldOutSet2 does its set (go test ./verifier/check -run
// TestHeldOutSet3 -v prints the table; VERIFIER_DEBUG=1 names every miss).
// It fails below heldOut3Floors.
func TestHeldOutSet3(t *testing.T) {
	checkKindedSet(t, kindedSet{name: "heldout3", kinds: heldOut3Kinds, floors: heldOut3Floors})
}
