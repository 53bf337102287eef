package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestAKeyEndingInFreeStatesTheAbsenceOfWhatItNames: a flag whose key ends
// in a word of being free of something (deposit_free, fee_free) is true
// when there is none of it: a claim that one is needed is contradicted by
// true, one that none is needed (or that it is free of it) is supported;
// a key that starts with the word (free_shipping) is read as before.
func TestAKeyEndingInFreeStatesTheAbsenceOfWhatItNames(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"rental": "R-7", "deposit_free": true}`, "Rental R-7 requires a deposit.", events.VerdictContradicted},
		{`{"rental": "R-7", "deposit_free": true}`, "Rental R-7 needs no deposit.", events.VerdictSupported},
		{`{"rental": "R-7", "deposit_free": false}`, "Rental R-7 requires a deposit.", events.VerdictSupported},
		{`{"rental": "R-7", "deposit_free": false}`, "Rental R-7 needs no deposit.", events.VerdictContradicted},
		{`{"rental": "R-7", "deposit_free": true}`, "Rental R-7 is deposit-free.", events.VerdictSupported},
		{`{"租借": "R-7", "deposit_free": true}`, "R-7需要交押金。", events.VerdictContradicted},
		{`{"租借": "R-7", "deposit_free": true}`, "R-7不用交押金。", events.VerdictSupported},
		{`{"租借": "R-7", "deposit_free": false}`, "R-7需要交押金。", events.VerdictSupported},
		{`{"item": "Lamp", "free_shipping": true}`, "Shipping for the lamp is free.", events.VerdictSupported},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}

// TestAKeyOfBeingExemptStatesTheAbsenceOfWhatItNames: the words of being
// free of something come from the language data in English and Chinese
// (free_of: exempt, waived, 免, 免除): deposit_exempt, deposit_waived,
// 免押金 and 押金免除 are true when there is no deposit, so a claim that one
// is needed is contradicted by true, and a claim that says it is waived
// (免押金, "is exempt from the deposit") is supported; a Chinese key
// starting with 免费 (免费停车) names what is free and is read as before.
func TestAKeyOfBeingExemptStatesTheAbsenceOfWhatItNames(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"酒店": "H-3", "免押金": true}`, "H-3需要交押金。", events.VerdictContradicted},
		{`{"酒店": "H-3", "免押金": true}`, "H-3免押金。", events.VerdictSupported},
		{`{"酒店": "H-3", "免押金": false}`, "H-3需要交押金。", events.VerdictSupported},
		{`{"酒店": "H-3", "押金免除": true}`, "H-3需要交押金。", events.VerdictContradicted},
		{`{"酒店": "H-3", "押金免除": true}`, "H-3免押金。", events.VerdictSupported},
		{`{"hotel": "H-3", "deposit_exempt": true}`, "Hotel H-3 requires a deposit.", events.VerdictContradicted},
		{`{"hotel": "H-3", "deposit_exempt": true}`, "Hotel H-3 is exempt from the deposit.", events.VerdictSupported},
		{`{"hotel": "H-3", "deposit_exempt": false}`, "Hotel H-3 requires a deposit.", events.VerdictSupported},
		{`{"hotel": "H-3", "deposit_waived": true}`, "Hotel H-3 requires a deposit.", events.VerdictContradicted},
		{`{"hotel": "H-3", "deposit_waived": true}`, "The deposit is waived at hotel H-3.", events.VerdictSupported},
		{`{"酒店": "H-3", "免费停车": true}`, "H-3可以免费停车。", events.VerdictSupported},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
