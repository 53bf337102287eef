package memory

import (
	"testing"
	"time"
)

// TestALiftInItsOwnFrameEndsTheBan: a lift said in a frame of its own
// rather than "I can … again" ends the ban of its thing: "allowed X
// again", "back on X", "cleared for X", "no need to avoid X any more";
// X解禁了, 恢复X了, a thing put first that the user may go on doing (X我可以
// 继续V了). The frames are data (extract_en_phrases.txt permit, data/words.txt
// [zh words] fine and resume, [zh patterns] 恢复); a frame of a thing no
// ban names ends nothing.
func TestALiftInItsOwnFrameEndsTheBan(t *testing.T) {
	at := time.Date(2026, 4, 6, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		ban, lift string
		lifts     bool
	}{
		{"I'm not supposed to drink espresso right now.", "The scan was fine, I'm allowed espresso again.", true},
		{"I have to avoid peanuts at the moment.", "No need to avoid peanuts any more, the allergist says so.", true},
		{"I can't eat chocolate for a while.", "I'm back on chocolate since Easter.", true},
		{"I have to avoid peanuts at the moment.", "I'm back on the early shift.", false},
		{"这几天我不能喝奶茶。", "奶茶解禁了！", true},
		{"这阵子别让我浇花。", "手好了，花我可以继续浇了。", true},
		{"这几天我不能喝奶茶。", "花我可以继续浇了。", false},
		{"这两周别约我去打羽毛球。", "我恢复打羽毛球了。", true},
	} {
		t.Run(c.lift, func(t *testing.T) { checkLift(t, c.ban, c.lift, c.lifts, at) })
	}
}
