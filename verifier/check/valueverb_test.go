package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestAStatusValueSaidAsAVerbIsNoStateOfTheSubject: a status value the
// claim names after a word of aspect (being glazed, finished glazing,
// 开始打磨) or after a count and what it counts (40 pots glazed) says a
// verb in that aspect, or the state of what it counts: another row's
// value of the field does not make it contradict the subject's own value,
// in English and Chinese. Beside the subject's own value, a verb under
// way, "has started" agrees and "has finished" disagrees. Named as the
// subject's state ("the Hollis kiln is glazed"), it is compared as before.
func TestAStatusValueSaidAsAVerbIsNoStateOfTheSubject(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	kilns := `{"kilns": [{"kiln": "Hollis kiln", "status": "glazing"}, {"kiln": "Marsh kiln", "status": "glazed"}, {"kiln": "Tarn kiln", "status": "cooling"}]}`
	benches := `{"工位": [{"工位号": "甲3", "状态": "打磨"}, {"工位号": "乙5", "状态": "抛光"}]}`
	for _, tc := range []struct {
		result, claim string
		contradicted  bool
	}{
		{kilns, "The Hollis kiln is still being glazed.", false},
		{kilns, "The Marsh kiln has finished glazing.", false},
		{kilns, "The Tarn kiln is cooling with 40 pots glazed.", false},
		{benches, "乙5开始打磨。", false},
		// the subject's own value, a verb under way: begun agrees, done
		// disagrees, a negation turns either
		{kilns, "The Hollis kiln has started glazing.", false},
		{kilns, "The Hollis kiln has not finished glazing.", false},
		{kilns, "The Hollis kiln has finished glazing.", true},
		{benches, "甲3已经开始打磨了。", false},
		{benches, "甲3尚未开始打磨。", true},
		{benches, "甲3完成打磨了。", true},
		// the value named as the subject's state: still compared
		{kilns, "The Hollis kiln is glazed.", true},
		{kilns, "The Tarn kiln is glazing.", true},
		{benches, "乙5在打磨。", true},
	} {
		got, why := checkOne(t, c, tc.result, tc.claim, now)
		if (got == events.VerdictContradicted) != tc.contradicted {
			t.Errorf("%q: %s (%s), want contradicted %v", tc.claim, got, why, tc.contradicted)
		}
	}
}
