package check

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// TestUnitOfAnotherMagnitude: a number in another unit of the dimension
// of a field is converted and compared (86.4 GB is not 86.4 MB; 8.2 miles
// is not 8.2 km; 0.0864 GB is). Named by its words, the field contradicts
// it; named by nothing but the unit, it contradicts it only when it is the
// evidence's one field of that dimension in a known unit: with two, or
// with a word naming what the evidence does not hold, it is unsupported.
// (Before, the unit alone bound nothing: 跑了8.2英里 was unsupported.)
func TestUnitOfAnotherMagnitude(t *testing.T) {
	c := NewChecker(CheckerConfig{})
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	art := `{"pipeline":"billing-api","run":233,"artifact_size_mb":86.4}`
	fit := `{"steps":11482,"distance_km":8.2,"active_minutes":74}`
	two := `{"steps":11482,"distance_km":8.2,"elevation_m":120}`
	for _, tc := range []struct {
		answer, result string
		want           events.Verdict
	}{
		{"The artifact is 86.4 GB.", art, events.VerdictContradicted},
		{"The artifact is 86.4 MB.", art, events.VerdictSupported},
		{"The artifact is 0.0864 GB.", art, events.VerdictSupported},
		{"产物大小为86.4 GB。", `{"产物大小_mb":86.4}`, events.VerdictContradicted},
		{"The distance was 8.2 miles.", fit, events.VerdictContradicted},
		{"The distance was 5.1 miles.", fit, events.VerdictSupported},
		{"跑了8.2英里。", fit, events.VerdictContradicted},
		{"跑了8.2公里。", fit, events.VerdictSupported},
		{"跑了8.2英里。", two, events.VerdictUnsupported},
	} {
		r := c.Check(tc.answer, []evidence.Evidence{{CallID: "c1", Name: "t", Version: 1, Result: json.RawMessage(tc.result)}}, now)
		if len(r.Claims) != 1 || r.Claims[0].Verdict != tc.want {
			t.Errorf("%s beside %s: got %+v, want one claim %s", tc.answer, tc.result, r.Claims, tc.want)
		}
	}
}
