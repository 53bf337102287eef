package check

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// TestCouldNotIsAStatement: "could not" says what did not happen, as
// "couldn't" does, not a possibility: beside evidence that it did, both
// are contradicted (before, "could not" read as the modal "could" and was
// unsupported while "couldn't" was contradicted). "may not" is a
// negated possibility: unsupported (before, its phrase swallowed the
// "not", and the claim was supported by the very state it doubts).
func TestCouldNotIsAStatement(t *testing.T) {
	c := NewChecker(CheckerConfig{})
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	ev := `{"parcel":"P-1182","status":"delivered"}`
	for _, tc := range []struct {
		answer string
		want   events.Verdict
	}{
		{"The parcel couldn't be delivered.", events.VerdictContradicted},
		{"The parcel could not be delivered.", events.VerdictContradicted},
		{"The parcel was not delivered.", events.VerdictContradicted},
		{"The parcel might not be delivered.", events.VerdictUnsupported},
		{"The parcel could be delayed.", events.VerdictUnsupported},
		{"The parcel may not be delivered.", events.VerdictUnsupported},
	} {
		r := c.Check(tc.answer, []evidence.Evidence{{CallID: "c1", Name: "t", Version: 1, Result: json.RawMessage(ev)}}, now)
		if len(r.Claims) != 1 || r.Claims[0].Verdict != tc.want {
			t.Errorf("%s beside %s: got %+v, want one claim %s", tc.answer, ev, r.Claims, tc.want)
		}
	}
}
