package check

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// checkOne checks claim against one result and returns its first claim's
// verdict and reason.
func checkOne(t *testing.T, c *Checker, result, claim string, now time.Time) (events.Verdict, string) {
	t.Helper()
	ev := []evidence.Evidence{{CallID: "c1", Name: "tool", Version: 1, Result: json.RawMessage(result)}}
	rep := c.Check(claim, ev, now)
	if len(rep.Claims) == 0 {
		t.Fatalf("%q: no claim", claim)
	}
	return rep.Claims[0].Verdict, rep.Claims[0].Reason
}

// TestANumberIsJudgedByAFieldOfItsKind: a field the claim's words name
// that holds another kind of value than the claim's number — a number
// inside a longer string (a berth, a locker's row, a hull mark) or, for a
// weight or a length, a field of no dimension that is no total or amount
// — does not contradict it, nor does a field without the word of a rate
// the claim states ("per plant"); a field of the claim's kind still does.
func TestANumberIsJudgedByAFieldOfItsKind(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		// a number inside a string that gives it no unit
		{`{"lockers": [{"locker": "Row B, Locker 17", "size": "large"}]}`, "Each locker costs €20.", events.VerdictUnsupported},
		{`{"plots": [{"plot": "Bed 3, Plot 14", "crop": "beans"}]}`, "The plot holds 20 bean plants.", events.VerdictUnsupported},
		{`{"boat": {"hull": "KR 448 TX", "owner": "Ines"}}`, "The hull is 9 metres long.", events.VerdictUnsupported},
		// a weight against a field of no dimension (a pallet's number)
		{`{"pallets": [{"pallet": 2, "kind": "steel"}, {"pallet": 3, "kind": "glass"}]}`, "Pallet 3 weighs 412 kg.", events.VerdictUnsupported},
		// a rate per a word is not the value of a field without that word
		{`{"plot": {"tomatoes_kg": 412, "kg_per_plant": 2.4}}`, "The plot gave 2.4 kg per plant.", events.VerdictSupported},
		{`{"job": {"total_cents": 50000, "pages": 200, "rate_per_page_cents": 250}}`, "The rate is $2.50 per page.", events.VerdictSupported},
		{`{"hike": {"distance_km": 14, "minutes_per_km": 11}}`, "The pace was 13 minutes per km.", events.VerdictContradicted},
		// fields of the claim's kind still decide
		{`{"hull": {"mark": "KR 448 TX", "crew": 6}}`, "The hull has a crew of 9.", events.VerdictContradicted},
		{`{"pallet": {"weight_kg": 380, "slot": 4}}`, "The pallet weighs 412 kg.", events.VerdictContradicted},
		{`{"pallet": {"weight_kg": 380, "slot": 4}}`, "The pallet weighs 380 kg.", events.VerdictSupported},
		{`{"week": [{"day": "Mon", "low": 46}]}`, "Monday's low is 50°F.", events.VerdictContradicted},
		{`{"policy": {"deductible": 1000}}`, "The deductible is $1,500.", events.VerdictContradicted},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
