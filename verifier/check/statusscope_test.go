package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestANegationAfterAStateWordIsNotItsNegation: a negation said after a
// status word negates what follows it ("in service with no open faults",
// 故障尚未修复), not the status: the status is compared as said. A
// negation before the status word still negates it.
func TestANegationAfterAStateWordIsNotItsNegation(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"units": [{"unit": "Kiln 2", "status": "running", "faults_open": 0}, {"unit": "Kiln 5", "status": "idle", "faults_open": 1}]}`, "Kiln 2 is running with no open faults.", events.VerdictSupported},
		{`{"units": [{"unit": "Kiln 2", "status": "running", "faults_open": 0}, {"unit": "Kiln 5", "status": "idle", "faults_open": 1}]}`, "Kiln 5 is running with no open faults.", events.VerdictContradicted},
		{`{"units": [{"unit": "Kiln 2", "status": "running", "faults_open": 0}, {"unit": "Kiln 5", "status": "idle", "faults_open": 1}]}`, "Kiln 5 is not running.", events.VerdictSupported},
		{`{"pump": "P-7", "state": "standby"}`, "P-7 is on standby and pumps no water.", events.VerdictSupported},
		{`{"pump": "P-7", "state": "running"}`, "P-7 is on standby and pumps no water.", events.VerdictContradicted},
		{`{"pump": "P-7", "state": "running"}`, "P-7 isn't on standby.", events.VerdictSupported},
		{`{"泵": "3号泵", "状态": "停机"}`, "3号泵已停机，没有人值守。", events.VerdictSupported},
		{`{"泵": "3号泵", "状态": "运行中"}`, "3号泵已停机，没有人值守。", events.VerdictContradicted},
		{`{"泵": "3号泵", "状态": "运行中"}`, "3号泵没有停机。", events.VerdictSupported},
		{`{"泵": "3号泵", "状态": "运行中"}`, "3号泵正在运行且没有漏水。", events.VerdictSupported},
		{`{"泵": "3号泵", "状态": "待机"}`, "3号泵正在运行且没有漏水。", events.VerdictContradicted},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}

// TestAStatusVocabularyIsReadFromTheOtherRows: a status value the lexicon
// has no class for (escalated, 复检中) is read through the values its key
// holds in the other rows: when another row holds the very state the claim
// says, this row holds another value of that vocabulary, and the claim is
// contradicted (its negation supported). A state no other row holds, or a
// claim about a number or a time, stays undecided.
func TestAStatusVocabularyIsReadFromTheOtherRows(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	loans := `{"loans": [{"borrower": "Ines Varga", "amount": 4000, "status": "approved"}, {"borrower": "Tomas Reyl", "amount": 2500, "status": "escalated"}]}`
	other := `{"loans": [{"borrower": "Ines Varga", "amount": 4000, "status": "escalated"}, {"borrower": "Tomas Reyl", "amount": 2500, "status": "rejected"}]}`
	zh := `{"样品": [{"编号": "S-11", "状态": "合格"}, {"编号": "S-12", "状态": "复检中"}]}`
	orders := `{"订单": [{"单号": "D-301", "状态": "已确认"}, {"单号": "D-302", "状态": "排队中"}]}`
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{loans, "Tomas Reyl's loan is approved.", events.VerdictContradicted},
		{loans, "Tomas Reyl's loan has not been approved.", events.VerdictSupported},
		{loans, "Ines Varga's loan is approved.", events.VerdictSupported},
		{other, "Ines Varga's loan is approved.", events.VerdictUnsupported},
		{loans, "Tomas Reyl's loan was approved yesterday.", events.VerdictUnsupported},
		{zh, "S-12样品检验合格。", events.VerdictContradicted},
		{zh, "S-11样品检验合格。", events.VerdictSupported},
		{orders, "D-302订单已确认。", events.VerdictContradicted},
		{orders, "D-302订单还没确认。", events.VerdictSupported},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}

// TestMoreStatusWordsOfTheirClass: a provisional booking is not yet
// confirmed, a bill settled at the table (结账, 买单) is paid, a thing
// under maintenance (维修中, 检修) is neither running nor idle, and work
// 处理完毕 is done; each word under its class in the lexicon.
func TestMoreStatusWordsOfTheirClass(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"job": "J-1", "status": "provisional"}`, "Job J-1 is confirmed.", events.VerdictContradicted},
		{`{"job": "J-1", "status": "provisional"}`, "Job J-1 is not confirmed yet.", events.VerdictSupported},
		{`{"桌台": "T2", "状态": "已结账"}`, "T2桌已经买单。", events.VerdictSupported},
		{`{"桌台": "T2", "状态": "待支付"}`, "T2桌已经结账。", events.VerdictContradicted},
		{`{"line": "Line 3", "status": "maintenance"}`, "Line 3 is running.", events.VerdictContradicted},
		{`{"line": "Line 3", "status": "maintenance"}`, "Line 3 is under maintenance.", events.VerdictSupported},
		{`{"line": "Line 3", "status": "idle"}`, "Line 3 is under maintenance.", events.VerdictContradicted},
		{`{"电梯": "2号梯", "状态": "运行中"}`, "2号梯正在检修。", events.VerdictContradicted},
		{`{"电梯": "2号梯", "状态": "maintenance"}`, "2号梯在维修。", events.VerdictSupported},
		{`{"工单": "G-7", "状态": "处理中"}`, "G-7工单已处理完毕。", events.VerdictContradicted},
		{`{"工单": "G-7", "状态": "已完成"}`, "G-7工单已处理完毕。", events.VerdictSupported},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}

// TestNoneIsBorneOutByACountOfZero: a negated claim that there is none of
// a thing ("no complaints", 没有退货) is supported by the one count field
// its words name when it holds zero; a count above zero never supports it.
func TestNoneIsBorneOutByACountOfZero(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		supported     bool
	}{
		{`{"shift": "S2", "complaints": 0, "calls": 14}`, "There were no complaints on shift S2.", true},
		{`{"shift": "S2", "complaints": 3, "calls": 14}`, "There were no complaints on shift S2.", false},
		{`{"kiln": "K1", "cracked_pots": 0, "fired_pots": 40}`, "No pots cracked in kiln K1.", true},
		{`{"store": "南店", "returns": 0, "orders": 31}`, "南店没有退货。", true},
	} {
		got, why := checkOne(t, c, tc.result, tc.claim, now)
		if (got == events.VerdictSupported) != tc.supported {
			t.Errorf("%q beside %s: %s (%s), want supported %v", tc.claim, tc.result, got, why, tc.supported)
		}
	}
}
