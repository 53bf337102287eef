package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestAShareSaidInWordsIsOneProportion: "four in five", "three out of
// ten" is the share N/M, judged as a percentage with the tolerance the
// words carry (half of 1/M either way), never as two numbers compared with
// the nearest field, and never contradicted by a count; a score on a scale
// ("pain 3 out of 10") is still the field's value.
func TestAShareSaidInWordsIsOneProportion(t *testing.T) {
	ferry := `{"route": "Kyle–Armadale", "sailings": 212, "on_time_share_pct": 83.1}`
	survey := `{"survey": {"responses": 412, "recommend_pct": 31.2}}`
	gym := `{"gym": "Northside", "members": 640, "renewal_rate_pct": 78.4}`
	kennel := `{"kennels": 20, "occupied": 15}`
	patients := `{"patients": [{"name": "Ana Ruiz", "pain": 5}, {"name": "Bo Lund", "pain": 3}]}`
	runOperationCases(t, []operationCase{
		{ferry, "Just over four in five sailings left on time.", events.VerdictSupported},
		{ferry, "Three in five sailings left on time.", events.VerdictContradicted},
		{kennel, "Three in four kennels are occupied.", events.VerdictSupported},
		// the whole's count is no share: unsupported, not contradicted
		{gym, "Only three in five Northside members renewed.", events.VerdictUnsupported},
		{survey, "About one in ten respondents said they recommend it.", events.VerdictUnsupported},
		// a score on its scale is the field's value
		{patients, "Ana Ruiz rated her pain 5 out of 10.", events.VerdictSupported},
		{patients, "Ana Ruiz rated her pain 3 out of 10.", events.VerdictContradicted},
	})
}
