package check

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// TestMonthBeforeTheSubject: a Chinese month of the year written before
// what a claim is about (10月账单, 陈晨10月的工资, 2026年10月) qualifies it and
// is no number the claim states, so the claim's amount is checked, not
// the month; a duration in months (12个月) is still a number. English
// says the month as a word and is the counterpart.
func TestMonthBeforeTheSubject(t *testing.T) {
	c := NewChecker(CheckerConfig{})
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	bill := `{"账期":"2026-10","应付金额":{"金额":3256.8,"币种":"CNY"}}`
	pay := `{"员工":"陈晨","月份":"2026-10","应发工资":15800}`
	for _, tc := range []struct {
		answer, result string
		want           events.Verdict
	}{
		{"10月账单应付金额为3256.8元。", bill, events.VerdictSupported},
		{"十月份账单应付金额为3256.8元。", bill, events.VerdictSupported},
		{"2026年10月账单应付金额为3256.8元。", bill, events.VerdictSupported},
		{"10月账单应付金额为3300元。", bill, events.VerdictContradicted},
		{"陈晨10月的应发工资为15800元。", pay, events.VerdictSupported},
		{"陈晨10月的应发工资为16800元。", pay, events.VerdictContradicted},
		{"租期为12个月。", `{"租期_月":12}`, events.VerdictSupported},
		{"租期为18个月。", `{"租期_月":12}`, events.VerdictContradicted},
		{"The October bill came to 3256.8 CNY.", `{"period":"2026-10","amount_due":3256.8,"currency":"CNY"}`, events.VerdictSupported},
	} {
		r := c.Check(tc.answer, []evidence.Evidence{{CallID: "c1", Name: "t", Version: 1, Result: json.RawMessage(tc.result)}}, now)
		if len(r.Claims) != 1 || r.Claims[0].Verdict != tc.want {
			t.Errorf("%s beside %s: got %+v, want one claim %s", tc.answer, tc.result, r.Claims, tc.want)
		}
	}
}
