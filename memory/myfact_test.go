package memory

import (
	"testing"
	"time"
)

// TestMyThingIsAFact: "my <thing> is <a thing or a name>" and 我的X是Y are
// facts of the thing the user has; a state ("my knee is sore"), a plan, a
// favourite, a kin's diet and contact details are not read so.
func TestMyThingIsAFact(t *testing.T) {
	for _, tc := range []struct {
		text, lang, want string // want: subject/attribute=value, or "" for no such fact
	}{
		{"My bike is a blue Trek.", "en", "my/bike=blue Trek"},
		{"My dentist is Dr. Alvarez.", "en", "my/dentist=Dr. Alvarez"},
		{"My dog is called Pepper.", "en", "my/dog=Pepper"},
		{"My laptops are a Dell and a Mac.", "en", ""},
		{"My knee is sore today.", "en", ""},
		{"My plan is to run a marathon.", "en", ""},
		{"My email is sam@example.com.", "en", ""},
		{"My phone number is 555 0100.", "en", ""},
		{"我的自行车是捷安特。", "zh", "my/自行车=捷安特"},
		{"我的狗是一只柯基。", "zh", "my/狗=柯基"},
		{"我的邮箱是sam@example.com。", "zh", ""},
		{"我的腿不是很舒服。", "zh", ""},
	} {
		got := ""
		for _, o := range (RuleExtractor{}).Extract(tc.text, tc.lang) {
			if o.Subject == "my" {
				got = o.Subject + "/" + o.Attribute + "=" + o.Value
			}
		}
		if got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestThisMonthEndsWithTheMonth: a constraint said for this month (这个月,
// 本月) or this year holds to the calendar period's end, not for 30 days
// from the day it was said.
func TestThisMonthEndsWithTheMonth(t *testing.T) {
	at := time.Date(2026, 2, 10, 9, 0, 0, 0, time.UTC).UnixNano()
	for _, tc := range []struct {
		text, lang string
		want       time.Time
	}{
		{"No dairy for me this month.", "en", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
		{"I'm not drinking wine this year.", "en", time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"这个月我不吃甜食。", "zh", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
		{"本月我不喝奶茶。", "zh", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
	} {
		obs := (RuleExtractor{}).ExtractAt(tc.text, tc.lang, at)
		if len(obs) == 0 {
			t.Errorf("%q: nothing read", tc.text)
			continue
		}
		if got := time.Unix(0, obs[0].ValidUntil).UTC(); !got.Equal(tc.want) {
			t.Errorf("%q: valid until %s, want %s", tc.text, got, tc.want)
		}
	}
}

// TestSpendingCapIsACap: a cap said of spending is the cap of the thing
// spent on, and a newer one is the same slot.
func TestSpendingCapIsACap(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"I can spend at most 40 dollars on a haircut.", "limit/haircut budget=40 dollars"},
		{"I can now spend up to 55 dollars on a haircut.", "limit/haircut budget=55 dollars"},
		{"I'm allowed to spend no more than 300 euros for a phone.", "limit/phone budget=300 euros"},
		{"I spend about 60 pounds on dinner.", ""},
		{"I can spend hours on a puzzle.", ""},
	} {
		got := ""
		for _, o := range (RuleExtractor{}).Extract(tc.text, "en") {
			if o.Subject == "limit" {
				got = o.Subject + "/" + o.Attribute + "=" + o.Value
			}
		}
		if got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestCountedBound: a constraint for a number of days, weeks or months
// ends after them.
func TestCountedBound(t *testing.T) {
	for _, tc := range []struct {
		text string
		want time.Duration
	}{
		{"For the next three weeks I can't eat gluten.", 3 * 7 * 24 * time.Hour},
		{"I'm not drinking coffee for 10 days.", 10 * 24 * time.Hour},
		{"No sugar for me for the next 2 months.", 2 * 30 * 24 * time.Hour},
		{"I can't eat gluten.", 0},
	} {
		obs := (RuleExtractor{}).Extract(tc.text, "en")
		if len(obs) == 0 {
			t.Errorf("%q: nothing read", tc.text)
			continue
		}
		if got := time.Duration(obs[0].TTL); got != tc.want {
			t.Errorf("%q: ttl %s, want %s", tc.text, got, tc.want)
		}
	}
}

// TestAfterAllIsNoPartOfTheThing: "after all" and "in the end" qualify a
// statement, so its object, and the slot a retraction lifts, is the thing.
func TestAfterAllIsNoPartOfTheThing(t *testing.T) {
	for _, text := range []string{"Turns out I'm not allergic to sesame after all.", "I can eat sesame in the end."} {
		obs := (RuleExtractor{}).Extract(text, "en")
		if len(obs) == 0 || obs[0].Attribute != "sesame" {
			t.Errorf("%q: %+v, want the attribute sesame", text, obs)
		}
	}
}

// TestAskingForLessIsAConstraint: "go easy on X for me" is read as "no X
// for me"; without "for me" it says nothing about the user.
func TestAskingForLessIsAConstraint(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"Go easy on the garlic for me this week.", "food/garlic"},
		{"Please hold the onions for me.", "food/onion"},
		{"Cut back on the salt for me for a while.", "food/salt"},
		{"Go easy on him, he is new.", ""},
	} {
		got := ""
		for _, o := range (RuleExtractor{}).Extract(tc.text, "en") {
			if o.Kind == string(KindConstraint) && o.Polarity == string(Negative) {
				got = o.Subject + "/" + o.Attribute
			}
		}
		if got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestARestraintOverIsALift: 控糖结束了 lifts what 我在控糖 states; an
// ending of something that is no restraint (会议结束了) states nothing.
func TestARestraintOverIsALift(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"戒酒告一段落了。", "constraint drink/alcohol positive"},
		{"控糖结束了。", "constraint food/sugar positive"},
		{"会议结束了。", ""},
	} {
		got := ""
		for _, o := range (RuleExtractor{}).Extract(tc.text, "zh") {
			got = o.Kind + " " + o.Subject + "/" + o.Attribute + " " + o.Polarity
		}
		if got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.text, got, tc.want)
		}
	}
}
