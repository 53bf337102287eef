package memory

import (
	"testing"
	"time"
)

// A start said by a date, a month or a weekday after a from cue sets the
// statement's valid_from to that day (this year's, or the next's once
// past; a weekday's next date, next week's after 下周); a sentence may open
// with its time and still be read; "a fortnight" is fourteen days. Days of
// a range ("from Monday to Friday") are no start.
func TestAStartSaidByTheCalendarIsRead(t *testing.T) {
	said := time.Date(2027, 5, 12, 10, 0, 0, 0, time.UTC) // a Wednesday
	d := func(m time.Month, day int) int64 { return time.Date(2027, m, day, 0, 0, 0, 0, time.UTC).UnixNano() }
	for _, c := range []struct {
		text string
		from int64         // want valid_from; 0: none
		ttl  time.Duration // want TTL
	}{
		{"Starting in August, please don't book me any early trains.", d(8, 1), 0},
		{"From the 3rd of June I'm avoiding red meat.", d(6, 3), 0},
		{"From the second of June, please don't call me before noon.", d(6, 2), 0},
		{"From Monday I'm avoiding sugar.", d(5, 17), 0},
		{"Starting in February, please don't book me any gym classes.", time.Date(2028, 2, 1, 0, 0, 0, 0, time.UTC).UnixNano(), 0},
		{"从8月3号起，我不喝奶茶了。", d(8, 3), 0},
		{"从下周三开始，别给我安排早会。", d(5, 19), 0},
		{"从下个月5号起，我晚上不吃甜点了。", d(6, 5), 0},
		{"从10月开始，我不吃宵夜了。", d(10, 1), 0},
		{"For the next fortnight please don't book me on any ferries.", 0, 14 * 24 * time.Hour},
		{"For the next three weeks please don't send me any restaurant deals.", 0, 21 * 24 * time.Hour},
		{"Please don't call me from Monday to Friday before 9am.", 0, 0},
	} {
		obs := RuleExtractor{}.ExtractAt(c.text, "", said.UnixNano())
		found := false
		for _, o := range obs {
			if o.Kind == string(KindConstraint) {
				found = true
				if o.ValidFrom != c.from || time.Duration(o.TTL) != c.ttl {
					t.Errorf("%q: %s/%s from %s ttl %s, want from %s ttl %s", c.text, o.Subject, o.Attribute,
						time.Unix(0, o.ValidFrom).UTC(), time.Duration(o.TTL), time.Unix(0, c.from).UTC(), c.ttl)
				}
			}
		}
		if !found {
			t.Errorf("%q: no constraint read: %+v", c.text, obs)
		}
	}
}
