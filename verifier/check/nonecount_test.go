package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// "No X" beside a count of X above zero is not borne out: the words
// alone ("the evidence says the same words") must not support it.
func TestNoneBesideACountAboveZeroIsNotSupported(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct{ result, claim string }{
		{`{"store": "North", "complaints": 3}`, "North had no complaints."},
		{`{"store": "North", "complaints_resolved": 0, "complaints_open": 4}`, "North has no complaints."},
		{`{"store": "North", "complaints": 0, "returns": 5}`, "North had no complaints and no returns."},
		{`{"门店": "北店", "退货": 2}`, "北店没有退货。"},
		{`{"门店": "北店", "投诉": 0, "退货": 2}`, "北店没有退货。"},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got == events.VerdictSupported {
			t.Errorf("%q beside %s: supported (%s)", tc.claim, tc.result, why)
		}
	}
}
