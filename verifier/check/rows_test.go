package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestALaterRowIsBoundByItsLabel: a claim that names no subject but picks
// a row of an array — by a number after the word of the rows' field
// ("Pallet 3"), a year beside rows of years, or a value only that row has
// in a field whose values differ ("the wood kiln") — is checked against
// that row, never the first; a value rows share picks none.
func TestALaterRowIsBoundByItsLabel(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	pallets := `{"pallets": [{"pallet": 2, "weight_kg": 380}, {"pallet": 3, "weight_kg": 412}, {"pallet": 5, "weight_kg": 296}]}`
	kilns := `{"kilns": [{"fuel": "gas", "peak_c": 1200, "firings": 31}, {"fuel": "wood", "peak_c": 1280, "firings": 9}]}`
	crew := `{"crew": [{"role": "灯光", "fee_yuan": 5200}, {"role": "化妆", "fee_yuan": 3600}, {"role": "主持", "fee_yuan": 6800}]}`
	boats := `{"boats": [{"hull": "oak", "length_m": 9}, {"hull": "oak", "length_m": 12}]}`
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{pallets, "Pallet 3 weighs 412 kg.", events.VerdictSupported},
		{pallets, "Pallet 5 weighs 296 kg.", events.VerdictSupported},
		{pallets, "Pallet 3 weighs 380 kg.", events.VerdictContradicted},
		{kilns, "The wood kiln peaks at 1,280 °C.", events.VerdictSupported},
		{kilns, "The wood kiln has had 9 firings.", events.VerdictSupported},
		{kilns, "The wood kiln has had 31 firings.", events.VerdictContradicted},
		{crew, "化妆的费用是3600元。", events.VerdictSupported},
		{crew, "化妆的费用是5200元。", events.VerdictContradicted},
		{boats, "The oak boat is 12 m long.", events.VerdictSupported},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
