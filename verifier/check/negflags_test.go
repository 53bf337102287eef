package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestNegationsOfFlagsAndStates: a word that negates a true/false field
// by its prefix though the lexicon does not know it (unarchived beside
// archived), "out of X" beside in_X, and a state held only in part
// (PARTIALLY_PAID) are read before comparing; a negated number is not
// contradicted by another value; "e-scooters" names escooters.
func TestNegationsOfFlagsAndStates(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"project": "Atlas", "archived": true}`, "The project is unarchived.", events.VerdictContradicted},
		{`{"project": "Atlas", "archived": false}`, "The project is unarchived.", events.VerdictSupported},
		{`{"project": "Atlas", "archived": true}`, "The project is archived.", events.VerdictSupported},
		{`{"unit": "Kiln 2", "calibrated": true}`, "Kiln 2 is non-calibrated.", events.VerdictContradicted},
		{`{"produce": "asparagus", "in_season": false}`, "Asparagus is out of season.", events.VerdictSupported},
		{`{"sensor": "T-4", "in_range": true}`, "The sensor is out of range.", events.VerdictContradicted},
		{`{"sensor": "T-4", "in_range": true}`, "The sensor is in range.", events.VerdictSupported},
		{`{"test": "quiz", "score": 42, "max_score": 50}`, "The score was 42 out of 50.", events.VerdictSupported},
		{`{"bill": "B-7", "status": "PARTIALLY_PAID"}`, "The bill has been paid.", events.VerdictContradicted},
		{`{"bill": "B-7", "status": "PARTIALLY_PAID"}`, "The bill is partially paid.", events.VerdictSupported},
		{`{"bill": "B-7", "status": "PAID"}`, "The bill has been paid.", events.VerdictSupported},
		{`{"账单": "B-7", "status": "PARTIALLY_PAID"}`, "账单已部分还款。", events.VerdictSupported},
		// a negated number is not contradicted by another value of its field
		{`{"race": "Gravel 200", "starters": 131, "finishers": 120}`, "11 riders did not finish.", events.VerdictUnsupported},
		{`{"race": "Gravel 200", "starters": 131, "finishers": 120}`, "The race did not have 140 starters.", events.VerdictUnsupported},
		{`{"race": "Gravel 200", "starters": 131, "finishers": 120}`, "The race had 140 starters.", events.VerdictContradicted},
		// a compound joined by a hyphen names the field of its joined form
		{`{"dock": {"scooters": 4, "escooters": 2}}`, "The dock has 2 e-scooters.", events.VerdictSupported},
		{`{"dock": {"scooters": 4, "escooters": 2}}`, "The dock has 4 scooters.", events.VerdictSupported},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}

// TestFlagWordsInChinese: a Chinese claim names an English flag through
// the lexicon's state words (locked 锁定, archived 归档, verified 认证,
// frozen 冻结), and its polarity is compared as an English claim's is.
func TestFlagWordsInChinese(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"account": "A-1", "locked": true}`, "账户已锁定。", events.VerdictSupported},
		{`{"account": "A-1", "locked": false}`, "账户已锁定。", events.VerdictContradicted},
		{`{"doc": "D-9", "archived": false}`, "文件已经归档了。", events.VerdictContradicted},
		{`{"member": "M-3", "verified": false}`, "会员还没有认证。", events.VerdictSupported},
		{`{"card": "C-2", "frozen": true}`, "这张卡没有被冻结。", events.VerdictContradicted},
		{`{"game": "G-5", "overtime": true}`, "比赛打了加时。", events.VerdictSupported},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
