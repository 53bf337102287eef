package memory

import (
	"strings"
	"testing"
	"time"
)

// TestAChineseHabitGivenANewScheduleSupersedes: a Chinese habit given a new
// day, time or frequency — said with 改成, or moved (挪到, 推到) — ends the
// old one in its slot with both audit links, as English habits are, even
// where the new schedule names no thing (改成隔天) or 改成 is followed by
// how often rather than by a thing; a switch to a thing stays a switch.
func TestAChineseHabitGivenANewScheduleSupersedes(t *testing.T) {
	at := time.Date(2026, 4, 1, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, first, second string
		want                string // a word the new value holds
	}{
		{"frequency-after-gaicheng", "我每周滑一次冰。", "我现在改成每周滑三次了。", "三次"},
		{"every-other-day", "我每天遛狗。", "不再每天遛了，改成隔天。", "隔天"},
		{"moved-to-a-day", "我每周二晚上去上书法课。", "书法课挪到周六下午了。", "周六"},
		{"pushed-to-a-day", "我每周一上午去做理疗。", "理疗推到周三了。", "周三"},
		{"morning-and-evening", "我每天晚上拉一遍筋。", "现在改成早晚各拉一遍了。", "早晚"},
		{"numeral-opens-the-thing", "我每天中午打一遍五禽戏。", "现在改成一天两遍了。", "两遍"},
		{"kin-first-user-changes", "我每周日下午去看爷爷。", "爷爷搬到城里了，我改成每周三晚上去看他。", "周三"},
		{"switch-to-a-thing", "我每天早上喝牛奶。", "我现在改成燕麦奶了。", "oat"},
	} {
		t.Run(c.name, func(t *testing.T) { supersedes(t, c.first, c.second, at, c.want) })
	}
	for _, c := range []struct{ name, first, second string }{
		// a kin's new schedule, or a move of a thing the user never said
		{"kin-moved", "我每周二晚上去上书法课。", "我儿子的钢琴课挪到周六了。"},
		{"another-thing-moved", "我每周一上午去做理疗。", "快递挪到明天送了。"},
		{"en-kin-moved", "I swim on Tuesdays and Fridays.", "My son has moved his swims to Saturdays."},
	} {
		t.Run(c.name, func(t *testing.T) { keepsBoth(t, c.first, c.second, at, false) })
	}
}

// TestAClockTimeStaysWhole: a clock time is one value, never cut at its
// colon or its hour ("6:45" is not "6"; 六点半起床 is a habit of 起床).
func TestAClockTimeStaysWhole(t *testing.T) {
	for _, c := range []struct{ text, attr, want string }{
		{"I wake up at 6:45 every day.", "", "6:45"},
		{"我每天早上6:40起床。", "起床", "6:40"},
		{"我每天早上五点半起床。", "起床", "五点半"},
		{"我每周四晚上8:15去打乒乓球。", "", "8:15"},
	} {
		t.Run(c.text, func(t *testing.T) {
			var got []string
			found := false
			for _, o := range (RuleExtractor{}).ExtractAt(c.text, "", time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC).UnixNano()) {
				got = append(got, o.Subject+"/"+o.Attribute+"="+o.Value)
				found = found || strings.Contains(o.Value, c.want) && (c.attr == "" || o.Attribute == c.attr)
			}
			if !found {
				t.Errorf("%q: got %v, want a value holding %q (attribute %q)", c.text, got, c.want, c.attr)
			}
		})
	}
	// the words of a clock time split as one: "6:45", never "6" and "45"
	for _, c := range []struct{ text, want string }{{"up at 6:45 today", "6:45"}, {"at 10:05", "10:05"}, {"Note: tea", "note"}} {
		found := false
		for _, w := range words(c.text) {
			found = found || w.low == c.want
		}
		if !found {
			t.Errorf("words(%q) = %v, want %q one word", c.text, words(c.text), c.want)
		}
	}
}

// TestAMomentsMistakeIsNoFact: "I misread X" tells of a slip at one moment,
// an episode; it is no fact about the user.
func TestAMomentsMistakeIsNoFact(t *testing.T) {
	for _, text := range []string{"I misread the boarding pass.", "I misheard the room number.", "I mistook the date of the dinner."} {
		for _, o := range (RuleExtractor{}).ExtractAt(text, "", time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC).UnixNano()) {
			t.Errorf("%q: read as %s %s/%s=%q, want nothing (an episode)", text, o.Kind, o.Subject, o.Attribute, o.Value)
		}
	}
}
