package check

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// TestParentKeyMinorUnits: a key that names a minor unit of money and
// holds an object ({"fees_pence": {"labour": 12050}}) counts the
// amounts under it in that unit, as amount_cents counts its own: a claim
// in the currency is checked against 120.50, not 12,050. A field under
// it with a unit or a count of its own keeps it.
func TestParentKeyMinorUnits(t *testing.T) {
	c := NewChecker(CheckerConfig{})
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		answer, result string
		want           events.Verdict
	}{
		{"Labour came to £120.50.", `{"job":"J-7","fees_pence":{"labour":12050,"parts":4399}}`, events.VerdictSupported},
		{"The parts cost £43.99.", `{"job":"J-7","fees_pence":{"labour":12050,"parts":4399}}`, events.VerdictSupported},
		{"Labour came to £150.", `{"job":"J-7","fees_pence":{"labour":12050,"parts":4399}}`, events.VerdictContradicted},
		{"Postage was $7.25.", `{"order":"A1","amounts_cents":{"postage":725,"goods":18900}}`, events.VerdictSupported},
		{"Postage was $9.", `{"order":"A1","amounts_cents":{"postage":725,"goods":18900}}`, events.VerdictContradicted},
		{"运费是12.5元。", `{"单号":"K9","费用_fen":{"运费":1250,"包装":300}}`, events.VerdictSupported},
		{"运费是20元。", `{"单号":"K9","费用_fen":{"运费":1250,"包装":300}}`, events.VerdictContradicted},
		{"The parcel weighs 2 kg.", `{"order":"A1","amounts_cents":{"postage":725,"weight_kg":2}}`, events.VerdictSupported},
	} {
		r := c.Check(tc.answer, []evidence.Evidence{{CallID: "c1", Name: "t", Version: 1, Result: json.RawMessage(tc.result)}}, now)
		if len(r.Claims) != 1 || r.Claims[0].Verdict != tc.want {
			t.Errorf("%s beside %s: got %+v, want one claim %s", tc.answer, tc.result, r.Claims, tc.want)
		}
	}
}
