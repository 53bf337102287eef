package memory

import (
	"strings"
	"testing"
)

// TestARestatedAmountInWords: a restatement's amount may be said in words
// ("fifty-five dollars", "a hundred and twelve pounds", "twelve quid"); one
// number word without its unit ("mix those two up") is no amount, and the
// value is read as if no number were said.
func TestARestatedAmountInWords(t *testing.T) {
	for _, c := range []struct{ text, want, notWant string }{
		{"The council has put my parking permit up to a hundred and twelve pounds.", "hundred and twelve pounds", ""},
		{"They bumped the club fee up to fifty-five dollars.", "fifty-five dollars", ""},
		{"My cleaner is down to twelve quid an hour now.", "twelve quid", ""},
		{"Actually, the dentist I go to now is Dr Shah, I always mix those two up.", "Dr Shah", "two"},
		{"Scratch that, it's the blue one now.", "blue", ""},
	} {
		o, ok := matchRestatement(c.text)
		if !ok || !strings.Contains(o.Value, c.want) || c.notWant != "" && strings.Contains(o.Value, c.notWant) {
			t.Errorf("%q: value %q (%v), want it to hold %q and not %q", c.text, o.Value, ok, c.want, c.notWant)
		}
	}
}
