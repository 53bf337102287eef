package memory

import (
	"testing"
	"time"
)

// TestARestatementMustShareTheThingNotTheVerb: a restatement replaces a
// slot it is about, the same thing and attribute; one that shares only the
// verb of what the user does ("playing" after "I play chess") ends
// nothing, and a measure said by a verb of its property ("weighs") is that
// property's own slot, so it leaves what the thing is in force. One that
// names the thing does end it, in either language.
func TestARestatementMustShareTheThingNotTheVerb(t *testing.T) {
	at := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, first, second string
		ends                bool
	}{
		{"en-verb-only", "I just started playing badminton to stay fit.", "I'm playing mostly at the weekend for now.", false},
		{"en-verb-only-schedule", "I play the oboe in an amateur orchestra.", "Now I'm playing three evenings a week.", false},
		{"en-property-verb", "My rucksack is a Deuter.", "My rucksack weighs 1.6 kg.", false},
		{"en-same-thing", "My climbing gym membership is 55 dollars a month.", "Call it 48 a month for the climbing gym from now on.", true},
		{"zh-property", "我的行李箱是新秀丽的。", "我的行李箱重三公斤。", false},
		{"zh-same-thing", "我的健身卡每月四百块。", "健身卡现在改成每月三百五了。", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, s := sayTwo(t, c.first, c.second, at)
			old, nu := getRecord(t, e, s, "m1"), getRecord(t, e, s, "m2")
			if !old.Slotted() {
				t.Fatalf("want %q slotted, got %s", c.first, old.Kind)
			}
			ended := old.Status == StatusSuperseded && old.SupersededBy == nu.Ref()
			if ended != c.ends {
				t.Errorf("%q (%s/%s=%q) after %q (%s/%s=%q): superseded %v, want %v", c.second, nu.Subject, nu.Attribute, nu.Value,
					c.first, old.Subject, old.Attribute, old.Value, ended, c.ends)
			}
		})
	}
}
