package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestACountOfMembersMeetingAConditionIsCounted: a count stated of the
// members of a list that meet a condition (a state, a flag, a named
// holder) is the number of members the claim holds for, in English and
// Chinese; a wrong count is contradicted when every member's state is
// known, and a number that is a field of a named row is not read as a
// count of rows.
func TestACountOfMembersMeetingAConditionIsCounted(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	kilns := `{"kilns": [{"kiln": "K1", "state": "firing"}, {"kiln": "K2", "state": "cooling"}, {"kiln": "K3", "state": "firing"}, {"kiln": "K4", "state": "idle"}]}`
	kilnsZh := `{"窑炉": [{"编号": "K1", "状态": "烧制中"}, {"编号": "K2", "状态": "冷却中"}, {"编号": "K3", "状态": "烧制中"}]}`
	permits := `{"permits": [{"permit": "P-1", "holder": "Ines Varga", "approved": true}, {"permit": "P-2", "holder": "Tom Reyes", "approved": false}, {"permit": "P-3", "holder": "Ines Varga", "approved": true}]}`
	fees := `{"学员": [{"姓名": "陆子航", "已缴费": true}, {"姓名": "沈佳怡", "已缴费": false}, {"姓名": "彭宇", "已缴费": false}]}`
	bays := `{"bays": [{"bay": "North", "spaces": 12}, {"bay": "South", "spaces": 3}]}`
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{kilns, "Two kilns are firing.", events.VerdictSupported},
		{kilns, "Two of the four kilns are firing.", events.VerdictSupported},
		{kilns, "Three kilns are firing.", events.VerdictContradicted},
		{kilnsZh, "有两座窑炉在烧制中。", events.VerdictSupported},
		{permits, "Two permits are approved.", events.VerdictSupported},
		{permits, "Three permits are approved.", events.VerdictContradicted},
		{permits, "Ines Varga holds two permits.", events.VerdictSupported},
		{fees, "有两名学员还没缴费。", events.VerdictSupported},
		{fees, "三名学员里有两人没缴费。", events.VerdictSupported},
		{fees, "有一名学员没缴费。", events.VerdictContradicted},
		{bays, "South has 3 spaces.", events.VerdictSupported},
		{bays, "North has 12 spaces.", events.VerdictSupported},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}

// TestABareVerbAfterANegationStatesItsState: a Chinese verb whose form
// with 已 is a state word (缴费 of 已缴费, 发货 of 已发货) states that
// state after a negation (没, 没有, 尚未) or 已经, so a flag or status
// field decides it; English says the same with its own words (the
// control), and without a field of the state the words are read as
// before.
func TestABareVerbAfterANegationStatesItsState(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	dues := `{"members": [{"name": "韩雪", "dues_paid": false}, {"name": "Ravi Menon", "dues_paid": true}]}`
	parcels := `{"包裹": [{"单号": "YT-7781", "状态": "已发货"}, {"单号": "YT-7790", "状态": "待发货"}]}`
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{dues, "韩雪没缴费。", events.VerdictSupported},
		{dues, "韩雪没有缴费。", events.VerdictSupported},
		{dues, "韩雪已经缴费了。", events.VerdictContradicted},
		{dues, "Ravi Menon has not paid his dues.", events.VerdictContradicted},
		{parcels, "YT-7790尚未发货。", events.VerdictSupported},
		{parcels, "YT-7781没发货。", events.VerdictContradicted},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
