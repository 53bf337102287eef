package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestChineseStatesStillToCome: a Chinese status value or claim word that
// puts a pending prefix before a state (待结算, 等待审批, 待签收) or a
// progressive suffix after a state reached at its end (确认中, 退款中)
// says that state is not reached yet: a claim that it is reached is
// contradicted, a claim that it is not yet (还没确认, 还在退款中) is
// supported; a progressive suffix after a state that holds while it lasts
// (停用中) is still that state; English is read as before.
func TestChineseStatesStillToCome(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	const (
		S = events.VerdictSupported
		C = events.VerdictContradicted
	)
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		// a progressive suffix after a state reached at its end
		{`{"申请": [{"编号": "R-7", "状态": "确认中"}]}`, "R-7已经确认了。", C},
		{`{"申请": [{"编号": "R-7", "状态": "确认中"}]}`, "R-7还没确认。", S},
		{`{"申请": [{"编号": "R-7", "状态": "确认中"}]}`, "R-7还在确认中。", S},
		{`{"退货单": "T-21", "状态": "退款中"}`, "T-21已经退款了。", C},
		{`{"退货单": "T-21", "状态": "退款中"}`, "T-21的退款已完成。", C},
		{`{"退货单": "T-21", "状态": "已退款"}`, "T-21的退款已完成。", S},
		// a pending prefix before a state or its bare verb
		{`{"账单": "B-3", "状态": "待结算"}`, "B-3这张账单已经结清。", C},
		{`{"账单": "B-3", "状态": "已结算"}`, "B-3这张账单已经结清。", S},
		{`{"包裹": "P-9", "状态": "待签收"}`, "P-9已经签收了。", C},
		{`{"包裹": "P-9", "状态": "待签收"}`, "P-9还没签收。", S},
		{`{"报销单": "E-4", "状态": "等待审批"}`, "E-4已经审批通过。", C},
		{`{"报销单": "E-4", "状态": "审批中"}`, "E-4还在等待审批。", S},
		// a state that holds while it lasts
		{`{"设备": [{"编号": "Q-1", "状态": "停用中"}]}`, "Q-1已停用。", S},
		{`{"设备": [{"编号": "Q-1", "状态": "停用中"}]}`, "Q-1正在运行。", C},
		// a state word that starts with a negation (尚未开始) states it
		// negatively, as 尚未 before the word would
		{`{"工单": [{"编号": "W-12", "状态": "待施工"}]}`, "W-12尚未开始施工。", S},
		{`{"工单": [{"编号": "W-12", "状态": "待施工"}]}`, "W-12已经开始施工了。", C},
		{`{"维修单": "M-3", "started": false}`, "M-3尚未开始。", S},
		// English as before
		{`{"claim": "R-7", "status": "pending confirmation"}`, "R-7 has not been confirmed yet.", S},
		{`{"claim": "R-7", "status": "confirmed"}`, "R-7 has been confirmed.", S},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
