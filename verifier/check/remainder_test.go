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
	loans := `{"loans": [{"loan": "L-1", "borrower": "Ruth Pike", "amount_pence": 120000, "repaid_pence": 45000}]}`
	plots := `{"site": "Moor Lane", "plots_total": 64, "plots_let": 58}`
	cards := `{"会员": [{"姓名": "王芳", "次卡": 30, "已用": 22}]}`
	quota := `{"流量": {"月度限额_mb": 20480, "已用_mb": 15360}}`
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
		{loans, "£750 is still owed on Ruth Pike's loan.", events.VerdictSupported},
		{workshops, "Intro to Pottery has 3 places to spare.", events.VerdictSupported},
		{plots, "Six plots are still unlet.", events.VerdictSupported},
		{cards, "王芳的次卡还剩8次。", events.VerdictSupported},
		{quota, "还剩5120MB流量。", events.VerdictSupported},
		// not the difference: no two fields give it, so unsupported, not
		// contradicted by the whole
		{tours, "Harbour Lights has nine seats left.", events.VerdictUnsupported},
		{shows, "早场还剩10个座位。", events.VerdictUnsupported},
		{loans, "£950 is still owed on Ruth Pike's loan.", events.VerdictUnsupported},
		// before the number, "owed" names the amount's own field
		{`{"acts": [{"name": "Jo Vale", "fee_pence": 7500, "paid": false}]}`, "Jo Vale is owed £95.", events.VerdictContradicted},
		{plots, "Nine plots are still unlet.", events.VerdictUnsupported},
		{cards, "王芳的次卡还剩10次。", events.VerdictUnsupported},
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
