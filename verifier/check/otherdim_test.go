package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestFieldOfAnotherDimensionContradictsNothing: a field whose key states
// what it measures (fuel_litres, lap_time_s, 重量_kg) is no binding for a
// claim's number of another dimension (money, a count, a time): the claim
// is about some other attribute, so it is never contradicted by that
// field; a field of the claim's own dimension still is.
func TestFieldOfAnotherDimensionContradictsNothing(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"boiler": "B-2", "oil_litres": 8800}`, "Boiler B-2's oil cost about $6,100.", events.VerdictUnsupported},
		{`{"boiler": "B-2", "oil_litres": 8800}`, "Boiler B-2 used 6,100 litres of oil.", events.VerdictContradicted},
		{`{"sled": "Vega", "lap_time_s": 41.5}`, "Vega pulled 12 riders.", events.VerdictUnsupported},
		{`{"sled": "Vega", "lap_time_s": 41.5}`, "Vega's lap took 44 seconds.", events.VerdictContradicted},
		{`{"trailer": "T-9", "tare_kg": 1450}`, "Trailer T-9 was hired for 3 hours.", events.VerdictUnsupported},
		{`{"锅炉": "B-2", "油_litres": 8800}`, "B-2锅炉的油费约6100元。", events.VerdictUnsupported},
		{`{"锅炉": "B-2", "油_litres": 8800}`, "B-2锅炉用油6100升。", events.VerdictContradicted},
		{`{"雪橇": "Vega", "圈速_s": 41.5}`, "Vega拉了12位乘客。", events.VerdictUnsupported},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
