package check

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestAValueBeyondTheFieldsWeighedIsStillFoundByItsValue: the fields a
// claim is weighed against are bounded (fieldsWeighedMax, the first in
// document order), and a number or a date only a row after them holds is
// still found by its value, as when the rows are few; a state word is
// weighed against the first rows only, the documented cost of the bound.
func TestAValueBeyondTheFieldsWeighedIsStillFoundByItsValue(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, n := range []int{100, fieldsWeighedMax + 904} {
		var b strings.Builder
		b.WriteString(`{"rows":[`)
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			st, due := "shipped", "2026-04-01"
			if i == n-1 {
				st, due = "cancelled", "2026-09-09"
			}
			fmt.Fprintf(&b, `{"id":"R%d","amount":%d.25,"status":"%s","due":"%s"}`, i, 1000+i, st, due)
		}
		b.WriteString(`]}`)
		state := events.VerdictSupported
		if n > fieldsWeighedMax {
			state = events.VerdictContradicted
		}
		for _, tc := range []struct {
			claim string
			want  events.Verdict
		}{
			{"One order is due on 9 September 2026.", events.VerdictSupported},
			{fmt.Sprintf("One amount is %d.25.", 1000+n-1), events.VerdictSupported},
			{fmt.Sprintf("Row R%d has an amount of %d.75.", n-1, 1000+n-1), events.VerdictContradicted},
			{"One order was cancelled.", state},
		} {
			if got, why := checkOne(t, c, b.String(), tc.claim, now); got != tc.want {
				t.Errorf("%d rows, %q: %s (%s), want %s", n, tc.claim, got, why, tc.want)
			}
		}
	}
}
