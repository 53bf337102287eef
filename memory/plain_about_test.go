package memory

import (
	"strings"
	"testing"
	"time"
)

// plainSlots is what the extractor slots of text, as subject/attribute=value.
func plainSlots(text string) []string {
	var got []string
	for _, o := range (RuleExtractor{}).ExtractAt(text, "", time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC).UnixNano()) {
		if o.Subject != "" {
			got = append(got, o.Subject+"/"+o.Attribute+"="+o.Value)
		}
	}
	return got
}

// TestAStatementOfSomeoneElsesIsNotTheUsers: what a relative, a friend or
// a colleague does or has is theirs, said by the user; it is no habit, fact
// or thing of the user's (plain.go: othersOf in English, the kin of
// data/words.txt after 我 in Chinese).
func TestAStatementOfSomeoneElsesIsNotTheUsers(t *testing.T) {
	for _, text := range []string{
		"My sister's flat has 3 bedrooms.",
		"My neighbour's dog barks at the postman.",
		"我妈每天早上跑步三公里。",
		"我同事每天喝三杯咖啡。",
		"我女儿每周六上午学钢琴。",
		"我家孩子每天晚上练琴一小时。",
		"我的同事每周五都去游泳。",
	} {
		if got := plainSlots(text); len(got) > 0 {
			t.Errorf("%q: someone else's, want nothing slotted as the user's, got %v", text, got)
		}
	}
	// the user's own, beside the same words
	for _, c := range []struct{ text, slot string }{
		{"我每天早上跑步三公里。", "habit/跑步="},
		{"My flat has 3 bedrooms.", "my/flat="},
	} {
		if got := plainSlots(c.text); !strings.HasPrefix(strings.Join(got, "|"), c.slot) {
			t.Errorf("%q: want %s…, got %v", c.text, c.slot, got)
		}
	}
}

// TestATimeSaidAfterAThingIsOfItsValue: 我的车险下个月到期 is the thing
// 车险 and what is said of it, 下个月到期; a time word (data/statements.txt
// [plain] zh_when) never makes part of a thing's name.
func TestATimeSaidAfterAThingIsOfItsValue(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"我的车险下个月到期。", "my/车险=下个月到期"},
		{"我的信用卡下周还款。", "my/信用卡=下周还款"},
		{"我的年卡明年到期。", "my/年卡=明年到期"},
		{"我的会员卡月底过期。", "my/会员卡=月底过期"},
		{"我的车险每年交4200元。", "my/车险=每年交4200元"},
	} {
		if got := plainSlots(c.text); len(got) != 1 || got[0] != c.want {
			t.Errorf("%q: want [%s], got %v", c.text, c.want, got)
		}
	}
}
