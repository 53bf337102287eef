package memory

import (
	"testing"
	"time"
)

// TestAChineseHabitDoneWithSomeoneIsTheActivity: a habit said with whom it
// is done (跟老同学, 和几个朋友一起) is the habit of the activity, so that
// a new day said of the activity alone (…改到周日下午了) supersedes it;
// the company is no part of the slot, and a habit said without one is read
// as before.
func TestAChineseHabitDoneWithSomeoneIsTheActivity(t *testing.T) {
	at := time.Date(2026, 3, 2, 20, 0, 0, 0, time.UTC)
	for _, c := range []struct{ name, first, second, want string }{
		{"with-old-classmates", "我每周四晚上跟老同学下围棋。", "围棋改到周六上午了。", "周六"},
		{"with-friends-together", "我每周日下午和几个朋友一起踢足球。", "足球现在改到周六晚上了。", "周六"},
	} {
		t.Run(c.name, func(t *testing.T) { supersedes(t, c.first, c.second, at, c.want) })
	}
	for _, c := range []struct{ text, slot string }{
		{"我每天晚上陪我妈散步。", "散步"},
		{"我每周二跟同事打乒乓球。", "打乒乓球"},
		{"我每天早上跑步。", "跑步"},
	} {
		found := false
		var got []string
		for _, o := range (RuleExtractor{}).ExtractAt(c.text, "", at.UnixNano()) {
			got = append(got, o.Subject+"/"+o.Attribute)
			found = found || o.Subject == plainHabit && o.Attribute == c.slot
		}
		if !found {
			t.Errorf("%q: read %v, want %s/%s", c.text, got, plainHabit, c.slot)
		}
	}
}
