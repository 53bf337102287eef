package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestANameOfTheSameFormBindsItsField: a Chinese name the claim gives after
// a copula, of a field its words do not name by key, is judged against the
// one field in scope whose value has the same form (as long, the same
// title or kind at its end): another value contradicts; the same value,
// several such fields or none leave it to the other checks.
func TestANameOfTheSameFormBindsItsField(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"patient": "P-31", "physiotherapist": "孙医生", "sessions": 6}`, "康复师是周医生。", events.VerdictContradicted},
		{`{"patient": "P-31", "physiotherapist": "孙医生", "sessions": 6}`, "康复师是孙医生。", events.VerdictSupported},
		{`{"client": "C-8", "office": "北塔楼", "floor_count": 30}`, "办公地点是南塔楼。", events.VerdictContradicted},
		// a surname that is a word of the lexicon (钱, money; 高, high)
		{`{"patient": "P-31", "physiotherapist": "孙医生", "sessions": 6}`, "康复师是钱医生。", events.VerdictContradicted},
		{`{"patient": "P-31", "coach": "孙教练", "sessions": 6}`, "带课的是高教练。", events.VerdictContradicted},
		{`{"patient": "P-31", "coach": "高教练", "sessions": 6}`, "带课的是高教练。", events.VerdictSupported},
		// two fields of that form: which one the claim means is not known
		{`{"patient": "P-31", "physiotherapist": "孙医生", "referrer": "马医生"}`, "康复师是周医生。", events.VerdictUnsupported},
		// a value of another form says nothing of the name
		{`{"patient": "P-31", "physiotherapist": "孙丽", "sessions": 6}`, "康复师是周医生。", events.VerdictUnsupported},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
