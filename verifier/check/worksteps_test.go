package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestWorkInItsStepsIsNeitherDoneNorReadyBefore: work in progress (in
// progress, processing, 处理中, 进行中) is not finished and not ready, work
// finished is not in progress, a frozen thing is not active, and
// 做好准备 (prepared) is readiness, not a finished job: each is compared
// with the field's state in English and Chinese, the negation read first.
func TestWorkInItsStepsIsNeitherDoneNorReadyBefore(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		// in progress against done, and done against in progress
		{`{"mural": "North wall", "status": "in_progress"}`, "The North wall mural is done.", events.VerdictContradicted},
		{`{"mural": "North wall", "status": "in_progress"}`, "The North wall mural has been completed.", events.VerdictContradicted},
		{`{"mural": "North wall", "status": "in_progress"}`, "The North wall mural is still in progress.", events.VerdictSupported},
		{`{"mural": "North wall", "status": "completed"}`, "The North wall mural is still in progress.", events.VerdictContradicted},
		{`{"mural": "North wall", "status": "completed"}`, "The North wall mural is finished.", events.VerdictSupported},
		{`{"壁画": "东墙", "状态": "进行中"}`, "东墙壁画已经完工了。", events.VerdictContradicted},
		{`{"壁画": "东墙", "状态": "已完工"}`, "东墙壁画还在进行中。", events.VerdictContradicted},
		{`{"壁画": "东墙", "状态": "已完工"}`, "东墙壁画已经完工了。", events.VerdictSupported},
		// processing is not ready
		{`{"passport": "P-88", "status": "processing"}`, "Passport P-88 is ready.", events.VerdictContradicted},
		{`{"passport": "P-88", "status": "processing"}`, "Passport P-88 is not ready yet.", events.VerdictSupported},
		{`{"passport": "P-88", "status": "ready"}`, "Passport P-88 is still processing.", events.VerdictContradicted},
		{`{"报修单": "B-12", "状态": "处理中"}`, "B-12已经处理好了。", events.VerdictContradicted},
		{`{"报修单": "B-12", "状态": "处理中"}`, "B-12已处理。", events.VerdictContradicted},
		{`{"报修单": "B-12", "状态": "处理中"}`, "B-12还在处理中。", events.VerdictSupported},
		// frozen is not active
		{`{"card": "Library card 4471", "status": "frozen"}`, "Library card 4471 is active.", events.VerdictContradicted},
		{`{"card": "Library card 4471", "status": "active"}`, "Library card 4471 is frozen.", events.VerdictContradicted},
		{`{"账户": "储值卡8812", "状态": "已冻结"}`, "储值卡8812目前是启用状态。", events.VerdictContradicted},
		// 做好准备 is readiness, not a finished job
		{`{"合唱团": "晨星", "ready": false}`, "晨星合唱团已经做好准备了。", events.VerdictContradicted},
		{`{"合唱团": "晨星", "ready": false}`, "晨星合唱团还没做好准备。", events.VerdictSupported},
		{`{"合唱团": "晨星", "ready": true}`, "晨星合唱团已经做好准备了。", events.VerdictSupported},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
