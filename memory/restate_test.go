package memory

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestANewerValueInOtherWordsSupersedes: a statement that says it replaces
// something (a change cue) and names no slot the extractor reads takes the
// slot of the user's statement it shares words with, and supersedes it with
// both audit links; one that shares nothing with what the user said, or
// says no change, slots nothing and ends nothing.
func TestANewerValueInOtherWordsSupersedes(t *testing.T) {
	at := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, first, second string
		want                string // a word the new value holds
		notWant             string // a word it must not hold
	}{
		{"en-number", "My gym membership is 45 pounds a month.",
			"They put prices up, so make it 52 pounds for the gym going forward.", "52", "45"},
		{"en-lead", "My morning drink is a flat white with oat milk.",
			"The doctor switched me to rooibos in the mornings instead.", "rooibos", "flat"},
		{"en-correction", "My locker number is 31.",
			"Correction about the locker: it's 13, I had the digits backwards.", "13", "31"},
		// the slot's word inside another word names nothing
		{"en-inside-a-word", "My locker number is 31.",
			"Correction from Mr Blocker's desk: the locker is 13, I had the digits backwards.", "13", "31"},
		{"zh-lead", "我上班通勤用的是共享单车。",
			"公司搬远了，现在上班通勤坐的是地铁四号线。", "地铁", "单车"},
		{"zh-is", "我的房租是每月三千二。",
			"房东涨价了，房租现在是每月三千五。", "三千五", "三千二"},
		// read as a cap of the same thing: the slot it changes is the user's
		{"zh-other-kind", "我的房租是每月三千二。",
			"房东涨价了，房租以后改成每月三千五。", "三千五", "三千二"},
		{"en-plural", "My walking boots are 44s.",
			"Got that wrong about the boots: mine are 43s, the 44s were my old pair.", "43s", "44s"},
		{"zh-cue-apart", "我的健身教练是小王。",
			"刚才搞错了，给我上课的健身教练是小李，不是小王。", "小李", "小王"},
		// a value gone up or down to a new one
		{"en-down-to", "My drive to work is 22 miles each way.",
			"We've moved nearer the depot, so my drive to work is down to 6 miles.", "6 miles", "22"},
		{"en-up-to", "My allotment rent is 90 pounds a year.",
			"The council wrote today: the allotment rent has gone up to 120 pounds.", "120", "90"},
		// "'s" that is "has" or "is" said short, not a possessive
		{"en-is-short", "My gym membership is 45 pounds a month.",
			"Membership's gone up, so I'm paying 52 pounds a month now.", "52", "45"},
		{"zh-down-to", "我的物业费每月四百块。",
			"新物业接手了，物业费降到每月三百块。", "三百", "四百"},
		// how far home is from a place, said again after a move
		{"en-distance", "I live 600 metres from the swimming pool.",
			"We have moved house, so I live 4 km from the swimming pool now.", "4 km", "600"},
		{"zh-distance", "我家离菜市场三百米。",
			"换了房子，现在离菜市场有一公里。", "一公里", "三百"},
		{"zh-not", "我买的猫粮是渴望。",
			"说错了，猫粮其实是爱肯拿，不是渴望。", "爱肯拿", "渴望"},
		// the slot said just before its change cue (房号说错了): said of it
		{"zh-slot-said-wrong", "我的房号是1280。",
			"刚才房号说错了，应该是1208。", "1208", "1280"},
		{"zh-slot-misremembered", "我的车位号是B-37。",
			"车位号记错了，应该是B-73。", "B-73", "B-37"},
		// "A, not B" opened with the words a correction opens with ("no
		// wait", "sorry, I meant", "hang on, make that"): it names the
		// value it replaces; A may be a short phrase holding a number or a
		// name ("row 9", "bay D")
		{"en-no-wait", "My dentist appointment is on the 2nd of March.",
			"No wait - it's the 12th of March, not the 2nd.", "12th", "2nd"},
		{"en-sorry-meant", "My seat on the coach is in row 6.",
			"Sorry, I meant row 9, not row 6.", "9", "6"},
		{"en-meant-a-name", "My van is parked in bay C.",
			"Oops, I meant bay D, not bay C - they look alike.", "D", "C"},
		{"en-hang-on", "My caravan at the holiday park is on pitch 31.",
			"Hang on, make that pitch 13, not 31.", "13", "31"},
		// a new amount said in words, after a change verb with its thing
		// before its particle ("put my fee up to")
		{"en-number-words", "My monthly gym fee is $40.",
			"The gym has put my fee up to fifty-five dollars.", "fifty-five", "40"},
		{"en-number-words-and", "My rent is 1200 euros a month.",
			"The landlord put my rent up to thirteen hundred and fifty euros.", "thirteen hundred and fifty", "1200"},
		{"zh-added-to", "我每天跑三公里。", "最近加到每天五公里了。", "五公里", "三公里"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, s := sayTwo(t, c.first, c.second, at)
			old, nu := getRecord(t, e, s, "m1"), getRecord(t, e, s, "m2")
			if !old.Slotted() {
				t.Fatalf("the first statement slotted nothing: %+v", old)
			}
			if nu.Subject != old.Subject || nu.Attribute != old.Attribute || nu.Status != StatusActive ||
				!strings.Contains(nu.Value, c.want) || strings.Contains(nu.Value, c.notWant) {
				t.Errorf("restatement %s/%s=%q %s; want %s/%s holding %q, not %q, active", nu.Subject, nu.Attribute,
					nu.Value, nu.Status, old.Subject, old.Attribute, c.want, c.notWant)
			}
			if old.Status != StatusSuperseded || old.SupersededBy != nu.Ref() || !slices.Contains(nu.Supersedes, old.Ref()) {
				t.Errorf("older %+v, want superseded by %s with the link back", old, nu.Ref())
			}
		})
	}
	for _, c := range []struct{ name, first, second string }{
		// a change that shares nothing with what the user said
		{"en-unrelated", "My gym membership is 45 pounds a month.", "The bakery switched to sourdough instead."},
		{"zh-unrelated", "我的房租是每月三千二。", "楼下超市现在换成了自助收银。"},
		// shares a word but says no change
		{"en-no-cue", "My gym membership is 45 pounds a month.", "The gym was packed with 60 people."},
		// a change of another thing that shares a word with the slot (rev7's
		// review of c2e5e5f: each of the first six superseded)
		{"en-gym-buddy", "My gym membership is 45 pounds a month.", "My gym buddy switched to 6 am sessions now."},
		{"en-car-park", "My car insurance is 600 pounds a year.", "The car park switched to 3 pounds an hour instead."},
		{"en-dentist-receptionist", "My dentist is Dr Patel on King Street.", "The dentist's receptionist is Maria now."},
		{"en-possessive-now", "My dentist is Dr Patel on King Street.", "The dentist's nurse is Maria now."},
		{"en-daughter", "My daughter's school is Oakwood Primary.", "My daughter now takes 2 piano lessons a week."},
		{"zh-invoice", "我的房租是每月三千二。", "房租发票现在改成电子的了。"},
		{"zh-coffee-shop", "我早上喝的咖啡是美式。", "公司楼下的咖啡店现在换成了瑞幸。"},
		{"zh-daughter", "我女儿的学校是实验小学。", "我女儿的钢琴课现在改成周六了。"},
		{"zh-phone-case", "我的手机号是13800001111。", "我的手机壳现在换成蓝色的了。"},
		// a plan for one occasion is not a new standing value
		{"en-plan-tonight", "I love sushi.", "Now I'm gonna order some sushi for tonight."},
		{"en-heading", "My favourite beach is Bondi.", "Now we are heading to the beach."},
		{"en-about-to", "My usual coffee is a flat white.", "Now I'm about to grab a coffee with Sam."},
		{"zh-plan-tonight", "我喜欢吃寿司。", "现在我要去点寿司当晚饭了。"},
		{"zh-heading", "我最喜欢的海滩是三亚。", "我们现在正在去海滩的路上。"},
		// a hypothetical says what would be ([restatements] conditional)
		{"en-if-moved", "My commute to work is the 42 bus.", "If I moved to Lyon, I'd cycle to work instead."},
		{"en-unless", "My gym membership is 45 pounds a month.", "Unless they cut the gym price, I'd switch to 30 pounds a month elsewhere instead."},
		{"zh-ruguo", "我上班通勤用的是共享单车。", "如果我搬到城东的话，上班通勤就改成坐地铁。"},
		{"zh-yaoshi", "我的房租是每月三千二。", "要是换到两居室，房租就改成每月四千五。"},
		// a correction of a value the user never stated
		{"en-meant-another", "My seat on the coach is in row 6.", "Sorry, I meant row 9, not row 4."},
		// "put" without a particle, or a number word that is no amount
		{"en-put-keys", "My spare key is on the hook by the door.", "I put the key in the drawer on Monday."},
		{"en-one-of-them", "My favourite mug is the blue one.", "The kids switched to the other one instead."},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, s := sayTwo(t, c.first, c.second, at)
			if r, _ := e.Get(s.reader(), "acme", "u1", "m2"); r.Slotted() && r.Subject != "" {
				if old, _ := e.Get(s.reader(), "acme", "u1", "m1"); old.Status != StatusActive {
					t.Errorf("%q replaced %+v", c.second, old)
				}
			}
			if old, _ := e.Get(s.reader(), "acme", "u1", "m1"); old.Status != StatusActive {
				t.Errorf("an unrelated statement was superseded: %+v", old)
			}
		})
	}
}

// sayTwo applies first as acme's user u1's message m1 at at, and second as
// m2 a day later, to a fresh engine over a fresh Pebble store.
func sayTwo(t *testing.T, first, second string, at time.Time) (*Engine, *pebbleStore) {
	t.Helper()
	e := NewEngine(Config{}, nil)
	s := newPebbleStore(t)
	applyMessage(t, e, s, "u1", "m1", first, at)
	applyMessage(t, e, s, "u1", "m2", second, at.Add(24*time.Hour))
	return e, s
}

// getRecord reads record id of acme's user u1.
func getRecord(t *testing.T, e *Engine, s *pebbleStore, id string) Record {
	t.Helper()
	r, err := e.Get(s.reader(), "acme", "u1", id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestASwitchEndsTheThingItReplaces: a statement that says the user
// switched to another thing of the same kind ([restatements] switch, of a
// subject of switch_within) supersedes the user's newest statement of that
// kind about another thing, with both audit links; said without a switch,
// or of another kind, it ends nothing.
func TestASwitchEndsTheThingItReplaces(t *testing.T) {
	at := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, first, second string
		ends                bool
	}{
		{"en-drink", "I drink coffee every morning.", "I've switched to rooibos tea.", true},
		{"zh-drink", "我每天喝可乐。", "我现在改喝豆浆了。", true},
		{"zh-food", "我每天早上吃包子。", "我现在改吃燕麦片了。", true},
		{"en-also", "I drink coffee every morning.", "I drink rooibos tea too.", false},
		{"zh-also", "我每天喝可乐。", "我也喝豆浆。", false},
		{"zh-other-kind", "我每天早上吃包子。", "我现在改喝豆浆了。", false},
		// A switch said for one time of day or meal ends no statement said
		// for another; for the same one (or said of no time) it does.
		{"en-other-meal", "I drink green tea at lunch.", "In the mornings I've switched to coffee.", false},
		{"en-same-time", "I drink green tea every morning.", "In the mornings I've switched to coffee.", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, s := sayTwo(t, c.first, c.second, at)
			old, nu := getRecord(t, e, s, "m1"), getRecord(t, e, s, "m2")
			if !old.Slotted() || !nu.Slotted() {
				t.Fatalf("want both slotted: %s/%s, %s/%s", old.Subject, old.Attribute, nu.Subject, nu.Attribute)
			}
			ended := old.Status == StatusSuperseded && old.SupersededBy == nu.Ref() && slices.Contains(nu.Supersedes, old.Ref())
			if ended != c.ends || c.ends && nu.Status != StatusActive {
				t.Errorf("%s/%s %s by %q after %s/%s=%q: superseded %v, want %v", nu.Subject, nu.Attribute, nu.Status,
					old.SupersededBy, old.Subject, old.Attribute, old.Value, ended, c.ends)
			}
		})
	}
}
