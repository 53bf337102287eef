package memory

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestWhereAThingIsIsAFact: "my <thing> is (booked, held, stored, …)
// in/on/at <a place>", "the <thing> is kept in <a place>", 我(的)X在<a
// place> and X放在<a place> (我把X锁在…) are facts of the thing, as "my
// <thing> is <a name>" is, and the user's job said with where it is done
// (我在医院当护士) a fact of their work; a thing named by a generic head
// ("number", 号) after a word that is no contact detail is a fact too,
// while contact details stay unread. Sentences no scenario set holds.
func TestWhereAThingIsIsAFact(t *testing.T) {
	for _, tc := range []struct {
		text, lang, want string // want: subject/attribute=value, or "" for no such fact
	}{
		{"My yoga studio is on Queen Street.", "en", "my/yoga studio=Queen Street"},
		{"My office is in Manchester.", "en", "my/office=Manchester"},
		{"My book club is held at the Crown Inn.", "en", "my/book club=Crown Inn"},
		{"My retirement party is booked at the Old Forge in Ely.", "en", "my/retirement party=Old Forge"},
		{"My locker number is 214.", "en", "my/locker number=214"},
		{"My gym locker code is 7731.", "en", "my/gym locker code=7731"},
		{"My mobile carrier is Northwind.", "en", ""},
		{"My knee is in bad shape.", "en", ""},
		{"My son is at school.", "en", ""},
		// where a thing is, whatever word the place opens with; a thing
		// said with "the" where it says where it is kept
		{"My desk is on floor 3.", "en", "my/desk=floor 3"},
		{"My caravan at the holiday park is on pitch 31.", "en", "my/caravan=pitch 31"},
		{"My winter coats are stored in the attic.", "en", "my/winter coat=attic"},
		{"My kayak is tucked away in the garage.", "en", "my/kayak=garage"},
		{"The sewing machine is kept in the hall cupboard.", "en", "my/sewing machine=hall cupboard"},
		{"The meeting is at 3.", "en", ""},
		{"The kids are at the park.", "en", ""},
		{"My daughter is in the garden.", "en", ""},
		{"My travel budget is capped at 300 euros.", "en", ""},
		{"My walking group is at most 12 people.", "en", ""},
		{"My home address is 4 Elm Road.", "en", ""},
		{"My account number is 12345678.", "en", ""},
		{"My phone number is 555 0100.", "en", ""},
		{"我的新办公室在上海南京路100号。", "zh", "my/新办公室=上海南京路100号"},
		{"我老家在成都市。", "zh", "my/老家=成都市"},
		{"我每天在公司加班。", "zh", ""},
		{"我现在在家。", "zh", ""},
		{"我选的婚纱店是米兰婚纱。", "zh", "my/婚纱店=米兰婚纱"},
		{"我常去的健身房是超级猩猩。", "zh", "my/健身房=超级猩猩"},
		{"我的手机号是13800000000。", "zh", ""},
		// where a thing is put, said with the thing first or after 我把
		{"备用钥匙一直挂在门后的钩子上。", "zh", "my/备用钥匙=门后的钩子上"},
		{"我把护照锁在卧室的保险箱里。", "zh", "my/护照=卧室的保险箱里"},
		{"孩子放在奶奶家了。", "zh", ""},
		{"钥匙没放在抽屉里。", "zh", ""},
		{"他把书放在桌上。", "zh", ""},
		// what the user's home keeps
		{"我家里养了两只仓鼠。", "zh", "my/仓鼠=两只仓鼠"},
		{"我家里有一台钢琴。", "zh", "my/钢琴=一台钢琴"},
		// the user's job, said with where it is done
		{"我在医院当护士。", "zh", "work/role=护士"},
		{"我在一家咖啡店做兼职。", "zh", "work/role=兼职"},
		{"我在家做饭。", "zh", ""},
		{"我在健身房做运动。", "zh", ""},
		{"I work as a nurse at the county hospital.", "en", "work/role=nurse"},
	} {
		var got []string
		for _, o := range (RuleExtractor{}).Extract(tc.text, tc.lang) {
			if o.Subject == "my" || o.Subject == "work" {
				got = append(got, o.Subject+"/"+o.Attribute+"="+o.Value)
			}
		}
		if strings.Join(got, " | ") != tc.want {
			t.Errorf("%q: got %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestSubjectlessClauseIsItsOwnStatement: after a clause of the speaker's,
// a Chinese clause after a comma that states another thing of theirs
// without a subject (车牌号是浙A12345) is a statement of its own: its own
// fact and record, forgotten alone, its words gone from the index, the
// others kept. A clause that says more of the same thing (我的新车是比亚迪，
// 是去年买的) is not cut.
func TestSubjectlessClauseIsItsOwnStatement(t *testing.T) {
	var got []string
	for _, o := range (RuleExtractor{}).Extract("我的新车是比亚迪，车牌号是浙A12345，停车位在C区18号。", "zh") {
		got = append(got, o.Subject+"/"+o.Attribute+"="+o.Value+" "+o.Text)
	}
	want := []string{"my/新车=比亚迪 我的新车是比亚迪", "my/车牌号=浙A12345 车牌号是浙A12345", "my/停车位=C区18号 停车位在C区18号"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if parts := statementSentences("我的新车是比亚迪，是去年买的。"); len(parts) != 1 {
		t.Errorf("one statement cut in %d", len(parts))
	}
	if parts := statementSentences("周末天气不错，门票是八十块。"); len(parts) != 1 {
		t.Errorf("no speaker before the comma, yet cut in %d", len(parts))
	}

	e := NewEngine(Config{}, nil)
	s := newPebbleStore(t)
	at := time.Date(2025, 3, 1, 8, 0, 0, 0, time.UTC)
	ids := applyMessage(t, e, s, "u1", "m1", "我的新车是比亚迪，车牌号是浙A12345，停车位在C区18号。", at)
	if fmt.Sprint(ids) != "[m1 m1#2 m1#3]" {
		t.Fatalf("records %v, want one per statement", ids)
	}
	forget := &events.Event{ID: "f1", Tenant: "acme", User: "u1", At: at.Add(time.Hour).UnixNano(),
		Body: &events.MemoryForgotten{ID: "m1#2"}}
	forget.Kind = forget.Body.Kind()
	if err := s.apply(e, forget); err != nil {
		t.Fatal(err)
	}
	if where, ok := rawContains(s.reader(), []byte("a12345")); ok {
		t.Errorf("the forgotten statement is still in %s", where)
	}
	for _, id := range []string{"m1", "m1#3"} {
		r, err := e.Get(s.reader(), "acme", "u1", id)
		if err != nil || r.Status != StatusActive || !r.Slotted() {
			t.Errorf("%s: %+v, %v; want it kept, slotted", id, r, err)
		}
	}
}

// TestACorrectionNamesTheValueItReplaces: "A, not B" and 是A，不是B /
// 不是B，是A replace the user's statement whose value is B, in its slot,
// with the audit links both ways; naming a value never stated, they slot
// nothing.
func TestACorrectionNamesTheValueItReplaces(t *testing.T) {
	at := time.Date(2025, 4, 1, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, first, second, want string
	}{
		{"en", "My book club is held at the Crown Inn.", "The Red Lion, not the Crown Inn - I mixed the two pubs up.", "my/book club=Red Lion"},
		{"zh", "我订的花店是花语。", "花店我搞错了，是花田，不是花语。", "my/花店=花田"},
		{"zh-not-first", "我的牙医是陈医生。", "不对，不是陈医生，是林医生。", "my/牙医=林医生"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := NewEngine(Config{}, nil)
			s := newPebbleStore(t)
			applyMessage(t, e, s, "u1", "m1", c.first, at)
			applyMessage(t, e, s, "u1", "m2", c.second, at.Add(time.Hour))
			old, nu := getRecord(t, e, s, "m1"), getRecord(t, e, s, "m2")
			if got := nu.Subject + "/" + nu.Attribute + "=" + nu.Value; got != c.want || nu.Status != StatusActive {
				t.Errorf("correction %q %s, want %q active", got, nu.Status, c.want)
			}
			if old.Status != StatusSuperseded || old.SupersededBy != nu.Ref() || !slices.Contains(nu.Supersedes, old.Ref()) {
				t.Errorf("corrected %+v, want superseded by %s with the link back", old, nu.Ref())
			}
		})
	}
	e := NewEngine(Config{}, nil)
	s := newPebbleStore(t)
	applyMessage(t, e, s, "u1", "m1", "My book club is held at the Crown Inn.", at)
	applyMessage(t, e, s, "u1", "m2", "Tuesday, not Monday.", at.Add(time.Hour))
	if r, _ := e.Get(s.reader(), "acme", "u1", "m2"); r.Slotted() {
		t.Errorf("a correction of nothing stated slotted %+v", r)
	}
	if r, _ := e.Get(s.reader(), "acme", "u1", "m1"); r.Status != StatusActive {
		t.Errorf("an unrelated statement was corrected: %+v", r)
	}
}

// TestADashEndsAClause: a dash between spaces (or an en or em dash) ends a
// clause as a comma does, so what follows it is no part of a value; a
// hyphen inside a word is kept.
func TestADashEndsAClause(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"My dentist is Dr. A. B. Okafor - a lovely woman, to be fair.", "my/dentist=Dr. A. B. Okafor"},
		{"My landlord is Mr. K. Osei — a retired pilot of all things.", "my/landlord=Mr. K. Osei"},
		{"My well-being coach is Ms. T. Ruiz.", "my/well-being coach=Ms. T. Ruiz"},
	} {
		got := ""
		for _, o := range (RuleExtractor{}).Extract(tc.text, "en") {
			if o.Subject == "my" || o.Subject == "work" {
				got = o.Subject + "/" + o.Attribute + "=" + o.Value
			}
		}
		if got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestAChineseNumeralDateEndsTheStatement: an end said with the month and
// day in Chinese numerals (到六月十五号…为止, 十二月三十一日之前) is read as in
// digits.
func TestAChineseNumeralDateEndsTheStatement(t *testing.T) {
	at := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC).UnixNano()
	for _, tc := range []struct {
		text string
		want time.Time
	}{
		{"到六月十五号搬家为止，晚上别约我出去。", time.Date(2026, 6, 16, 0, 0, 0, 0, time.UTC)},
		{"十二月三十一日之前我不喝酒。", time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"到6月15号为止，晚上别约我出去。", time.Date(2026, 6, 16, 0, 0, 0, 0, time.UTC)},
	} {
		obs := (RuleExtractor{}).ExtractAt(tc.text, "zh", at)
		if len(obs) == 0 {
			t.Errorf("%q: nothing read", tc.text)
			continue
		}
		if got := time.Unix(0, obs[0].ValidUntil).UTC(); !got.Equal(tc.want) {
			t.Errorf("%q: valid until %s, want %s", tc.text, got, tc.want)
		}
	}
}

// TestAnActivitysTimeIsItsValue: "I can't <do something> before/after <a
// time>" is a constraint against the activity whose value is the time, so
// that the activity's name is short enough to be read at all.
func TestAnActivitysTimeIsItsValue(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"These days I can't answer work emails after 9pm.", "constraint activity/answer work emails=after 9pm negative"},
		{"Lately I can't drive the kids to school before 8 am.", "constraint activity/drive the kids to school=before 8 am negative"},
		{"For now I can't mow the lawn before noon.", "constraint activity/mow the lawn=before noon negative"},
	} {
		got := ""
		for _, o := range (RuleExtractor{}).Extract(tc.text, "en") {
			got = o.Kind + " " + o.Subject + "/" + o.Attribute + "=" + o.Value + " " + o.Polarity
		}
		if got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestWhoDoesItForMe: "<what is done for me>的是Y" is who or what does
// it, a fact of the user's; without an addressee it is nothing of theirs.
func TestWhoDoesItForMe(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"给我剪头发的是阿杰。", "fact my/剪头发=阿杰 positive"},
		{"每周帮我遛狗的是小林。", "fact my/遛狗=小林 positive"},
		{"昨天来的是小林。", ""},
	} {
		got := ""
		for _, o := range (RuleExtractor{}).Extract(tc.text, "zh") {
			if o.Subject != "" {
				got = o.Kind + " " + o.Subject + "/" + o.Attribute + "=" + o.Value + " " + o.Polarity
			}
		}
		if got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestAQualificationIsAFact: "I'm a qualified/certified/… X (with Y)" is the
// user's qualification, each its own slot; "I'm a big fan" is none.
func TestAQualificationIsAFact(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"I'm a certified scuba diver with PADI.", "fact qualification/certified scuba diver=PADI"},
		{"I am a registered nurse.", "fact qualification/registered nurse="},
		{"I'm a big fan of PADI.", ""},
		{"我是一名注册营养师。", "fact qualification/注册营养师="},
		{"我是持证的潜水员。", "fact qualification/持证的潜水员="},
		{"我是北京人。", ""},
	} {
		got := ""
		for _, o := range (RuleExtractor{}).Extract(tc.text, "") {
			if o.Subject == "qualification" {
				got = o.Kind + " " + o.Subject + "/" + o.Attribute + "=" + o.Value
			}
		}
		if got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestACorrectionTakesTheValueNamedWhole: a correction names the value it
// replaces, not its slot, so a value of another slot that only holds a
// part of it is no candidate while a statement of that value whole is:
// "10, not 9" corrects my/locker number = 9, said before my/flat = 9 Queen
// Street, and leaves the flat as it was (it took the newer flat, and wrote
// its address as 10, before). A value held in part only is still corrected
// when no statement holds it whole.
func TestACorrectionTakesTheValueNamedWhole(t *testing.T) {
	at := time.Date(2025, 4, 1, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name                 string
		said                 []string // m1, m2, m3: the last one the correction
		corrected, untouched string
		want                 string
	}{
		{"en", []string{"My locker number is 9.", "My flat is 9 Queen Street.", "10, not 9."}, "m1", "m2", "my/locker number=10"},
		{"en-at", []string{"My gym locker is 12.", "My flat is at 12 Elm Road.", "14, not 12."}, "m1", "m2", "my/gym locker=14"},
		{"zh", []string{"我的储物柜是9号。", "我家在文三路9号。", "是10号，不是9号。"}, "m1", "m2", "my/储物柜=10号"},
		{"en-part-only", []string{"My dentist is Dr. Chen.", "My book club is held at the Crown Inn.", "The Red Lion, not the Crown."}, "m2", "m1", "my/book club=Red Lion"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := NewEngine(Config{}, nil)
			s := newPebbleStore(t)
			for i, text := range c.said {
				applyMessage(t, e, s, "u1", fmt.Sprintf("m%d", i+1), text, at.Add(time.Duration(i)*time.Hour))
			}
			get := func(id string) Record {
				t.Helper()
				r, err := e.Get(s.reader(), "acme", "u1", id)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			old, kept, nu := get(c.corrected), get(c.untouched), get("m3")
			if got := nu.Subject + "/" + nu.Attribute + "=" + nu.Value; got != c.want || nu.Status != StatusActive {
				t.Errorf("correction %s, want %q active", nu.String(), c.want)
			}
			if old.Status != StatusSuperseded || old.SupersededBy != nu.Ref() {
				t.Errorf("corrected %s, want superseded by %s", old.String(), nu.Ref())
			}
			if kept.Status != StatusActive || kept.SupersededBy != "" {
				t.Errorf("a statement of another slot was corrected: %s", kept.String())
			}
		})
	}
}
