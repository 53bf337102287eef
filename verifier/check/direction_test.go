package check

import (
	"encoding/json"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
	"testing"
	"time"
)

// TestBlind6Classes checks the failure classes blind round 6 showed, on
// evidence of its own.
func TestBlind6Classes(t *testing.T) {
	now := time.Date(2024, 6, 12, 10, 0, 0, 0, time.UTC)
	quotes := `{"quotes":[{"name":"Apple Inc.","price":213.07,"change_pct":2.86},{"name":"Tesla Inc.","price":170.66,"change_pct":-1.2}]}`
	stock := `{"items":[{"name":"Alpha","stock":3},{"name":"Beta","stock":0},{"name":"Gamma","stock":7}]}`
	news := `{"text":"The bridge opened in 2018 and is 55 km long."}`
	cases := []struct {
		ev, answer string
		want       events.Verdict
	}{
		{quotes, "Apple rose 2.86%.", events.VerdictSupported},
		{quotes, "Apple fell 2.86%.", events.VerdictContradicted},
		{quotes, "Tesla fell 1.2%.", events.VerdictSupported},
		{quotes, "Tesla's price is $170.66.", events.VerdictSupported},
		{stock, "All but one item is in stock.", events.VerdictSupported},
		{stock, "除了 Beta，其他商品都有货。", events.VerdictSupported},
		{stock, "除了 Alpha，其他商品都有货。", events.VerdictContradicted},
		{news, "The bridge opened in 2016.", events.VerdictUnsupported},
	}
	c := NewChecker(CheckerConfig{})
	for _, tc := range cases {
		r := c.Check(tc.answer, []evidence.Evidence{{CallID: "c", Name: "t", Result: json.RawMessage(tc.ev)}}, now)
		if len(r.Claims) != 1 {
			t.Errorf("%q: %d claims", tc.answer, len(r.Claims))
			continue
		}
		got := r.Claims[0].Verdict
		if got != tc.want && !(flagged(got) && flagged(tc.want)) {
			t.Errorf("%q: got %s (%s), want %s", tc.answer, got, r.Claims[0].Reason, tc.want)
		}
	}
}
