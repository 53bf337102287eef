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

// TestAnAmountAThingHasIsItsProperty: "my laptop has 16 GB of memory" is
// the laptop's memory (my/laptop memory = 16 GB), a property of the laptop
// beside what the laptop is, which it does not supersede; a newer amount of
// the same property does. A measured thing had ("a 7 kW wall charger") is
// still that thing.
func TestAnAmountAThingHasIsItsProperty(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"My laptop has 16 GB of memory.", "my/laptop memory=16 GB"},
		{"Our van has 3 cubic metres of cargo space.", "my/van cargo space=3 cubic metres"},
		{"Our garage has a 7 kW wall charger.", "my/wall charger=7 kW"},
		{"我的笔记本电脑有16G内存。", "my/笔记本电脑内存=16G"},
		{"我家的房子有三间卧室。", "my/房子卧室=三间"},
		{"我的平板有128G存储空间。", "my/平板存储空间=128G"},
	} {
		if got := plainSlots(c.text); len(got) != 1 || got[0] != c.want {
			t.Errorf("%q: want [%s], got %v", c.text, c.want, got)
		}
	}
	at := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, first, second string
		supersedes          bool
	}{
		{"en-what-then-amount", "My laptop is a ThinkPad.", "My laptop has 16 GB of memory.", false},
		{"zh-what-then-amount", "我的笔记本电脑是ThinkPad。", "我的笔记本电脑有16G内存。", false},
		{"en-newer-amount", "My laptop has 16 GB of memory.", "My laptop has 32 GB of memory.", true},
		{"zh-newer-amount", "我的笔记本电脑有16G内存。", "我的笔记本电脑有32G内存。", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, s := sayTwo(t, c.first, c.second, at)
			old, nu := getRecord(t, e, s, "m1"), getRecord(t, e, s, "m2")
			if !old.Slotted() || !nu.Slotted() {
				t.Fatalf("want both slotted: %+v, %+v", old, nu)
			}
			if got := old.Status == StatusSuperseded && old.SupersededBy == nu.Ref(); got != c.supersedes {
				t.Errorf("%s/%s=%q then %s/%s=%q: superseded %v, want %v", old.Subject, old.Attribute, old.Value,
					nu.Subject, nu.Attribute, nu.Value, got, c.supersedes)
			}
		})
	}
}

// TestAnIdentityDocumentIsAThingItsNumberASecret: a passport, a licence or
// an ID card is a thing of the user's, whose expiry or whereabouts memory
// keeps ("my passport expires in August 2029"); its number is a secret, as
// a contact detail is, and is never slotted (data/words.txt document).
func TestAnIdentityDocumentIsAThingItsNumberASecret(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"My passport expires in August 2029.", "my/passport=expires in August 2029"},
		{"My driving licence runs out in March 2030.", "my/driving licence=runs out in March 2030"},
		{"我的护照明年三月到期。", "my/护照=明年三月到期"},
		{"我的身份证明年到期。", "my/身份证=明年到期"},
		// the numbers: secrets
		{"My passport number is 512345678.", ""},
		{"My licence number is DX99 7781.", ""},
		{"我的护照号码是E12345678。", ""},
		{"我的身份证号是110101199001011234。", ""},
		{"My phone number is 07700 900123.", ""},
		// a bare code said of a document is its number, said without the word
		{"My passport is 533380006.", ""},
		{"My driving licence is DX99 7781 JK.", ""},
		{"My visa is H1B-4471-2290.", ""},
		{"我的身份证是110101199003071234。", ""},
		{"我的护照是E12345678。", ""},
		// what is said of one in words is a fact, numbers and all
		{"My passport runs out on 12 May 2031.", "my/passport=runs out on 12 May 2031"},
		{"我的驾照2030年到期。", "my/驾照=2030年到期"},
	} {
		got := plainSlots(c.text)
		if c.want == "" && len(got) > 0 || c.want != "" && (len(got) != 1 || got[0] != c.want) {
			t.Errorf("%q: want [%s], got %v", c.text, c.want, got)
		}
	}
}

// TestARequestToLeaveTheUserOutIsSlottedByItsThing: 这阵子露营先别算我
// asks to be left out of camping; its slot is the thing with the verb
// (request/算我露营), not the verb alone, so leaving the user out of
// another thing is another request and supersedes nothing; a time said
// before the verb names no thing (data/statements.txt [requests] addressee).
func TestARequestToLeaveTheUserOutIsSlottedByItsThing(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"这阵子露营先别算我。", "request/算我露营"},
		{"唱K先别算我。", "request/算我唱K"},
		{"年会的节目就别算上我了。", "request/算上我年会的节目"},
		{"这周先别算我。", "request/算我"},
		{"下个月的聚餐先别算我。", "request/算我下个月的聚餐"},
		{"下个月先别叫我。", "request/叫我"},
	} {
		got := plainSlots(c.text)
		if len(got) != 1 || !strings.HasPrefix(got[0], c.want+"=") {
			t.Errorf("%q: want [%s=…], got %v", c.text, c.want, got)
		}
	}
	at := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)
	e, s := sayTwo(t, "我腿上刚缝了针，这阵子露营先别算我。", "唱K先别算我，嗓子还没好。", at)
	if old := getRecord(t, e, s, "m1"); !old.Slotted() || old.Status != StatusActive {
		t.Errorf("leaving the user out of camping, then of karaoke: want both in force, first is %s/%s %s",
			old.Subject, old.Attribute, old.Status)
	}
}

// TestANumberKeepsItsThousands: "120,000 miles" is one number, not 120
// and a clause after a comma (extract.go words, isNumber).
func TestANumberKeepsItsThousands(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"My car has 120,000 miles on it.", "my/car=120,000 miles on it"},
		{"Our van has 3,500 kg of payload.", "my/van payload=3,500 kg"},
		{"My season ticket costs 1,250 pounds a year.", "my/season ticket=costs 1,250 pounds a year"},
	} {
		if got := plainSlots(c.text); len(got) != 1 || got[0] != c.want {
			t.Errorf("%q: want [%s], got %v", c.text, c.want, got)
		}
	}
}
