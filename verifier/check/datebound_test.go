package check

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// TestADateIsContradictedOnlyByTheFieldItIsAbout: a claimed day that a
// date of the claim's row holds is not contradicted by a date of the
// whole result its words share (next_firing beside a firing's date), nor
// is one that no words bind ("in two weeks") while another date in scope
// holds it; a day named as a word of a key (sold_today, 昨日 of
// visitors_yesterday) is the field's, no date; a pronoun across sentences
// finds the date in the evidence at large. A claim naming a field's key
// wholly, or its object's date better than the one holding the day, is
// still contradicted by it.
func TestADateIsContradictedOnlyByTheFieldItIsAbout(t *testing.T) {
	kiln := `{"kiln": "K2", "firings": [{"id": "F-881", "date": "2026-02-10", "cone": 6}, {"id": "F-882", "date": "2026-02-17", "cone": 10}], "next_firing": "2026-02-24"}`
	tea := `{"茶园": "龙井二号", "批次": [{"批号": "LJ-07", "采摘": "2026-02-26", "公斤": 42}], "下次采摘": "2026-03-05"}`
	kiosk := `{"kiosk": {"sold_today": 215, "restock_date": "2026-03-04"}}`
	museum := `{"museum": {"visitors_yesterday": 1830, "reopens": "2026-03-09"}}`
	// the keys in full-width letters (rev9: 23a208c, kept by 106888c,
	// passed them over before KeyParts, which folds them, could split them)
	kioskWide := `{"kiosk": {"ｓｏｌｄ＿ｔｏｄａｙ": 215, "restock_date": "2026-03-04"}}`
	museumWide := `{"museum": {"ｖｉｓｉｔｏｒｓ＿ｙｅｓｔｅｒｄａｙ": 1830, "reopens": "2026-03-09"}}`
	permits := `{"lease": {"ends": "2026-03-15", "renewed": false}, "inspection_due": "2026-05-20"}`
	rental := `{"rental": {"start": "2026-03-02", "trial_ends": "2026-03-16"}}`
	boilers := `{"boilers": [{"unit": "B1", "serviced": "2026-01-12"}, {"unit": "B2", "serviced": null}], "gas_check": {"scheduled": "2026-03-20"}, "contract_renewal": "2026-06-01"}`
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, answer, claim string
		want                  events.Verdict
	}{
		{kiln, "Firing F-881 on 10 February reached cone 6.", "Firing F-881 on 10 February reached cone 6.", events.VerdictUnsupported},
		{kiln, "The next firing is on 24 February.", "The next firing is on 24 February.", events.VerdictSupported},
		{kiln, "The next firing is on 26 February.", "The next firing is on 26 February.", events.VerdictContradicted},
		{tea, "LJ-07批2月26日采摘了42公斤。", "LJ-07批2月26日采摘了42公斤。", events.VerdictSupported},
		{tea, "下次采摘在3月7日。", "下次采摘在3月7日。", events.VerdictContradicted},
		{kiosk, "The kiosk sold 215 today.", "The kiosk sold 215 today.", events.VerdictSupported},
		{kiosk, "今天卖了215份。", "今天卖了215份。", events.VerdictSupported},
		{museum, "昨天有1830人参观。", "昨天有1830人参观。", events.VerdictSupported},
		{kioskWide, "The kiosk sold 215 today.", "The kiosk sold 215 today.", events.VerdictSupported},
		{museumWide, "昨天有1830人参观。", "昨天有1830人参观。", events.VerdictSupported},
		{permits, "The lease ends on 15 March; it has not been renewed, that is in two weeks.", "that is in two weeks.", events.VerdictUnsupported},
		{permits, "租约3月15日到期，还没续租，也就是两周后。", "也就是两周后。", events.VerdictUnsupported},
		{rental, "The trial runs until 2 March.", "The trial runs until 2 March.", events.VerdictContradicted},
		{boilers, "B2 has not been serviced yet. It is booked for 20 March.", "It is booked for 20 March.", events.VerdictSupported},
	} {
		rep := c.Check(tc.answer, []evidence.Evidence{{CallID: "c1", Name: "tool", Version: 1, Result: json.RawMessage(tc.result)}}, now)
		found := false
		for _, cl := range rep.Claims {
			if strings.Contains(cl.Text, tc.claim) || strings.Contains(tc.claim, cl.Text) && strings.HasSuffix(tc.answer, cl.Text) {
				found = true
				if cl.Verdict != tc.want {
					t.Errorf("%q of %q beside %s: %s (%s), want %s", cl.Text, tc.answer, tc.result, cl.Verdict, cl.Reason, tc.want)
				}
				break
			}
		}
		if !found {
			t.Errorf("%q: no claim %q", tc.answer, tc.claim)
		}
	}
}
