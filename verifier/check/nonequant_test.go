package check

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestANegativeQuantifierIsContradictedByARowInTheState: a claim that no
// row is in a state (no, none of the N, 没有任何, 均未, 都没有) is "some row
// is" denied, read by the same code as some/all: a row whose state field
// holds the state contradicts it, and it is supported only when no row
// does. Past fieldsWeighedMax fields each row is still weighed on its own
// (the bound is of a row's fields, not of the rows), so row 5,000 of
// 5,000 cancelled contradicts it as row 41 of 100 does.
func TestANegativeQuantifierIsContradictedByARowInTheState(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	rows := func(n, cancelled int, zh bool) string {
		var b strings.Builder
		b.WriteString(`{"orders":[`)
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			st, key, id := "shipped", "status", "id"
			if i == cancelled {
				st = "cancelled"
			}
			if zh {
				st, key, id = "已发货", "状态", "订单号"
				if i == cancelled {
					st = "已取消"
				}
			}
			fmt.Fprintf(&b, `{"%s":"R%d","%s":"%s"}`, id, i, key, st)
		}
		b.WriteString(`]}`)
		return b.String()
	}
	for _, n := range []int{100, fieldsWeighedMax + 904} {
		for _, tc := range []struct {
			claim     string
			zh        bool
			cancelled int
			want      events.Verdict
		}{
			{"No order was cancelled.", false, 40, events.VerdictContradicted},
			{"No order was cancelled.", false, n - 1, events.VerdictContradicted},
			{"No order was cancelled.", false, -1, events.VerdictSupported},
			{fmt.Sprintf("None of the %d orders was cancelled.", n), false, 40, events.VerdictContradicted},
			{fmt.Sprintf("None of the %d orders was cancelled.", n), false, -1, events.VerdictSupported},
			{"没有任何订单已取消。", true, 40, events.VerdictContradicted},
			{"没有任何订单已取消。", true, n - 1, events.VerdictContradicted},
			{"没有任何订单已取消。", true, -1, events.VerdictSupported},
			{"订单均未取消。", true, 40, events.VerdictContradicted},
			{"订单都没有取消。", true, 40, events.VerdictContradicted},
		} {
			res := rows(n, tc.cancelled, tc.zh)
			if got, why := checkOne(t, c, res, tc.claim, now); got != tc.want {
				t.Errorf("%d rows, row %d cancelled, %q: %s (%s), want %s", n, tc.cancelled, tc.claim, got, why, tc.want)
			}
		}
	}
}
