package check

import (
	"encoding/json"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
	"testing"
	"time"
)

// TestEnergyAndPowerUnits: energy (kWh, 千瓦时, kcal, 千卡) and power (kW,
// MW, 千瓦, 兆瓦) are dimensions of their own, so a number in one is
// compared with a field in one, converted, and a claim in the wrong unit
// (MW for kW) is contradicted; a unit word starting with a magnitude
// (千瓦时, 千卡) is the unit, not 千 times the number.
func TestEnergyAndPowerUnits(t *testing.T) {
	c := NewChecker(CheckerConfig{})
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		answer, result string
		want           events.Verdict
	}{
		{"本期用电量为286千瓦时。", `{"用电量_千瓦时":286}`, events.VerdictSupported},
		{"本期用电量为286千瓦时。", `{"用电量_kwh":286}`, events.VerdictSupported},
		{"消耗了412千卡。", `{"消耗_千卡":412}`, events.VerdictSupported},
		{"It used 286 kWh.", `{"usage_kwh":286}`, events.VerdictSupported},
		{"It used 0.286 MWh.", `{"usage_kwh":286}`, events.VerdictSupported},
		{"The usage was 312 kWh.", `{"usage_kwh":286}`, events.VerdictContradicted},
		{"Peak output was 4.6 kW.", `{"peak_kw":4.6}`, events.VerdictSupported},
		{"Peak output was 4.6 MW.", `{"peak_kw":4.6}`, events.VerdictContradicted},
		{"峰值功率为5.2兆瓦。", `{"峰值功率_千瓦":5.2}`, events.VerdictContradicted},
		{"峰值功率为5.2千瓦。", `{"峰值功率_千瓦":5.2}`, events.VerdictSupported},
	} {
		r := c.Check(tc.answer, []evidence.Evidence{{CallID: "c1", Name: "t", Version: 1, Result: json.RawMessage(tc.result)}}, now)
		if len(r.Claims) != 1 || r.Claims[0].Verdict != tc.want {
			t.Errorf("%s beside %s: got %+v, want one claim %s", tc.answer, tc.result, r.Claims, tc.want)
		}
	}
}
