package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestAChineseNounBindsByItsLastMorpheme: a Chinese noun of a family (…额
// an amount, …量 a quantity used or moved, …数 a count, 客流 the visitors)
// meets the key of that attribute (余额 a balance, 天数 a duration) though no line names the
// compound, and a key of a quantity used (water_usage, energy_consumption)
// holds a claim of any measure. English claims of the same keys are judged
// the same way. Words holding the morphemes that are no such noun (数据,
// 尽量) bind nothing.
func TestAChineseNounBindsByItsLastMorpheme(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		// …额: an amount of money
		{`{"branch": "Harbor", "turnover": 48200, "staff": 14}`, "港湾店本月营业额48200元。", events.VerdictSupported},
		{`{"branch": "Harbor", "turnover": 48200, "staff": 14}`, "港湾店本月营业额51000元。", events.VerdictContradicted},
		{`{"branch": "Harbor", "turnover": 48200, "staff": 14}`, "Harbor's turnover this month was 51,000 yuan.", events.VerdictContradicted},
		{`{"order": "R-31", "refund_amount": 268, "items": 3}`, "R-31的退款额是268元。", events.VerdictSupported},
		{`{"order": "R-31", "refund_amount": 268, "items": 3}`, "R-31的退款额是286元。", events.VerdictContradicted},
		// a balance is no amount paid, a count of days a duration
		{`{"account": "A-7", "balance": 41280, "amount_due": 1500}`, "A-7账户余额是4万元。", events.VerdictContradicted},
		{`{"account": "A-7", "balance": 41280, "amount_due": 1500}`, "A-7的余额为41280元。", events.VerdictSupported},
		{`{"batches": [{"batch": "B9", "晾晒天数": 8}]}`, "B9已经晾了11天。", events.VerdictContradicted},
		{`{"batches": [{"batch": "B9", "晾晒天数": 8}]}`, "B9已经晾了8天。", events.VerdictSupported},
		// …量: a quantity used, in any measure
		{`{"site": "S2", "water_usage": 86, "staff": 9}`, "S2上月用水量86吨。", events.VerdictSupported},
		{`{"site": "S2", "water_usage": 86, "staff": 9}`, "S2上月用水量92吨。", events.VerdictContradicted},
		{`{"site": "S2", "water_usage": 86, "staff": 9}`, "S2 consumed 92 tonnes of water last month.", events.VerdictContradicted},
		{`{"line": "L1", "energy_consumption": 1320, "shifts": 3}`, "L1本月耗电量1400千瓦时。", events.VerdictContradicted},
		// …数 and 客流: counts
		{`{"gate": "North", "visitor_count": 2400, "lanes": 6}`, "北门客流量2400人次。", events.VerdictSupported},
		{`{"gate": "North", "visitor_count": 2400, "lanes": 6}`, "北门客流量2600人次。", events.VerdictContradicted},
		{`{"line": "L1", "reject_count": 12, "shifts": 3}`, "L1今天次品数是15。", events.VerdictContradicted},
		// words holding the morphemes that are no such noun
		{`{"site": "S2", "headcount": 12, "error_count": 3}`, "数据显示S2有12名员工。", events.VerdictSupported},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
