package memory

import "testing"

// TestTheKindOfAValue: what kind of value a fact holds, in either
// language; "" where it cannot tell.
func TestTheKindOfAValue(t *testing.T) {
	for _, c := range []struct{ value, want string }{
		{"costs 900 pounds a year", "price"},
		{"£45 a month", "price"},
		{"expires in May 2031", "date"},
		{"runs out in June 2032", "date"},
		{"takes 40 minutes", "length"},
		{"stays in the boot of the car", "place"},
		{"a ThinkPad X1", ""},
		{"may change", ""},
		{"每月交两千元", "金额"},
		{"每年3900元", "金额"},
		{"还剩十二年", "期限"},
		{"2029年到期", "日期"},
		{"在杭州缴纳", "地点"},
		{"每天早上跑步", ""},
		{"ends in two months", "length"},
		{"costs 900 a year", "price"},
		{"at night", ""},
		{"at 7pm", ""},
		{"a 2019 model", "date"},
		{"一年九百", "金额"},
		{"每月交两千", "金额"},
		{"每周打两次", ""},
		{"5月20号", "日期"},
		{"12号", ""},
		{"在3号楼", "地点"},
		{"在下个月", ""},
		{"在三点", ""},
		// a day of the week or a clock time after 在 or "at" is a time
		{"在周四", ""},
		{"在周六晚上", ""},
		{"在礼拜天上午", ""},
		{"在凌晨", ""},
		{"在6:30", ""},
		{"at 6:45", ""},
		{"在周庄", "地点"},
	} {
		if got := valueKindOf(c.value); got != c.want {
			t.Errorf("valueKindOf(%q) = %q, want %q", c.value, got, c.want)
		}
	}
}
