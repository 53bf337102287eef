package check

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// TestNegatedOtherRowsValue: a negation of another row's status value
// ("no longer drying" beside ready, another row's drying; 不再晾晒 beside
// 已入库) holds when the subject's own field says another value; the
// subject's field naming the negated value still contradicts it.
func TestNegatedOtherRowsValue(t *testing.T) {
	c := NewChecker(CheckerConfig{})
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	kiln := `{"lots":[{"lot":"KL-88","state":"drying"},{"lot":"KL-91","state":"ready"}]}`
	yard := `{"vans":[{"van":"VN-3","state":"loading"},{"van":"VN-7","state":"departed"}]}`
	for _, tc := range []struct {
		answer, result string
		want           events.Verdict
	}{
		{"KL-91 is no longer drying.", kiln, events.VerdictSupported},
		{"KL-88 is no longer drying.", kiln, events.VerdictContradicted},
		{"VN-7 is not loading any more.", yard, events.VerdictSupported},
		{"VN-3 is not loading any more.", yard, events.VerdictContradicted},
	} {
		r := c.Check(tc.answer, []evidence.Evidence{{CallID: "c1", Name: "t", Version: 1, Result: json.RawMessage(tc.result)}}, now)
		if len(r.Claims) != 1 || r.Claims[0].Verdict != tc.want {
			t.Errorf("%s beside %s: got %+v, want one claim %s", tc.answer, tc.result, r.Claims, tc.want)
		}
	}
}
