package evidence

import (
	"github.com/toolstream/toolstream/internal/lang"
	"slices"
	"testing"
	"time"
)

func TestScanTimes(t *testing.T) {
	// Friday 3 May 2024, 10:00 in Shanghai.
	now := time.Date(2024, 5, 3, 10, 0, 0, 0, time.FixedZone("CST", 8*3600))
	d := func(m time.Month, day int) int32 { return DayNumber(2024, m, day) }
	ago := func(m time.Month, day int) int32 { return DayNumber(2023, m, day) } // a date with no year may be last year's too
	tests := []struct {
		text  string
		days  []int32
		bound Cue
	}{
		{"arrives tomorrow", []int32{d(5, 4)}, 0},
		{"明天送达", []int32{d(5, 4)}, 0},
		{"后天", []int32{d(5, 5)}, 0},
		{"大后天", []int32{d(5, 6)}, 0},
		{"昨天下午发货", []int32{d(5, 2)}, 0},
		{"the day after tomorrow", []int32{d(5, 5)}, 0},
		{"on 2024-05-06", []int32{d(5, 6)}, 0},
		{"on May 10", []int32{d(5, 10), ago(5, 10)}, 0},
		{"on April 30", []int32{d(4, 30), DayNumber(2025, 4, 30)}, 0},
		{"on October 20", []int32{d(10, 20), ago(10, 20)}, 0},
		{"on Sunday 20 October", []int32{d(10, 20)}, 0},
		{"on Friday 20 October", []int32{ago(10, 20)}, 0},
		{"10月20日周五", []int32{ago(10, 20)}, 0},
		{"on 10 May 2024", []int32{d(5, 10)}, 0},
		{"5月8日", []int32{d(5, 8), ago(5, 8)}, 0},
		{"2024年5月8号", []int32{d(5, 8)}, 0},
		{"on Sunday", []int32{d(5, 5), d(4, 28)}, 0},
		{"周日", []int32{d(5, 5), d(4, 28)}, 0},
		{"was back on Monday", []int32{d(5, 6), d(4, 29)}, 0},
		{"coming Monday", []int32{d(5, 6)}, 0},
		{"last Monday", []int32{d(4, 29), d(4, 22)}, 0},
		{"Monday of last week", []int32{d(4, 22)}, 0},
		{"Thursday next week", []int32{d(5, 9)}, 0},
		{"上周三", []int32{d(4, 24)}, 0},
		{"上个星期天", []int32{d(4, 28)}, 0},
		{"Saturday 11 May 2024", []int32{d(5, 11)}, 0},
		{"5月11日周六", []int32{d(5, 11)}, 0},
		{"上周末", []int32{d(4, 27), d(4, 28)}, 0},
		{"下周一", []int32{d(5, 6)}, 0},
		{"下周三", []int32{d(5, 8)}, 0},
		{"本周日", []int32{d(5, 5), d(5, 5)}, 0},
		{"in 3 days", []int32{d(5, 6)}, 0},
		{"3天后", []int32{d(5, 6)}, 0},
		{"by Friday", []int32{d(5, 3), d(5, 10), d(4, 26)}, CueLE},
		{"5月8日前", []int32{d(5, 8), ago(5, 8)}, CueLE},
		{"after May 6", []int32{d(5, 6), ago(5, 6)}, CueGE},
		{"this weekend", []int32{d(5, 4), d(5, 5)}, 0},
	}
	for _, tt := range tests {
		r := lang.Normalize(tt.text)
		tes := ScanTimes(r, now, make([]bool, len(r)))
		if len(tes) != 1 {
			t.Errorf("scanTimes(%q) = %+v, want one expression", tt.text, tes)
			continue
		}
		if !slices.Equal(tes[0].Days, tt.days) || tes[0].Bound != tt.bound {
			t.Errorf("scanTimes(%q) days %v bound %d; want %v bound %d", tt.text, tes[0].Days, tes[0].Bound, tt.days, tt.bound)
		}
	}
}

func TestScanClock(t *testing.T) {
	now := time.Date(2024, 5, 3, 10, 0, 0, 0, time.UTC)
	for text, want := range map[string]int{"at 7:30 pm": 19*60 + 30, "by 6 pm": 18 * 60, "11:29 到达": 11*60 + 29, "下午3点半": 15*60 + 30} {
		r := lang.Normalize(text)
		tes := ScanTimes(r, now, make([]bool, len(r)))
		if len(tes) != 1 || tes[0].Clock != want {
			t.Errorf("scanTimes(%q) = %+v, want clock %d", text, tes, want)
		}
	}
}

func TestParseEvidenceDate(t *testing.T) {
	tests := []struct {
		s      string
		day    int32
		minute int16
	}{
		{"2024-05-04", DayNumber(2024, 5, 4), -1},
		{"2024-05-07T15:35:00+08:00", DayNumber(2024, 5, 7), 15*60 + 35},
		{"2024-05-06T11:05:00-07:00", DayNumber(2024, 5, 6), 11*60 + 5},
		{"2024-05-02 09:15:00", DayNumber(2024, 5, 2), 9*60 + 15},
		{"2024/05/04", DayNumber(2024, 5, 4), -1},
		{"2024年5月4日", DayNumber(2024, 5, 4), -1},
	}
	for _, tt := range tests {
		d, m, ok := ParseEvidenceDate(tt.s)
		if !ok || d != tt.day || m != tt.minute {
			t.Errorf("parseEvidenceDate(%q) = %d, %d, %v; want %d, %d", tt.s, d, m, ok, tt.day, tt.minute)
		}
	}
	for _, s := range []string{"shipped", "12", "A-1001", "Q1 2024"} {
		if _, _, ok := ParseEvidenceDate(s); ok {
			t.Errorf("parseEvidenceDate(%q) parsed", s)
		}
	}
}
