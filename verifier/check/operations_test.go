package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// operationCase is one claim beside one tool result and the verdict it
// must get.
type operationCase struct {
	result, claim string
	want          events.Verdict
}

func runOperationCases(t *testing.T, cases []operationCase) {
	t.Helper()
	now := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range cases {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}

// TestInAllIsATotalNotEveryMember: "in all" says what the rows add up to,
// not that every row holds the number ("57 parcels went out in all" is the
// vans' sum, no van's own figure); "all" alone still quantifies.
func TestInAllIsATotalNotEveryMember(t *testing.T) {
	vans := `{"depot": "Eastgate", "vans": [{"van": "V1", "parcels": 20}, {"van": "V2", "parcels": 37}]}`
	runOperationCases(t, []operationCase{
		{vans, "In all, 57 parcels went out from Eastgate.", events.VerdictSupported},
		{vans, "Eastgate's vans carried 57 parcels in all.", events.VerdictSupported},
		{vans, "Eastgate's vans carried 61 parcels in all.", events.VerdictContradicted},
		// "all" alone is every member
		{vans, "All vans carried 37 parcels.", events.VerdictContradicted},
	})
}

// TestWhatIsLeftOfAnyMeasure: what is left of a whole is the whole less
// what is used, whatever it measures (hours, litres, money), said with a
// word between ("still", "of it") or after a copula ("are still free");
// the whole's own value never contradicts it.
func TestWhatIsLeftOfAnyMeasure(t *testing.T) {
	jobs := `{"jobs": [{"job": "relax-7", "limit_hours": 36, "ran_hours": 20.5}]}`
	tank := `{"tank": {"name": "North cistern", "capacity_l": 900, "used_l": 340}}`
	course := `{"course": {"title": "Watercolour Basics", "places": 14, "booked": 9}}`
	jam := `{"lots": [{"lot": "Pear Jam", "jars": 80, "jars_sold": 55}, {"lot": "Plum Jam", "jars": 40, "jars_sold": 40}]}`
	zhJobs := `{"任务": [{"名称": "甲组", "时限_小时": 30, "已用_小时": 12}]}`
	zhFund := `{"项目": {"名称": "社区图书角", "预算_fen": 1200000, "已支出_fen": 450000}}`
	runOperationCases(t, []operationCase{
		{jobs, "relax-7 has 15.5 hours left.", events.VerdictSupported},
		{jobs, "relax-7 has 12 hours left.", events.VerdictUnsupported},
		{tank, "The North cistern has 560 litres left.", events.VerdictSupported},
		{tank, "The North cistern has 600 litres left.", events.VerdictUnsupported},
		{course, "Watercolour Basics has five places still free.", events.VerdictSupported},
		{course, "Watercolour Basics has seven places still free.", events.VerdictUnsupported},
		// a state without a filler counts the rows in it
		{`{"washers": [{"id": "W1", "state": "free"}, {"id": "W2", "state": "busy"}, {"id": "W3", "state": "busy"}, {"id": "W4", "state": "free"}], "total": 5, "busy": 2}`, "Three washers are free.", events.VerdictUnsupported},
		{course, "Watercolour Basics has five free places.", events.VerdictSupported},
		{`{"moorings": [{"name": "East Quay", "berths": 20, "occupied": 13}]}`, "East Quay has seven free berths.", events.VerdictSupported},
		{`{"moorings": [{"name": "East Quay", "berths": 20, "occupied": 13}]}`, "East Quay has nine free berths.", events.VerdictUnsupported},
		// a field that holds what is free decides
		{`{"moorings": [{"name": "East Quay", "berths": 20, "free_berths": 7}, {"name": "West Quay", "berths": 16, "free_berths": 9}]}`, "East Quay has nine free berths.", events.VerdictContradicted},
		{course, "Watercolour Basics has 14 places and 9 are booked, leaving five.", events.VerdictSupported},
		{jam, "Of the Pear Jam lot, 25 jars are still left.", events.VerdictSupported},
		{jam, "Pear Jam has 25 jars of it still left.", events.VerdictSupported},
		{jam, "Pear Jam has 30 jars of it still left.", events.VerdictUnsupported},
		{zhJobs, "甲组还剩18小时。", events.VerdictSupported},
		{zhJobs, "甲组还剩20小时。", events.VerdictUnsupported},
		{zhFund, "社区图书角的预算还剩7500元。", events.VerdictSupported},
		{zhFund, "社区图书角的预算还剩8000元。", events.VerdictUnsupported},
		// a whole said as such is its field's value, right or wrong
		{tank, "The North cistern holds 900 litres.", events.VerdictSupported},
		// a field that holds what is left decides
		{`{"tank": {"name": "North cistern", "capacity_l": 900, "remaining_l": 560}}`, "The North cistern has 600 litres left.", events.VerdictContradicted},
	})
}

// TestNetOfADeductionIsNotTheDeduction: a sum said "after fees", "net of
// tax", 扣除手续费后 is the gross less the deduction: never judged against
// the deduction's own field; a net field or gross − deduction decides.
func TestNetOfADeductionIsNotTheDeduction(t *testing.T) {
	payout := `{"payouts": [{"day": "Monday", "gross_cents": 52000, "fees_cents": 1300}]}`
	payoutNet := `{"payouts": [{"day": "Monday", "gross_cents": 52000, "fees_cents": 1300, "net_cents": 50700}]}`
	zhPay := `{"结算": [{"日期": "周一", "流水_fen": 860000, "手续费_fen": 5200}]}`
	runOperationCases(t, []operationCase{
		{payout, "After fees, Monday's payout was $507.", events.VerdictSupported},
		{payout, "Net of fees, Monday brought in $507.", events.VerdictSupported},
		{payout, "After fees, Monday's payout was $511.", events.VerdictUnsupported},
		{payoutNet, "After fees, Monday's payout was $507.", events.VerdictSupported},
		{payoutNet, "After fees, Monday's payout was $511.", events.VerdictContradicted},
		{zhPay, "周一扣除手续费后到账8548元。", events.VerdictSupported},
		{zhPay, "周一扣除手续费后到账8541元。", events.VerdictUnsupported},
		// the deduction said as itself is still its field's value
		{payout, "Monday's fees were $13.", events.VerdictSupported},
		{payout, "Monday's fees were $15.", events.VerdictContradicted},
	})
}
