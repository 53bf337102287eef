package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestConcentrationsFlowsAndMicrograms: a mass per litre (g/L, mg/L,
// µg/L, 克/升, 毫克每升) and a volume per second (m³/s, 立方米每秒) are read
// in their numerator's unit on both sides — a key ending in mg_l or m3_s
// too — so a claim in g/L beside a field in mg/L is converted, not
// matched by its bare number; µg, mcg and 微克 are a thousandth of a
// milligram.
func TestConcentrationsFlowsAndMicrograms(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"probe": "P-3", "copper_mg_l": 0.6}`, "Probe P-3 reads 0.6 g/L of copper.", events.VerdictContradicted},
		{`{"probe": "P-3", "copper_mg_l": 600}`, "Probe P-3 reads 0.6 g/L of copper.", events.VerdictSupported},
		{`{"probe": "P-3", "copper_mg_l": 0.6}`, "Probe P-3 reads 0.6 mg/L of copper.", events.VerdictSupported},
		{`{"probe": "P-3", "zinc_mg_l": 15}`, "Zinc is at 15 µg/L.", events.VerdictContradicted},
		{`{"probe": "P-3", "zinc_ug_l": 15}`, "Zinc is at 15 µg/L.", events.VerdictSupported},
		{`{"capsule": "C-1", "iron_mg": 9}`, "The capsule holds 9 µg of iron.", events.VerdictContradicted},
		{`{"capsule": "C-1", "iron_mg": 9}`, "The capsule holds 9000 mcg of iron.", events.VerdictSupported},
		{`{"capsule": "C-1", "folate_mcg": 400}`, "The capsule holds 400 mg of folate.", events.VerdictContradicted},
		{`{"weir": "W-2", "discharge_m3_s": 17}`, "Weir W-2 discharges 71 m³/s.", events.VerdictContradicted},
		{`{"weir": "W-2", "discharge_m3_s": 17}`, "Weir W-2 discharges 17 m³/s.", events.VerdictSupported},
		{`{"探头": "P-3", "铜_mg_l": 0.6}`, "P-3的铜为0.6克/升。", events.VerdictContradicted},
		{`{"探头": "P-3", "铜_mg_l": 0.6}`, "P-3的铜含量为0.6毫克每升。", events.VerdictSupported},
		{`{"堰": "W-2", "流量_m3_s": 17}`, "W-2的流量为71立方米每秒。", events.VerdictContradicted},
		{`{"堰": "W-2", "流量_m3_s": 17}`, "W-2的流量为17立方米每秒。", events.VerdictSupported},
		{`{"胶囊": "C-1", "铁_mg": 9}`, "胶囊含铁9微克。", events.VerdictContradicted},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
