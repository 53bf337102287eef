package check

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// TestMonthOfYearString: a month and year said in words ("in March
// 2028", "Oct. 2027") is the same as a field holding only a year and a
// month ("2028-03"), not an identifier of other digits; another month is
// still contradicted by the subject's field.
func TestMonthOfYearString(t *testing.T) {
	c := NewChecker(CheckerConfig{})
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	kits := `{"kits":[{"kit":"Starter","backers":210,"delivery":"2028-03"},{"kit":"Pro","backers":64,"delivery":"2027-10"}]}`
	for _, tc := range []struct {
		answer, result string
		want           events.Verdict
	}{
		{"The Starter kit is delivered in March 2028.", kits, events.VerdictSupported},
		{"The Pro kit is delivered in Oct. 2027.", kits, events.VerdictSupported},
		{"The Pro kit is delivered in December 2027.", kits, events.VerdictContradicted},
		{"The Starter kit is delivered in March 2028.", `{"kits":[{"kit":"Starter","delivery":"2028/03"}]}`, events.VerdictSupported},
	} {
		r := c.Check(tc.answer, []evidence.Evidence{{CallID: "c1", Name: "t", Version: 1, Result: json.RawMessage(tc.result)}}, now)
		if len(r.Claims) != 1 || r.Claims[0].Verdict != tc.want {
			t.Errorf("%s beside %s: got %+v, want one claim %s", tc.answer, tc.result, r.Claims, tc.want)
		}
	}
}
