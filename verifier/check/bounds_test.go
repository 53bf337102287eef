package check_test

import (
	"encoding/json"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/check"
	"github.com/toolstream/toolstream/verifier/evidence"
	"strings"
	"testing"
	"time"
)

// An answer longer than ClaimsMax claims: the first ones are checked, the
// rest are not_checkable and say why.
func TestClaimsMax(t *testing.T) {
	ev := []evidence.Evidence{{CallID: "c", Name: "stock", Result: json.RawMessage(`{"sku":"A1","available":12}`)}}
	answer := strings.Repeat("A1 has 12 available. ", 3)
	r := check.NewChecker(check.CheckerConfig{ClaimsMax: 2}).Check(answer, ev, time.Unix(1_800_000_000, 0))
	if len(r.Claims) != 3 {
		t.Fatalf("%d claims, want 3", len(r.Claims))
	}
	for i, c := range r.Claims {
		checked := c.Verdict != events.VerdictNotCheckable
		if checked != (i < 2) || !checked && !strings.Contains(c.Reason, "more than 2 claims") {
			t.Errorf("claim %d: %s %q", i, c.Verdict, c.Reason)
		}
	}
}
