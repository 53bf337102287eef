package memory

import (
	"testing"
	"time"
)

// TestASurnameIsSlottedForWhoseItIs: 姓X gives the user's surname (我姓X,
// 我其实姓X) or the surname of the person the clause names before it (a
// kin, or whoever is said after the last 的); a pronoun alone, a question
// or a denial gives none.
func TestASurnameIsSlottedForWhoseItIs(t *testing.T) {
	for _, c := range []struct{ text, slot, value string }{ // slot "" = none
		{"我姓孟。", "identity/surname", "孟"},
		{"我其实姓司马。", "identity/surname", "司马"},
		{"我外婆姓龚。", "外婆/surname", "龚"},
		{"给我修水管的那位师傅姓单。", "师傅/surname", "单"},
		{"他姓龚。", "", ""},
		{"你姓什么？", "", ""},
		{"我不姓孟。", "", ""},
	} {
		t.Run(c.text, func(t *testing.T) {
			var got []string
			found := false
			for _, o := range (RuleExtractor{}).ExtractAt(c.text, "", time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC).UnixNano()) {
				got = append(got, o.Subject+"/"+o.Attribute+"="+o.Value)
				if o.Attribute == "surname" {
					found = o.Subject+"/"+o.Attribute == c.slot && o.Value == c.value
					if c.slot == "" {
						t.Errorf("%q: a surname %s/%s=%s", c.text, o.Subject, o.Attribute, o.Value)
					}
				}
			}
			if c.slot != "" && !found {
				t.Errorf("%q: got %v, want %s=%s", c.text, got, c.slot, c.value)
			}
		})
	}
}

// TestASurnameOrHometownCorrectedSupersedes: a surname or a home town
// corrected with what it is not (姓X，不是Y; "actually …, not …") ends the
// statement it corrects, the user's or another person's, with both audit
// links; a kin's surname ends nothing of the user's.
func TestASurnameOrHometownCorrectedSupersedes(t *testing.T) {
	at := time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct{ name, first, second, want string }{
		{"zh-own-surname", "我姓孟。", "抱歉，我其实姓蒙，不是姓孟。", "蒙"},
		{"zh-someones-surname", "上次来量房的那个设计师姓龚。", "不对，是我记错了，她姓宫，不是龚。", "宫"},
		{"zh-hometown", "我老家是湖州的。", "我老家其实是衢州的，不是湖州。", "衢州"},
		{"en-surname", "My surname is Adeyemi.", "Sorry, my surname is actually Adeyemo, not Adeyemi.", "Adeyemo"},
		{"en-originally-from", "I'm originally from Dundee.", "Actually I'm from Perth, not Dundee.", "Perth"},
	} {
		t.Run(c.name, func(t *testing.T) { supersedes(t, c.first, c.second, at, c.want) })
	}
	t.Run("zh-kin-surname", func(t *testing.T) { keepsBoth(t, "我姓孟。", "我外婆姓龚。", at, true) })
}

// TestATradeSaidWithShiZuoDeIsTheUsersRole: 我是做X的 (干, 搞) says the
// user's trade, work/role = X; a kin's trade said so, or 是做 before a
// time (做饭的时候), is none of the user's.
func TestATradeSaidWithShiZuoDeIsTheUsersRole(t *testing.T) {
	for _, c := range []struct{ text, want string }{ // want "" = no role
		{"我是做物流的，经常出差。", "物流"},
		{"我是搞园林设计的。", "园林设计"},
		{"我舅舅是做物流的。", ""},
		{"我是做饭的时候想起来的。", ""},
	} {
		got := ""
		for _, o := range (RuleExtractor{}).ExtractAt(c.text, "", time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC).UnixNano()) {
			if o.Subject == "work" && o.Attribute == "role" {
				got = o.Value
			}
		}
		if got != c.want {
			t.Errorf("%q: work/role %q, want %q", c.text, got, c.want)
		}
	}
}
