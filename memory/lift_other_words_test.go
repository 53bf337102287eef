package memory

import (
	"testing"
	"time"
)

// TestALiftInOtherWordsAndARestatementThatLiftsNothing: "I'm fine with X
// again" (am fine/ok with = permit) lifts a ban of X, with the audit link;
// "keep X off my plate" and "still no X for me" say the ban again, or
// nothing, and never lift it.
func TestALiftInOtherWordsAndARestatementThatLiftsNothing(t *testing.T) {
	at := time.Date(2026, 6, 2, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		ban, then string
		lifts     bool
	}{
		{"I can't eat mussels at the moment.", "The GP says I'm fine with mussels again.", true},
		{"I can't eat mussels at the moment.", "I'm okay with mussels now.", true},
		{"I can't eat mussels at the moment.", "Keep mussels off my plate, please.", false},
		{"I can't eat mussels at the moment.", "Still no mussels for me.", false},
	} {
		checkLift(t, c.ban, c.then, c.lifts, at)
	}
}
