package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestACountBeforeAStateWordSaysHowMany: a state word after a count and
// what it counts says how many things are in the state, whatever form the
// counted noun takes — one word, a unit of count (units, 件) with the
// ideographs after it — so a status
// field of the whole does not contradict it; a number that labels the
// subject (order 5521, room 12) is no count, and its state is still read.
func TestACountBeforeAStateWordSaysHowMany(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"build": "B-12", "status": "failed", "tests_passed": 412}`, "412 tests passed.", events.VerdictSupported},
		{`{"batch": "L-9", "status": "failed", "units_passed": 37}`, "37 units passed inspection.", events.VerdictSupported},
		{`{"批次": "L-9", "状态": "不合格", "合格数": 37}`, "37件产品检验合格。", events.VerdictSupported},
		{`{"order": 5521, "status": "pending"}`, "Order 5521 shipped.", events.VerdictContradicted},
		{`{"room": 12, "inspection": "pass"}`, "Room 12 failed inspection.", events.VerdictContradicted},
		{`{"批次": "L-9", "状态": "不合格"}`, "批次L-9检验合格。", events.VerdictContradicted},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}

// TestACountBeforeAStateWordTakesEveryCommonMeasureWord: a Chinese count's
// measure word (项, 台, 名, 位, 单, 笔, 次, 例, 座) makes the number a count
// of things in the state, so the whole's status field does not contradict
// it; the English sentences are the control. 批 is left out: 01批次 (the
// batch 雨前-01) would read as one batch and lose the identifier.
func TestACountBeforeAStateWordTakesEveryCommonMeasureWord(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"构建": "B-12", "状态": "失败", "通过数": 412}`, "412项测试通过。", events.VerdictSupported},
		{`{"构建": "B-12", "状态": "失败", "通过数": 412}`, "412例测试通过。", events.VerdictSupported},
		{`{"批次": "雨前-01", "采茶工": 31}`, "雨前-01批次共有31名采茶工参与。", events.VerdictSupported},
		{`{"批次": "L-9", "状态": "不合格", "合格数": 37}`, "37台设备检验合格。", events.VerdictSupported},
		{`{"批次": "L-9", "状态": "不合格", "合格数": 12}`, "12座桥梁检验合格。", events.VerdictSupported},
		{`{"批次": "L-9", "状态": "不合格", "合格数": 12}`, "12名员工考核合格。", events.VerdictSupported},
		{`{"build": "B-12", "status": "failed", "tests_passed": 412}`, "412 tests passed.", events.VerdictSupported},
		{`{"构建": "B-12", "状态": "失败"}`, "构建B-12测试通过。", events.VerdictContradicted},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
