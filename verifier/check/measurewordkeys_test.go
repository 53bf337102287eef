package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestAKeyEndingInAMeasureWordHoldsACount: a Chinese key whose last token
// is a measure word (司机_人, 在库_托, 已售_张) counts things, so a sum of money
// or a weight is never contradicted by it, while a count still is. English
// keys of a count (drivers_count) are judged the same way.
func TestAKeyEndingInAMeasureWordHoldsACount(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		// money beside a count of people, boxes, tickets: not about it
		{`{"车队": [{"车队名": "一队", "司机_人": 12}]}`, "一队每天付司机费用3600元。", events.VerdictUnsupported},
		{`{"仓位": [{"库区": "B3", "在库_托": 64}]}`, "B3的仓储费是900元。", events.VerdictUnsupported},
		{`{"场次": [{"日期": "周五", "已售_张": 310}]}`, "周五那场票房有4.6万元。", events.VerdictUnsupported},
		{`{"棚": [{"编号": "东棚", "采摘_箱": 40}]}`, "东棚摘了120公斤。", events.VerdictUnsupported},
		// a count against the count: judged
		{`{"车队": [{"车队名": "一队", "司机_人": 12}]}`, "一队有12名司机。", events.VerdictSupported},
		{`{"车队": [{"车队名": "一队", "司机_人": 12}]}`, "一队有15名司机。", events.VerdictContradicted},
		{`{"棚": [{"编号": "东棚", "采摘_箱": 40}]}`, "东棚采摘费用是60元。", events.VerdictUnsupported},
		{`{"展位": [{"展区": "C区", "参展_家": 38}]}`, "C区参展费一共5万元。", events.VerdictUnsupported},
		// English: the same
		{`{"fleets": [{"fleet": "North", "drivers_count": 12}]}`, "North pays its drivers $3600 a day.", events.VerdictUnsupported},
		{`{"fleets": [{"fleet": "North", "drivers_count": 12}]}`, "North has 15 drivers.", events.VerdictContradicted},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
