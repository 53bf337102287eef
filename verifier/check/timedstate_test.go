package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestAStartWithATimeIsAStartWhenTheEvidenceHasNoTime: a state of trait
// timed ("started") said with a time says when, and the time is checked,
// when the evidence holds a date or time in scope; when it holds none, the
// state word is all a check can weigh, so a job not started contradicts
// "started at 9 am" as it contradicts "started", in English and Chinese.
func TestAStartWithATimeIsAStartWhenTheEvidenceHasNoTime(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"job": "Mural", "status": "not started"}`, "Work on the Mural started at 9 am.", events.VerdictContradicted},
		{`{"job": "Mural", "status": "not started"}`, "Work on the Mural started.", events.VerdictContradicted},
		{`{"job": "Mural", "status": "in progress"}`, "Work on the Mural started at 9 am.", events.VerdictSupported},
		{`{"工程": "东墙", "状态": "未开工"}`, "东墙已于上午9点开工。", events.VerdictContradicted},
		{`{"pieces": [{"title": "Ave", "status": "not started"}], "rehearsal_start": "18:30"}`, "The rehearsal started at 6:30 pm.", events.VerdictSupported},
	} {
		got, why := checkOne(t, c, tc.result, tc.claim, now)
		if got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
