package memory

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/toolstream/toolstream/events"
)

// extractCmd runs the datadriven command "extract [lang=en|zh]" (see
// TestDataDriven; the files are in testdata/extract/): the input is one user
// message, the output one line per observation the RuleExtractor reads from
// it — kind slot[=value] polarity, confidence, TTL if bounded, the sentence
// — or "nothing" (the message is kept as an episode). lang defaults to ""
// (both languages), as the engine calls it.
func extractCmd(t *testing.T, d *datadriven.TestData) string {
	obs := RuleExtractor{}.Extract(d.Input, strArg(d, "lang", ""))
	if len(obs) == 0 {
		return "nothing"
	}
	var b strings.Builder
	for _, o := range obs {
		if o.ID != "" || o.Confidence <= 0 || o.Confidence > 1 {
			t.Errorf("%q: malformed %+v", d.Input, o)
		}
		fmt.Fprintf(&b, "%s conf=%g", obsString(o), o.Confidence)
		if o.TTL != 0 {
			fmt.Fprintf(&b, " ttl=%s", time.Duration(o.TTL))
		}
		fmt.Fprintf(&b, " %q\n", o.Text)
	}
	return b.String()
}

// obsString is an observation's short form: kind subject/attribute[=value]
// polarity.
func obsString(o events.Observation) string {
	s := fmt.Sprintf("%s %s/%s", o.Kind, o.Subject, o.Attribute)
	if o.Value != "" {
		s += "=" + o.Value
	}
	return s + " " + o.Polarity
}

func extractAll(text, lang string) string {
	var out []string
	for _, o := range (RuleExtractor{}).Extract(text, lang) {
		out = append(out, obsString(o))
	}
	return strings.Join(out, "; ")
}

func TestExtractEnglish(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		// preferences
		{"I love spicy food", "preference food/spicy positive"},
		{"I really like sushi.", "preference food/sushi positive"},
		{"i enjoy hiking", "preference activity/hiking positive"},
		{"I prefer tea over coffee", "preference drink/tea positive"},
		{"I do like jazz", "preference general/jazz positive"},
		{"I hate coffee", "preference drink/coffee negative"},
		{"I don't want spicy food anymore", "preference food/spicy negative"},
		{"I'd rather not have dairy", "preference food/dairy negative"},
		{"I don't want to go to the gym", ""},
		{"Please forget it, I don't want it stored", ""},
		{"I dislike loud restaurants", "preference general/loud restaurant negative"},
		{"I don't like mushrooms", "preference food/mushroom negative"},
		{"I can’t stand cilantro", "preference food/cilantro negative"},
		{"I'm a big fan of jazz", "preference general/jazz positive"},
		{"My favorite color is green", "preference favorite/color=green positive"},
		// constraints
		{"I can't eat spicy food these days.", "constraint food/spicy negative"},
		{"I cannot eat peanuts", "constraint food/peanut negative"},
		{"I can not have dairy anymore", "constraint food/dairy negative"},
		{"I'm allergic to shellfish", "constraint food/shellfish negative"},
		{"I am allergic to cats", "constraint general/cat negative"},
		{"Im vegetarian", "constraint food/meat negative"},
		{"I am a vegan", "constraint food/animal product negative"},
		{"I'm lactose intolerant", "constraint food/lactose negative"},
		{"I don't eat pork", "constraint food/pork negative"},
		{"I never drink alcohol", "constraint drink/alcohol negative"},
		{"I must avoid sugar", "constraint food/sugar negative"},
		{"I shouldn't drink coffee at the moment", "constraint drink/coffee negative"},
		{"I can eat spicy food again!", "constraint food/spicy positive"},
		{"I am no longer allergic to peanuts", "constraint food/peanut positive"},
		{"I'm not vegetarian anymore", "constraint food/meat positive"},
		{"I must take my pills every morning", "constraint activity/take my pills every morning positive"},
		// facts
		{"I live in Paris", "fact location/home=Paris positive"},
		{"I moved to New York City last year", "fact location/home=New York City positive"},
		{"I'm from Brazil", "fact location/origin=Brazil positive"},
		{"I work at Acme Corp", "fact work/employer=Acme Corp positive"},
		{"I work as a nurse", "fact work/role=nurse positive"},
		{"I am 34 years old", "fact identity/age=34 positive"},
		{"My name is Ana", "fact identity/name=Ana positive"},
		{"I don't smoke", "fact activity/smoke negative"},
		// several statements, pronouns, elided subjects
		{"I love spicy food but I can't eat it these days", "preference food/spicy positive; constraint food/spicy negative"},
		{"I love spicy food but can't eat it right now", "preference food/spicy positive; constraint food/spicy negative"},
		{"I used to hate sushi. Now I like it.", ""}, // the past states nothing; "it" has no statement to refer to
		{"I love sushi. Honestly I really like it.", "preference food/sushi positive; preference food/sushi positive"},
		{"I live in Lisbon. I love pastel de nata", "fact location/home=Lisbon positive; preference general/pastel de nata positive"},
		// changes of habit, habits and quantities
		{"I switched from almond milk to soy milk", "fact drink/milk=soy milk positive"},
		{"Quit sugar last month", "constraint food/sugar negative"},
		{"I gave up red meat in 2022", "constraint food/red meat negative"},
		{"I drink two glasses of wine every night", "fact drink/wine=two glasses every night positive"},
		{"I swim 3 times a week", "fact activity/swimming=3 times a week positive"},
		{"I stopped drinking soda and switched to sparkling water", "constraint drink/soda negative; fact drink/water=sparkling water positive"},
		// work and home, said with "we", without "I", or denied for one value
		{"We moved to Portland last spring", "fact location/home=Portland positive"},
		{"I'm a teacher at Lincoln High", "fact work/employer=Lincoln High positive"},
		{"Just started working at Initech", "fact work/employer=Initech positive"},
		{"I quit my job at Google", "fact work/employer=Google negative"},
		{"I don't work at Google anymore", "fact work/employer=Google negative"},
		{"I left my keys at home", ""},
		// adverbs inside the verb phrase, perfect tenses, tired of, favorites
		{"I'm not really allergic to latex", "constraint general/latex positive"},
		{"I've always loved hiking", "preference activity/hiking positive"},
		{"I have never enjoyed opera", "preference general/opera negative"},
		{"I'm sick of sushi", "preference food/sushi negative"},
		{"Honestly pizza is my favorite", "preference food/pizza positive"},
		{"no dairy for me please", "constraint food/dairy negative"},
		// nothing stated: conditionals, questions without their mark, others
		{"If I eat gluten I get sick", ""},
		{"I love spicy food but if I eat it late I get heartburn", "preference food/spicy positive"},
		{"Should I get a dog", ""},
		{"We went to Paris last year", ""},
		{"My husband is allergic to nuts", ""},
		// nothing stated
		{"Do I like spicy food?", ""},
		{"I'd like a coffee please", ""},
		{"I would love to see the menu", ""},
		{"I don't know", ""},
		{"I love you", ""},
		{"I like it", ""},
		{"We went hiking near the lake", ""},
		{"The weather was great", ""},
		{"", ""},
	} {
		if got := extractAll(c.text, ""); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.text, got, c.want)
		}
	}
}

func TestExtractKeepsSentenceText(t *testing.T) {
	obs := RuleExtractor{}.Extract("Hello! I live in Oslo. And I hate rain.", "en")
	if len(obs) != 2 || obs[0].Text != "I live in Oslo" || obs[1].Text != "And I hate rain" {
		t.Fatalf("%+v", obs)
	}
	for _, o := range obs {
		if o.Confidence <= 0 || o.Confidence > 1 || o.ID != "" {
			t.Errorf("%+v", o)
		}
	}
}

func TestExtractIsBounded(t *testing.T) {
	text := strings.Repeat("I love tea. ", 100)
	if n := len(RuleExtractor{}.Extract(text, "")); n != observationsMax {
		t.Fatalf("%d observations", n)
	}
}

// FuzzExtract: the extractor never panics and always gives slotted,
// well-formed observations.
func FuzzExtract(f *testing.F) {
	for _, s := range []string{"I love spicy food", "我对花生过敏", "I can't eat it", "我不能吃", "I'm", "，但是", "I am allergic to"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, o := range (RuleExtractor{}).Extract(text, "") {
			if o.Subject == "" || o.Attribute == "" || o.Kind == "" || o.Polarity == "" {
				t.Fatalf("%q: %+v", text, o)
			}
		}
	})
}

// TestExtractBoundsConstraints: a constraint said for this week, this month
// or today ends by itself; "these days" leaves it open.
func TestExtractBoundsConstraints(t *testing.T) {
	for _, c := range []struct {
		text string
		ttl  int64
	}{
		{"I'm avoiding caffeine this week", week},
		{"I can't have alcohol today", day},
		{"No carbs for me this month", month},
		{"I can't eat spicy food these days", 0},
		{"这周我不能喝酒", week},
		{"我今天不吃肉", day},
		{"我最近不能吃辣", 0},
	} {
		obs := RuleExtractor{}.Extract(c.text, "")
		if len(obs) != 1 || obs[0].TTL != c.ttl {
			t.Errorf("%q: %+v, want ttl %d", c.text, obs, c.ttl)
		}
	}
}

// TestExtractGoldenCoversHeldout: every message of the held-out set is the
// input of an extract command in testdata/extract/, so the golden files
// show what a change of the extractor does to each of them.
func TestExtractGoldenCoversHeldout(t *testing.T) {
	inputs := map[string]bool{}
	datadriven.Walk(t, "testdata/extract", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd == "extract" {
				inputs[d.Input] = true
			}
			return d.Expected
		})
	})
	for _, s := range loadHeldout(t, "heldout/scenarios.jsonl") {
		for _, l := range s.lines {
			if l.Say != "" && !inputs[l.Say] {
				t.Errorf("%s %s: %q is in no extract command of testdata/extract/", s.name, l.ID, l.Say)
			}
		}
	}
}
