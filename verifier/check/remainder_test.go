package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestWhatIsLeftIsTheWholeLessWhatIsTaken: a number said to be what is
// left of a whole ("six seats left", "two places remain", 还剩…) is the
// difference of the whole and what is taken, never contradicted by the
// whole's own value; a field that holds what is left decides as any value.
func TestWhatIsLeftIsTheWholeLessWhatIsTaken(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	tours := `{"tours": [{"tour": "Harbour Lights", "seats": 48, "booked": 41}, {"tour": "Old Mill Walk", "seats": 20, "booked": 20}]}`
	shows := `{"场次": [{"名称": "早场", "座位": 60, "已售": 52}, {"名称": "晚场", "座位": 80, "已售": 30}]}`
	workshops := `{"workshops": [{"title": "Intro to Pottery", "places": 12, "taken": 9}]}`
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{tours, "Harbour Lights has seven seats left.", events.VerdictSupported},
		{tours, "Harbour Lights has 7 seats remaining.", events.VerdictSupported},
		{workshops, "Intro to Pottery has three places left.", events.VerdictSupported},
		{workshops, "Intro to Pottery has three spare places.", events.VerdictSupported},
		{shows, "早场还剩8个座位。", events.VerdictSupported},
		{shows, "早场剩余座位8个。", events.VerdictSupported},
		// not the difference: no two fields give it, so unsupported, not
		// contradicted by the whole
		{tours, "Harbour Lights has nine seats left.", events.VerdictUnsupported},
		{shows, "早场还剩10个座位。", events.VerdictUnsupported},
		// a field that holds what is left decides
		{`{"tours": [{"tour": "Harbour Lights", "seats": 48, "seats_left": 7}]}`, "Harbour Lights has nine seats left.", events.VerdictContradicted},
		// a whole stated as such is still its field's value
		{tours, "Harbour Lights has 50 seats.", events.VerdictContradicted},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
