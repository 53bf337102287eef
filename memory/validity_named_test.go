package memory

import (
	"testing"
	"time"
)

// TestTheEndOfANamedMonthEndsTheStatement: "until the end of <month>"
// holds to that month's last day, this year's or, once the month is past,
// next year's.
func TestTheEndOfANamedMonthEndsTheStatement(t *testing.T) {
	said := time.Date(2026, 9, 14, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		text string
		want time.Time
	}{
		{"Please don't schedule any site visits for me until the end of October.", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)},
		{"Don't send me wine offers till the end of February, I'm on a health kick.", time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC)},
		{"I can't lift anything heavy until the close of November.", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
	} {
		obs := RuleExtractor{}.ExtractAt(c.text, "en", said.UnixNano())
		if len(obs) == 0 {
			t.Errorf("%q: nothing read", c.text)
			continue
		}
		if got := obs[0].ValidUntil; got != c.want.UnixNano() {
			t.Errorf("%q: valid until %s, want %s", c.text, time.Unix(0, got).UTC(), c.want)
		}
	}
}
