package memory

import (
	"strings"
	"testing"
	"time"
)

// TestAHabitIsSlottedWithItsCountAndClock: a habit said with a count or a
// clock time before its thing (泡一壶菊花茶, 十一点睡觉) or as so many times
// a period (一个月染一次头发) is a habit of the verb and the thing; what
// happened once, or a kin's habit, is none.
func TestAHabitIsSlottedWithItsCountAndClock(t *testing.T) {
	for _, c := range []struct {
		text, attr, want string // attr "" = no habit slotted
	}{
		{"我每天下午冲一杯挂耳咖啡。", "冲挂耳咖啡", "挂耳"},
		{"我每天晚上十点半洗澡。", "洗澡", "十点半"},
		{"我每周六早上七点钟遛狗。", "遛狗", "七点钟"},
		{"我两周去一趟宜家。", "去宜家", "两周"},
		{"我一年回三次老家。", "回老家", "三次"},
		{"我每天早上跳绳一千下。", "跳绳", "一千下"},
		{"我一个月前去了一次宜家。", "", ""},
		{"我儿子每天晚上九点睡觉。", "", ""},
	} {
		t.Run(c.text, func(t *testing.T) {
			var got []string
			found := false
			for _, o := range (RuleExtractor{}).ExtractAt(c.text, "", time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC).UnixNano()) {
				got = append(got, o.Subject+"/"+o.Attribute+"="+o.Value)
				if o.Subject == plainHabit {
					found = o.Attribute == c.attr && strings.Contains(o.Value, c.want)
					if c.attr == "" {
						t.Errorf("%q: a habit %s/%s", c.text, o.Subject, o.Attribute)
					}
				}
			}
			if c.attr != "" && !found {
				t.Errorf("%q: got %v, want habit/%s holding %q", c.text, got, c.attr, c.want)
			}
		})
	}
}

// TestAHabitChangedInNewWordsSupersedes: a habit said again with a new
// schedule or thing, in words other than its slot's (改成, "make it"), ends
// the old one with both audit links; a new schedule that names no thing
// ends the user's newest habit said with how often; a kin's habit, or a
// habit of another thing said plainly, ends nothing.
func TestAHabitChangedInNewWordsSupersedes(t *testing.T) {
	at := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, first, second string
		want                string // a word the new value holds
	}{
		{"zh-counted-thing", "我每天下午冲一杯挂耳咖啡。", "最近改成喝红茶了，挂耳咖啡太苦。", "红茶"},
		{"zh-times-per-period", "我一个月去一次宜家。", "现在改成两个月去一次了，宜家太远。", "两个月"},
		{"zh-schedule-names-nothing", "我两周去一趟宜家。", "现在改成每周都去逛一圈了。", "每周"},
		{"zh-reported-change", "我每个月15号还信用卡。", "银行说以后改成每月20号还信用卡了。", "20号"},
		{"en-only-how-often", "I mow the lawn every Saturday.", "Lately I only mow the lawn once a fortnight.", "fortnight"},
		{"en-verb-with-when", "I practise for half an hour after dinner.", "I've started practising for two hours after dinner.", "two hours"},
		{"en-split-change", "I swim on Tuesdays and Fridays.", "I've cut swimming back to once a week.", "once a week"},
		// a new day or time that names no thing, or names it in other words
		{"zh-day-names-nothing", "我每周二下午去练瑜伽。", "现在改到周五了。", "周五"},
		{"zh-day-and-time", "我每周三晚上去打羽毛球。", "现在改成周六下午了。", "周六下午"},
		{"en-moved-to-a-day", "I swim on Tuesdays and Fridays.", "I've moved my swims to Saturdays.", "Saturdays"},
		{"en-shifted-it", "I walk the dog at 7 every evening.", "I've shifted it to the mornings.", "mornings"},
		// an adverb inside the new schedule, a habit said with "go" or "do"
		{"en-down-to-just", "I play tennis every Sunday.", "I'm down to playing tennis just once a month now.", "once a month"},
		{"en-go-doing", "I go bouldering twice a week.", "I'm down to bouldering once a month now.", "once a month"},
		{"en-do-my", "I do my ironing on Sunday evenings.", "I've moved my ironing to Wednesday nights.", "Wednesday"},
	} {
		t.Run(c.name, func(t *testing.T) { supersedes(t, c.first, c.second, at, c.want) })
	}
	// "back to work" restates nothing: m2 is an episode, m1 stays
	if e, s := sayTwo(t, "I practise for half an hour after dinner.", "I'm back to work next week.", at); getRecord(t, e, s, "m1").Status != StatusActive {
		t.Errorf("\"I'm back to work next week\" ended %+v", getRecord(t, e, s, "m1"))
	}
	for _, c := range []struct{ name, first, second string }{
		{"zh-kin-habit", "我每天晚上十点半洗澡。", "我女儿每天晚上八点洗澡。"},
		{"zh-two-habits", "我每天下午冲一杯挂耳咖啡。", "我每周六早上七点钟遛狗。"},
		{"en-kin-habit", "I swim on Tuesdays and Fridays.", "My brother swims on Sundays."},

		{"en-two-habits", "I mow the lawn every Saturday.", "I practise for half an hour after dinner."},
		// moved to a place, not to a day or time: no new schedule
		{"en-moved-to-a-place", "I swim on Tuesdays and Fridays.", "I moved my car to the garage."},
		{"zh-moved-to-a-place", "我每周三晚上去打羽毛球。", "我把车停到地下车库了。"},
		// a new day said after a fact that says no day or time
		{"zh-day-after-no-schedule", "我的帐篷是牧高笛的。", "现在改到周五了。"},
	} {
		t.Run(c.name, func(t *testing.T) { keepsBoth(t, c.first, c.second, at, false) })
	}
}

// keepsBoth says first and then second (sayTwo) and fails unless first is
// slotted and still active, and (slotted) second is slotted too.
func keepsBoth(t *testing.T, first, second string, at time.Time, slotted bool) {
	t.Helper()
	e, s := sayTwo(t, first, second, at)
	old, nu := getRecord(t, e, s, "m1"), getRecord(t, e, s, "m2")
	if !old.Slotted() || slotted && !nu.Slotted() || old.Status != StatusActive {
		t.Errorf("want both slotted and %q active: %s/%s=%q %s | %s/%s=%q %s", first, old.Subject, old.Attribute, old.Value,
			old.Status, nu.Subject, nu.Attribute, nu.Value, nu.Status)
	}
}

// TestALikingSaidAfterWhenIsAPreference: a liking said after when it is
// done (我周末喜欢…, 我每天晚上喜欢…) is a preference of the thing liked, as
// 我喜欢… is; a ban said after when keeps its when, and reads no liking.
func TestALikingSaidAfterWhenIsAPreference(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"我周末喜欢去钓鱼。", "钓鱼"},
		{"我每天晚上喜欢泡脚。", "泡脚"},
		{"我平时喜欢听评书。", "评书"},
	} {
		var got []string
		found := false
		for _, o := range (RuleExtractor{}).ExtractAt(c.text, "", time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC).UnixNano()) {
			got = append(got, o.Kind+" "+o.Subject+"/"+o.Attribute)
			found = found || o.Kind == string(KindPreference) && o.Polarity == string(Positive) && strings.Contains(o.Attribute, c.want)
		}
		if !found {
			t.Errorf("%q: got %v, want a positive preference of %s", c.text, got, c.want)
		}
	}
	for _, o := range (RuleExtractor{}).ExtractAt("我周末不能喝酒。", "", time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC).UnixNano()) {
		if o.Kind == string(KindPreference) {
			t.Errorf("a ban said after when read as a liking: %+v", o)
		}
	}
}
