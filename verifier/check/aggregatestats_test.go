package check

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// TestAggregateClaimsAskTheStatistics: over an excerpt whose summary
// states the statistics of the whole array, a claim with a most, least
// or average word is decided by them even when a kept row holds its
// number: "the largest total is 5000" beside a row of 5000 is
// contradicted by the max 5210. A claim naming its row is still checked
// against that row.
func TestAggregateClaimsAskTheStatistics(t *testing.T) {
	c := NewChecker(CheckerConfig{})
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	en := evidence.Evidence{CallID: "c1", Name: "list_orders", Version: 1,
		Result: json.RawMessage(`{"orders":[{"id":"A001","total":1200},{"id":"A002","total":5000},{"id":"A003","total":20}]}`),
		Cuts:   []events.ArrayCut{{Pointer: "/orders", Len: 50, Kept: 3}},
		Stats:  []evidence.FieldStats{{Array: "/orders", Field: "total", N: 50, Min: 20, Max: 5210, Mean: 812.5}}}
	zh := evidence.Evidence{CallID: "c1", Name: "list_orders", Version: 1,
		Result: json.RawMessage(`{"订单":[{"订单号":"A001","金额":1200},{"订单号":"A002","金额":5000},{"订单号":"A003","金额":20}]}`),
		Cuts:   []events.ArrayCut{{Pointer: "/订单", Len: 50, Kept: 3}},
		Stats:  []evidence.FieldStats{{Array: "/订单", Field: "金额", N: 50, Min: 20, Max: 5210, Mean: 812.5}}}
	for _, tc := range []struct {
		answer string
		ev     evidence.Evidence
		want   events.Verdict
	}{
		{"The largest total is 5000.", en, events.VerdictContradicted},
		{"The largest total is 5210.", en, events.VerdictSupported},
		{"The smallest total is 1200.", en, events.VerdictContradicted},
		{"The average total is 1200.", en, events.VerdictContradicted},
		{"The average total is 812.5.", en, events.VerdictSupported},
		{"Order A002 has a total of 5000.", en, events.VerdictSupported},
		{"最大金额是5000元。", zh, events.VerdictContradicted},
		{"最大金额是5210元。", zh, events.VerdictSupported},
		{"平均金额是1200元。", zh, events.VerdictContradicted},
	} {
		r := c.Check(tc.answer, []evidence.Evidence{tc.ev}, now)
		if len(r.Claims) != 1 || r.Claims[0].Verdict != tc.want {
			t.Errorf("%s: got %+v, want one claim %s", tc.answer, r.Claims, tc.want)
		}
	}
}
