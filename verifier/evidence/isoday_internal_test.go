package evidence

import (
	"testing"
	"time"
)

// TestIsoDayAgreesWithParse: isoDay reads a date exactly when time.Parse
// reads it with "2006-01-02", and gives the same day; a value it refuses
// is left to ParseEvidenceDate's layouts, which give what they gave before.
func TestIsoDayAgreesWithParse(t *testing.T) {
	for _, s := range []string{
		"2024-05-04", "2024-02-29", "2023-02-29", "2024-04-31", "2024-12-31", "0000-01-01",
		"2024-00-10", "2024-13-01", "2024-01-00", "2024-01-32", "2024-1-04", "2024/01/04",
		"2024-01-0a", "+024-01-04", "2024-01-04T10:00", "20240104xx",
	} {
		tm, err := time.Parse("2006-01-02", s)
		got, ok := isoDay(s)
		if ok != (err == nil) {
			t.Errorf("isoDay(%q) ok=%v, time.Parse err=%v", s, ok, err)
			continue
		}
		if ok && got != DayOf(tm) {
			t.Errorf("isoDay(%q) = %d, want %d", s, got, DayOf(tm))
		}
		day, minute, pok := ParseEvidenceDate(s)
		if ok && (!pok || day != got || minute != -1) {
			t.Errorf("ParseEvidenceDate(%q) = %d, %d, %v; want %d, -1, true", s, day, minute, pok, got)
		}
	}
}
