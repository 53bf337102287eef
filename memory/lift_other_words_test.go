package memory

import (
	"testing"
	"time"
)

// TestALiftInOtherWordsAndARestatementThatLiftsNothing: "I'm fine to go
// back to X", "I can get back to X" ([I] … = resume: the phrase says
// "again" itself) and "I'm fine with X again" (am fine/ok with = permit)
// lift a ban of X, with the audit link, whoever gave the say-so in the
// sentence; "keep X off my plate" and "still no X for me" say the ban again,
// or nothing, and never lift it; a name gone back to is a place and states
// no permission.
func TestALiftInOtherWordsAndARestatementThatLiftsNothing(t *testing.T) {
	at := time.Date(2026, 6, 2, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		ban, then string
		lifts     bool
	}{
		{"I mustn't use my hearing aids while the ear heals.", "The audiologist checked me over and said I'm fine to go back to my hearing aids.", true},
		{"I'm not allowed to use the climbing wall while my finger heals.", "The physio says I can get back to the climbing wall.", true},
		{"I can't eat mussels at the moment.", "The GP says I'm fine with mussels again.", true},
		{"I can't eat mussels at the moment.", "I'm okay with mussels now.", true},
		{"I can't eat mussels at the moment.", "Keep mussels off my plate, please.", false},
		{"I can't eat mussels at the moment.", "Still no mussels for me.", false},
	} {
		checkLift(t, c.ban, c.then, c.lifts, at)
	}
	for _, o := range (RuleExtractor{}).ExtractAt("I can go back to Leeds next week.", "", at.UnixNano()) {
		if o.Kind == string(KindConstraint) {
			t.Errorf("a place gone back to read as a permission: %s/%s", o.Subject, o.Attribute)
		}
	}
}
