package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestANumberInANounsNameIsNoBound: "under a 2,500-metre ceiling" bounds
// nothing: the number is part of the noun's name, joined to its unit by
// a hyphen, and it is that noun's value; "under 2,500 metres" is a bound.
func TestANumberInANounsNameIsNoBound(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"club": "Vale Gliding", "ceiling_m": 2500}`, "Vale Gliding flies under a 2,500-metre ceiling.", events.VerdictSupported},
		{`{"club": "Vale Gliding", "limit_km": 30}`, "Vale Gliding trains within a 30-km limit.", events.VerdictSupported},
		{`{"club": "Vale Gliding", "top_altitude_m": 2600}`, "Vale Gliding stayed under 2,000 metres.", events.VerdictContradicted},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
