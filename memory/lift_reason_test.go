package memory

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// A clause saying a ban's reason is over is read as ended/<reason>, in
// English and Chinese; one whose reason is not over, or not yet, or that
// says something else is done, states no ending.
func TestEndedReasonsAreRead(t *testing.T) {
	cases := []struct {
		say, reason string // reason "" wants no ending
	}{
		{"My wrist has finally healed.", "wrist"},
		{"The rash has cleared up, thank goodness.", "rash"},
		{"My gout is under control now.", "gout"},
		{"The chemo is finished, so I can plan a trip.", "chemo"},
		{"Finished the steroids last week.", "steroids"},
		{"The cardiologist gave me the all-clear.", "cardiologist"},
		{"The cast came off on Tuesday and I'm walking fine.", "cast"},
		{"手腕已经养好了。", "手腕"},
		{"体检血糖正常了，放心了。", "血糖"},
		{"颈椎病彻底好了。", "颈椎"},
		{"The specialist has signed off my knee, so I can get back to netball.", "knee"},
		{"The dentist signed off on my implant today.", "implant"},
		{"复查时医生说胃已经养好了。", "胃"},
		{"My back hasn't healed yet.", ""},
		{"Once my shin is better I'll start jogging again.", ""},
		{"This cake is better than the last one.", ""},
		{"I'm over the moon about the news.", ""},
		{"I'm staying off dairy for a while.", ""},
		{"Has your cold cleared up?", ""},
		{"等脖子好了再说。", ""},
		{"脖子还没好。", ""},
		{"机票订好了。", ""},
		{"晚饭做好了。", ""},
	}
	for _, c := range cases {
		t.Run(c.say, func(t *testing.T) {
			got := endedReasons(c.say)
			var reasons []string
			for _, o := range got {
				if o.Kind != string(KindFact) || o.Subject != endedSubject || o.Polarity != string(Positive) {
					t.Errorf("not an ended fact: %+v", o)
				}
				reasons = append(reasons, o.Attribute)
			}
			want := []string{}
			if c.reason != "" {
				want = []string{c.reason}
			}
			if !slices.Equal(append([]string{}, reasons...), want) {
				t.Errorf("endings %q, want %q", reasons, want)
			}
		})
	}
}

// An ended reason lifts every ban in force said before it whose sentence
// names the reason, each superseded by the ending with its audit link,
// however the ban names its thing; a ban of another reason, one said
// after, or an ending that is not over leaves the bans in force.
func TestAReasonOverLiftsItsBans(t *testing.T) {
	at := time.Date(2027, 2, 1, 8, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		bans  []string // each a message of its own, in order
		say   string
		ended []int  // the bans it lifts
		after string // a ban said after the ending: never lifted by it
	}{
		{"a part healed lifts what it kept off",
			[]string{"My wrist is sprained, so no tennis for me.", "I'm allergic to cats."},
			"My wrist has healed, so I'm out on the court again.", []int{0}, ""},
		{"a course finished lifts what it ruled out",
			[]string{"I'm not drinking any wine while I'm on these steroids.", "I don't eat pork."},
			"Finished the steroids yesterday.", []int{0}, "I'm not drinking any wine while I'm on these steroids."},
		{"Chinese: a reading back to normal lifts what it ruled out",
			[]string{"我血糖偏高，最近不喝果汁。", "我不吃香菜。"},
			"复查血糖正常了，果汁想喝就喝。", []int{0}, ""},
		{"a clearance of the reason said before it lifts what it kept off",
			[]string{"No squash for me until my shoulder has mended.", "I'm allergic to cats."},
			"The consultant signed off my shoulder, so I'm booking a court.", []int{0}, ""},
		{"Chinese: a checkup said first, then the reason over",
			[]string{"我脚踝扭伤了，医生不让我去攀岩。"},
			"复诊时医生说脚踝已经好了。", []int{0}, ""},
		{"a reason not over lifts nothing",
			[]string{"My wrist is sprained, so no tennis for me."},
			"My wrist isn't better yet.", nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := NewEngine(Config{}, nil)
			s := newPebbleStore(t)
			var banIDs []string
			for i, b := range c.bans {
				ids := applyMessage(t, e, s, "u1", "b"+string(rune('1'+i)), b, at.Add(time.Duration(i)*time.Hour))
				found := ""
				for _, id := range ids {
					if r, _ := e.Get(s.reader(), "acme", "u1", id); r.Kind == KindConstraint && r.Polarity == Negative && r.Status == StatusActive {
						found = id
					}
				}
				if found == "" {
					t.Fatalf("%q: no ban in force among %v", b, ids)
				}
				banIDs = append(banIDs, found)
			}
			ids := applyMessage(t, e, s, "u1", "r1", c.say, at.Add(24*time.Hour))
			var ending []string
			for _, id := range ids {
				r, _ := e.Get(s.reader(), "acme", "u1", id)
				ending = append(ending, r.Ref())
			}
			for i, id := range banIDs {
				r, _ := e.Get(s.reader(), "acme", "u1", id)
				if !slices.Contains(c.ended, i) {
					if r.Status != StatusActive {
						t.Errorf("a ban of another reason: %s", r.String())
					}
					continue
				}
				if r.Status != StatusSuperseded || !slices.Contains(ending, r.SupersededBy) {
					t.Errorf("a ban whose reason is over: %s; the ending's records %v", r.String(), ending)
				}
			}
			if c.after == "" {
				return
			}
			applyMessage(t, e, s, "u1", "b9", c.after, at.Add(48*time.Hour))
			recs, err := e.List(s.reader(), "acme", "u1", false)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(recs, func(r Record) bool {
				return r.Kind == KindConstraint && r.Polarity == Negative && r.Status == StatusActive && r.Text == strings.TrimSuffix(c.after, ".")
			}) {
				t.Errorf("a ban said after the ending is not in force: %v", recs)
			}
		})
	}
}
