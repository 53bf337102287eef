package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestANumberBindsOnlyAFieldOfItsKind: a count of things ("412 callers")
// binds no field measured in a unit of time or money, a rate named by its
// noun (返修率, "churn rate") no field whose key names another rate, and a
// rate per a unit (每公里) no field measured in that unit: such a field is
// not about the claim, so it neither supports nor contradicts it. A field
// of the claim's own kind still decides, true or planted wrong.
func TestANumberBindsOnlyAFieldOfItsKind(t *testing.T) {
	queue := `{"helpline": "Northgate Council", "queue": {"callers_waiting": 412, "longest_wait_minutes": 38, "abandon_rate_pct": 6.5, "answer_rate_pct": 88.1}}`
	zhRate := `{"门店": "城西店", "返修率_pct": 2.4, "好评率_pct": 97.2, "工单": 530}`
	enRate := `{"plan": "Team", "churn_rate_pct": 3.1, "renewal_rate_pct": 91.4, "seats": 240}`
	list := `{"clinic": "Hand therapy", "waiting_list": {"new_referrals": 310, "follow_ups": 102, "median_wait_weeks": 9}}`
	grants := `{"round": "Spring", "grant_fund_pence": 50000000, "grants": [{"tier": "major", "value_pence": 2000000, "count": 4}, {"tier": "small", "value_pence": 250000, "count": 60}]}`
	perKm := `{"路线": [{"线路": "环湖线", "全程_km": 312, "油费_yuan": 168}]}`
	wantVerdicts(t, []verdictCase{
		// A count of people is no duration: 412 callers is not judged
		// against the longest wait, 38 callers not "supported" by it.
		{queue, "412 callers are waiting.", events.VerdictSupported},
		{queue, "400 callers are waiting.", events.VerdictContradicted},
		{queue, "38 callers are waiting.", events.VerdictContradicted},
		{queue, "The longest wait is 38 minutes.", events.VerdictSupported},
		{queue, "The longest wait is 45 minutes.", events.VerdictContradicted},
		// A rate named by its noun binds only the rate of that noun.
		{zhRate, "返修率约2.4%。", events.VerdictSupported},
		{zhRate, "返修率是3.5%。", events.VerdictContradicted},
		{zhRate, "好评率是97.2%。", events.VerdictSupported},
		{enRate, "The churn rate is 3.1%.", events.VerdictSupported},
		{enRate, "The churn rate is 4.2%.", events.VerdictContradicted},
		{enRate, "The renewal rate is 91.4%.", events.VerdictSupported},
		{enRate, "The churn rate is 91.4%.", events.VerdictContradicted},
		{zhRate, "返修率约97%。", events.VerdictContradicted},
		{queue, "The abandon rate is 6.5%.", events.VerdictSupported},
		{queue, "The abandon rate is 9%.", events.VerdictContradicted},
		// A rate per a kilometre is not a distance.
		{perKm, "环湖线全程312公里。", events.VerdictSupported},
		{perKm, "环湖线全程330公里。", events.VerdictContradicted},
	})
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []verdictCase{
		{result: perKm, claim: "每公里约5角钱。"},
		{result: list, claim: "412 patients are waiting."}, // median_wait_weeks is no count
		{result: list, claim: "12 patients are waiting."},
		{result: grants, claim: "Four £20,000 grants were awarded."}, // a grant's value, not the fund // 全程_km is what the rate is per
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got == events.VerdictContradicted || got == events.VerdictSupported {
			t.Errorf("%q beside %s: %s (%s), bound to a field of another kind", tc.claim, tc.result, got, why)
		}
	}
}

// TestAClockTimeWithADotIsATime: "10.18 am" is the time 10:18, as
// "10:18 am" is, never the number 10.18 judged against a field.
func TestAClockTimeWithADotIsATime(t *testing.T) {
	ev := `{"pool": "Lido", "scale_max": 5, "sessions": [{"day": "2026-12-19", "lane_swim_starts": "07:45", "rating": 4}]}`
	wantVerdicts(t, []verdictCase{
		{ev, "On 19 December lane swimming starts at 7.45 am.", events.VerdictSupported},
		{ev, "On 19 December lane swimming starts at 8.15 am.", events.VerdictContradicted},
	})
}
