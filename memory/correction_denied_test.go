package memory

import (
	"testing"
	"time"
)

// TestACorrectionSaidAsAMistake: a correction that says the user got a
// value wrong and gives the right one replaces the value said before, in
// English with a day of the month ("I misread the text - it's the 14th,
// not the 4th"; "… on the 12th of June, not the 21st"; "I read the
// timetable wrong - … at 23:40, not 23:10", read before what else the
// sentence says) and in Chinese
// with the verb it denies instead of 不是 (仓库在通州，不在顺义; 他叫王思源，源头
// 的源，不叫思远; 住在苏州，不住在杭州): the newer value supersedes the older
// with the audit links both ways. A denial of a value the user never said
// leaves what they said as it was.
func TestACorrectionSaidAsAMistake(t *testing.T) {
	at := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct{ name, first, second, want string }{
		{"en-ordinal", "The plumber is coming on the 4th.", "I misread the text - it's the 14th, not the 4th.", "14th"},
		{"en-ordinal-of-month", "My sister's wedding is on the 21st of June.",
			"I misheard her on the phone - the wedding is on the 12th of June, not the 21st.", "12th of June"},
		{"en-read-wrong-clock", "The last bus home is at 23:10.",
			"I read the timetable wrong - the last bus is at 23:40, not 23:10.", "23:40"},
		{"zh-place", "我们的仓库在顺义。", "我记错了，我们的仓库在通州，不在顺义。", "通州"},
		{"zh-name-character", "我的新同事叫王思远。", "我写错了，他叫王思源，源头的源，不叫思远。", "王思源"},
		{"zh-lives-in", "我姐姐住在杭州。", "说岔了，我姐姐住在苏州，不住在杭州。", "苏州"},
	} {
		t.Run(c.name, func(t *testing.T) { supersedes(t, c.first, c.second, at, c.want) })
	}
	for _, c := range []struct{ name, first, second string }{
		{"en-another-day", "The plumber is coming on the 4th.", "I misread the text - it's the 14th, not the 5th."},
		{"zh-another-place", "我们的仓库在顺义。", "我记错了，我们的仓库在通州，不在昌平。"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, s := sayTwo(t, c.first, c.second, at)
			if r := getRecord(t, e, s, "m1"); r.Status != StatusActive || r.SupersededBy != "" {
				t.Errorf("a denial of a value never said: m1 %s, want it kept as it was", r.String())
			}
		})
	}
}
