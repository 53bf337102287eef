package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// A negation said after a state word with nothing but words like
// "longer", "more" or punctuation after it ("P-7 is running no longer")
// negates that word; one with words after it negates those ("in service
// with no open defects", TestANegationAfterAStateWordIsNotItsNegation).
func TestANegationSaidLastNegatesTheStateBeforeIt(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"pump": "P-7", "state": "running"}`, "P-7 is running no longer.", events.VerdictContradicted},
		{`{"pump": "P-7", "state": "running"}`, "P-7 is running no more.", events.VerdictContradicted},
		{`{"pump": "P-7", "state": "running"}`, "P-7 running: no.", events.VerdictContradicted},
		{`{"pump": "P-7", "state": "running"}`, "P-7 is running not anymore, says the log.", events.VerdictContradicted},
		{`{"泵": "3号泵", "状态": "运行"}`, "3号泵运行：否。", events.VerdictContradicted},
		// Guards: a negation with words after it is of those words.
		{`{"pump": "P-7", "state": "running"}`, "P-7 is running with no leaks.", events.VerdictSupported},
		{`{"泵": "3号泵", "状态": "运行"}`, "3号泵正在运行，没有漏水。", events.VerdictSupported},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
