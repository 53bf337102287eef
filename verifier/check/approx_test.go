package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestAboutIsTheRoundingOfTheDigitsWritten: a number hedged with about,
// roughly, 约, 左右, 近 is the value rounded at the place of its last
// non-zero digit (at most a tenth of it either way), never narrower than an
// unhedged number's tolerance: "about 720" is not 712, "about 84" is not
// 85.25, "约300年" is 285, a negative number is read as it is.
func TestAboutIsTheRoundingOfTheDigitsWritten(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"player": "Ines Roa", "high_series": 712}`, "Ines Roa's high series is about 720.", events.VerdictContradicted},
		{`{"player": "Ines Roa", "high_series": 712}`, "Ines Roa's high series is about 710.", events.VerdictSupported},
		{`{"sample": "Lot 9", "score": 85.25}`, "Lot 9's score is about 84.", events.VerdictContradicted},
		{`{"sample": "Lot 9", "score": 85.25}`, "Lot 9 scored about 85.", events.VerdictSupported},
		{`{"sample": "Lot 9", "score": 85.25}`, "Lot 9 scored roughly 90.", events.VerdictSupported},
		{`{"well": "W-2", "depth_km": 10.7}`, "The depth of well W-2 is about 12 km.", events.VerdictContradicted},
		{`{"well": "W-2", "depth_km": 10.7}`, "The depth of well W-2 is about 11 km.", events.VerdictSupported},
		{`{"bin": "B-4", "net_kg": 948}`, "Bin B-4 holds about 950 kg.", events.VerdictSupported},
		{`{"bin": "B-4", "net_kg": 948}`, "The net weight of bin B-4 is about 930 kg.", events.VerdictContradicted},
		{`{"桥": "南桥", "长度_米": 1486}`, "南桥长约1470米。", events.VerdictContradicted},
		{`{"桥": "南桥", "长度_米": 1486}`, "南桥长约1490米。", events.VerdictSupported},
		{`{"桥": "南桥", "长度_米": 1486}`, "南桥长1500米左右。", events.VerdictSupported},
		{`{"站点": "北站", "平衡_毫米": -742}`, "北站的平衡约为-740毫米。", events.VerdictSupported},
		{`{"站点": "北站", "平衡_毫米": -742}`, "北站的平衡为-742毫米。", events.VerdictSupported},
		{`{"站点": "北站", "平衡_毫米": -742}`, "北站的平衡约-740毫米。", events.VerdictSupported},
		{`{"station": "North", "balance_mm": -742}`, "North's balance was about -740 mm.", events.VerdictSupported},
		{`{"站点": "北站", "平衡_毫米": -742}`, "北站的平衡约为-760毫米。", events.VerdictContradicted},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
