package check

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// TestClockOfTheRow: a claim's second time of day binds to the row its
// first names ("the kiln fired from 6:00 to 14:30", "the 9:10 bus gets
// in at 10:25"), and a time the claim says a thing ends at may be a row's
// start plus its duration; a time no field of that row (nor start plus
// duration) holds is still contradicted.
func TestClockOfTheRow(t *testing.T) {
	c := NewChecker(CheckerConfig{})
	now := time.Date(2026, 11, 20, 16, 0, 0, 0, time.UTC)
	kilns := `{"kilns":[{"kiln":"K1","firing_start":"05:20","firing_end":"12:00"},{"kiln":"K2","firing_start":"06:00","firing_end":"14:30"}]}`
	buses := `{"buses":[{"departs":"08:40","arrives":"09:55","stand":"A"},{"departs":"09:10","arrives":"10:25","stand":"B"}]}`
	slots := `{"sessions":[{"client":"Ines Marlow","start":"13:45","duration_min":90},{"client":"Tobias Frey","start":"15:00","duration_min":60}]}`
	zh := `{"班车":[{"车次":"一号车","发车":"05:20","到达":"07:00"},{"车次":"二号车","发车":"06:00","到达":"07:40"}]}`
	for _, tc := range []struct {
		answer, result string
		want           events.Verdict
	}{
		{"K2 fired from 6:00 to 14:30.", kilns, events.VerdictSupported},
		{"K2 fired from 6:00 to 15:30.", kilns, events.VerdictContradicted},
		{"The 9:10 bus arrives at 10:25.", buses, events.VerdictSupported},
		{"The 9:10 bus arrives at 10:50.", buses, events.VerdictContradicted},
		{"Ines Marlow's session will end at 15:15.", slots, events.VerdictSupported},
		{"Ines Marlow's session will end at 16:00.", slots, events.VerdictContradicted},
		{"6:00发车的二号车7:40到达。", zh, events.VerdictSupported},
		{"6:00发车的二号车8:10到达。", zh, events.VerdictContradicted},
	} {
		r := c.Check(tc.answer, []evidence.Evidence{{CallID: "c1", Name: "t", Version: 1, Result: json.RawMessage(tc.result)}}, now)
		got := events.VerdictSupported
		for _, cl := range r.Claims {
			if cl.Verdict != events.VerdictSupported {
				got = cl.Verdict
			}
		}
		if len(r.Claims) == 0 || got != tc.want {
			t.Errorf("%s beside %s: got %+v, want %s", tc.answer, tc.result, r.Claims, tc.want)
		}
	}
}
