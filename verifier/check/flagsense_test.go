package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestAFlagWordIsNotItsOppositeOrAnotherSense: the words of a flag's state
// do not include its opposite ("unclaimed" is not claimed) nor a word of
// another sense (实现 said of a plan is no target reached); the state's
// own words keep their reading (认领, 达成).
func TestAFlagWordIsNotItsOppositeOrAnotherSense(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"prize": "Lamp", "claimed": false}`, "The lamp prize is still unclaimed.", events.VerdictSupported},
		{`{"奖品": "台灯", "claimed": false}`, "台灯奖品还没人认领。", events.VerdictSupported},
		{`{"prize": "Lamp", "claimed": false}`, "The lamp prize has been claimed.", events.VerdictContradicted},
		{`{"app": "Pad", "goal_reached": true}`, "这个版本实现了离线同步。", events.VerdictUnsupported},
		{`{"计划": "年度目标", "target_reached": false}`, "公司计划实现数字化转型。", events.VerdictUnsupported},
		{`{"计划": "年度目标", "target_reached": false}`, "年度目标已经达成。", events.VerdictContradicted},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
