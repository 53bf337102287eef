package memory

import (
	"testing"
	"time"
)

// TestALiftSaidAsGoingBackToTheThing: "I'm fine to go back to X", "I can
// get back to X" ([I] … = resume) lift a ban of X, the phrase saying
// "again" itself, whoever gave the say-so in the sentence; a name gone back
// to is a place and lifts nothing.
func TestALiftSaidAsGoingBackToTheThing(t *testing.T) {
	at := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		ban, lift string
		lifts     bool
	}{
		{"I mustn't use my hearing aids while the ear heals.", "The audiologist checked me over and said I'm fine to go back to my hearing aids.", true},
		{"I'm not allowed to use the climbing wall while my finger heals.", "The physio says I can get back to the climbing wall.", true},
	} {
		checkLift(t, c.ban, c.lift, c.lifts, at)
	}
	for _, o := range (RuleExtractor{}).ExtractAt("I can go back to Leeds next week.", "", at.UnixNano()) {
		if o.Kind == string(KindConstraint) {
			t.Errorf("a place gone back to read as a permission: %s/%s", o.Subject, o.Attribute)
		}
	}
}
