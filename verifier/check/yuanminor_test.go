package check

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// TestYuanMinorUnitKeys: a key whose last token is 分 (个税_分) counts
// fen where the context is money: a claim in 元 is checked against the
// value in yuan (124300 分 is 1243 元), while a claim of points or of no
// unit still reads the value as it is (分 is also a point of a score).
// amount_cents is the English counterpart.
func TestYuanMinorUnitKeys(t *testing.T) {
	c := NewChecker(CheckerConfig{})
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		answer, result string
		want           events.Verdict
	}{
		{"社保为1243元。", `{"社保_分":124300}`, events.VerdictSupported},
		{"押金为864.2元。", `{"押金_分":86420}`, events.VerdictSupported},
		{"社保为1300元。", `{"社保_分":124300}`, events.VerdictContradicted},
		{"押金为86420元。", `{"押金_分":86420}`, events.VerdictContradicted},
		{"考试成绩为95分。", `{"成绩_分":95}`, events.VerdictSupported},
		{"The deposit was $864.20.", `{"deposit_cents":86420}`, events.VerdictSupported},
		{"The deposit was $900.", `{"deposit_cents":86420}`, events.VerdictContradicted},
	} {
		r := c.Check(tc.answer, []evidence.Evidence{{CallID: "c1", Name: "t", Version: 1, Result: json.RawMessage(tc.result)}}, now)
		if len(r.Claims) != 1 || r.Claims[0].Verdict != tc.want {
			t.Errorf("%s beside %s: got %+v, want one claim %s", tc.answer, tc.result, r.Claims, tc.want)
		}
	}
}
