package memory

import (
	"testing"
	"time"
)

// TestARestatementReplacesAValueNotALiking: a restatement moves into the
// slot whose value it replaces; a liking or a ban, named by its thing
// alone, has none, so a later sentence that says something else about the
// same thing ("always down to swap thriller novels") leaves it in force.
func TestARestatementReplacesAValueNotALiking(t *testing.T) {
	at := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct{ first, second string }{
		{"I love thriller novels, the twists are so good!", "I'm always down to lend thriller novels to my neighbours."},
		{"我喜欢科幻电影。", "现在改成周末给朋友推荐科幻电影了。"},
	} {
		t.Run(c.second, func(t *testing.T) {
			e, s := sayTwo(t, c.first, c.second, at)
			old, nu := getRecord(t, e, s, "m1"), getRecord(t, e, s, "m2")
			if !old.Slotted() {
				t.Fatalf("want %q slotted, got %s", c.first, old.Kind)
			}
			if old.Status != StatusActive {
				t.Errorf("%q (%s %s/%s=%q) after %q (%s %s/%s): %s by %s, want active", c.second, nu.Kind, nu.Subject, nu.Attribute, nu.Value,
					c.first, old.Kind, old.Subject, old.Attribute, old.Status, old.SupersededBy)
			}
		})
	}
}
