package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestChineseVerbDoneOrNotYet: a Chinese claim that says a verb is done
// (已经归档) or not done yet (还没归档, 尚未复检) is checked against the
// status value in its scope that says the same verb with an aspect marker
// (已归档, 未归档, 待复检), though no word of the lexicon names the state:
// the same aspect supports it, the other contradicts it. A verb the value
// shares one ideograph of (装车中, 装满), a number, or rows of both aspects
// with no subject named decide nothing.
func TestChineseVerbDoneOrNotYet(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	const (
		S = events.VerdictSupported
		C = events.VerdictContradicted
		U = events.VerdictUnsupported
		N = events.Verdict("not contradicted")
	)
	files := `{"文件": [{"编号": "D-5", "状态": "已归档"}, {"编号": "D-6", "状态": "未归档"}]}`
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{files, "D-5还没归档。", C},
		{files, "D-6已经归档了。", C},
		{files, "D-5已经归档。", S},
		{files, "D-6尚未归档。", S},
		{`{"样品": "S-2", "状态": "待复检"}`, "S-2已经复检过了。", C},
		{`{"样品": "S-2", "状态": "待复检"}`, "S-2还没复检。", S},
		{`{"申请": [{"人": "周先生", "状态": "未缴纳保证金"}]}`, "周先生已经缴纳了保证金。", C},
		// nothing decided
		{`{"车辆": "V-8", "状态": "装车中"}`, "V-8还没装满。", N},
		{`{"批次": [{"状态": "已入仓"}, {"状态": "未入仓"}]}`, "已经入仓了。", N},
		{`{"工单": [{"类型": "路灯不亮", "状态": "已维修"}, {"类型": "井盖松动", "状态": "维修中"}]}`, "井盖问题已经维修好了。", U},
	} {
		got, why := checkOne(t, c, tc.result, tc.claim, now)
		if tc.want == N && got != C {
			continue
		}
		if got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
