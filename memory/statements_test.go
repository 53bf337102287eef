package memory

import (
	"fmt"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// applyMessage writes a user's message as the service does and returns the
// records' ids.
func applyMessage(t *testing.T, e *Engine, s *pebbleStore, user, id, text string, at time.Time) []string {
	t.Helper()
	return applyReply(t, e, s, "acme", user, id, text, "", at)
}

// A message that states nothing is one episode per sentence, each naming
// the message it came from: forgetting one leaves the other, and no byte of
// the forgotten one.
func TestSentencesOfAMessageAreForgottenOneByOne(t *testing.T) {
	e := NewEngine(Config{}, nil)
	s := newPebbleStore(t)
	at := time.Date(2025, 1, 5, 8, 0, 0, 0, time.UTC)
	ids := applyMessage(t, e, s, "u1", "m1", "The garage code is 4471. The plumber comes on Thursday. Is that ok?", at)
	if fmt.Sprint(ids) != "[m1 m1#2]" {
		t.Fatalf("records %v, want one per sentence that is no question", ids)
	}
	forget := &events.Event{ID: "f1", Tenant: "acme", User: "u1", At: at.Add(time.Hour).UnixNano(),
		Body: &events.MemoryForgotten{ID: "m1"}}
	forget.Kind = forget.Body.Kind()
	if err := s.apply(e, forget); err != nil {
		t.Fatal(err)
	}
	if where, ok := rawContains(s.reader(), []byte("4471")); ok {
		t.Errorf("the forgotten sentence is still in %s", where)
	}
	r, err := e.Get(s.reader(), "acme", "u1", "m1#2")
	if err != nil || r.Status != StatusActive || r.Message != "m1" || r.Text != "The plumber comes on Thursday." {
		t.Errorf("the other sentence: %+v, %v", r, err)
	}
	// One sentence stays one record with the message's whole text.
	if ids := applyMessage(t, e, s, "u1", "m2", "  see you tomorrow  ", at); fmt.Sprint(ids) != "[m2]" {
		t.Errorf("records %v", ids)
	} else if r, _ := e.Get(s.reader(), "acme", "u1", "m2"); r.Text != "  see you tomorrow  " {
		t.Errorf("text %q", r.Text)
	}
}

// Statements of one message are records of their own that name it.
func TestStatementsNameTheirMessage(t *testing.T) {
	e := NewEngine(Config{}, nil)
	s := newPebbleStore(t)
	at := time.Date(2025, 1, 5, 8, 0, 0, 0, time.UTC)
	ids := applyMessage(t, e, s, "u1", "m1", "I'm allergic to penicillin. My favorite composer is Arvo Pärt.", at)
	if len(ids) != 2 {
		t.Fatalf("records %v", ids)
	}
	for _, id := range ids {
		if r, err := e.Get(s.reader(), "acme", "u1", id); err != nil || r.Message != "m1" || !r.Slotted() {
			t.Errorf("%s: %+v, %v", id, r, err)
		}
	}
}

// A newer constraint of the same slot replaces the older whatever their
// values and polarities; the old one stays, superseded by the new one and
// shown in its history. A fact denied with a value still ends only that
// value.
func TestNewerConstraintOfTheSlotSupersedes(t *testing.T) {
	e := NewEngine(Config{}, nil)
	s := newPebbleStore(t)
	at := time.Date(2025, 1, 5, 8, 0, 0, 0, time.UTC)
	obs := func(n int, o events.Observation) {
		t.Helper()
		ev := &events.Event{ID: fmt.Sprintf("e%d", n), Tenant: "acme", User: "u1", At: at.Add(time.Duration(n) * time.Hour).UnixNano(),
			Body: &events.MemoryObserved{Observation: o}}
		ev.Kind = ev.Body.Kind()
		if err := s.apply(e, ev); err != nil {
			t.Fatal(err)
		}
	}
	obs(1, events.Observation{ID: "c1", Kind: "constraint", Subject: "request", Attribute: "call", Value: "after 7pm",
		Polarity: "negative", Text: "please don't call me after 7pm"})
	obs(2, events.Observation{ID: "c2", Kind: "constraint", Subject: "request", Attribute: "call", Value: "after 9pm",
		Polarity: "negative", Text: "please don't call me after 9pm"})
	old, err := e.Get(s.reader(), "acme", "u1", "c1")
	if err != nil || old.Status != StatusSuperseded || refID(old.SupersededBy) != "c2" {
		t.Errorf("the older constraint: %s, %v", old.String(), err)
	}
	if cur, _ := e.Get(s.reader(), "acme", "u1", "c2"); cur.Status != StatusActive || len(cur.Supersedes) != 1 {
		t.Errorf("the newer constraint: %s", cur.String())
	}
	obs(3, events.Observation{ID: "c3", Kind: "constraint", Subject: "request", Attribute: "call", Value: "in the evening",
		Polarity: "positive", Text: "you can call me in the evening again"})
	if cur, _ := e.Get(s.reader(), "acme", "u1", "c2"); cur.Status != StatusSuperseded || refID(cur.SupersededBy) != "c3" {
		t.Errorf("the lift: %s", cur.String())
	}
	obs(4, events.Observation{ID: "f1", Kind: "fact", Subject: "work", Attribute: "employer", Value: "Figma", Text: "I work at Figma"})
	obs(5, events.Observation{ID: "f2", Kind: "fact", Subject: "work", Attribute: "employer", Value: "Stripe", Polarity: "negative",
		Text: "I left Stripe"})
	if r, _ := e.Get(s.reader(), "acme", "u1", "f1"); r.Status != StatusActive {
		t.Errorf("a denial of another value ended %s", r.String())
	}
}

// A typed observation without a slot takes its slot, and the end its text
// says, from the extractor; one with a validity of its own keeps it.
func TestTypedConstraintReadsItsText(t *testing.T) {
	e := NewEngine(Config{}, nil)
	s := newPebbleStore(t)
	at := time.Date(2025, 3, 1, 8, 0, 0, 0, time.UTC)
	for i, o := range []events.Observation{
		{ID: "c1", Kind: "constraint", Text: "Please don't call me after 7pm until March 20."},
		{ID: "c2", Kind: "constraint", Text: "我的午餐预算最多50元，到月底为止。", TTL: int64(48 * time.Hour)},
	} {
		ev := &events.Event{ID: fmt.Sprintf("e%d", i), Tenant: "acme", User: "u1", At: at.UnixNano(), Body: &events.MemoryObserved{Observation: o}}
		ev.Kind = ev.Body.Kind()
		if err := s.apply(e, ev); err != nil {
			t.Fatal(err)
		}
	}
	c1, _ := e.Get(s.reader(), "acme", "u1", "c1")
	if c1.Subject != "request" || c1.Attribute != "call" || c1.Value != "after 7pm" ||
		c1.ValidUntil != time.Date(2025, 3, 21, 0, 0, 0, 0, time.UTC).UnixNano() {
		t.Errorf("c1: %s", c1.String())
	}
	c2, _ := e.Get(s.reader(), "acme", "u1", "c2")
	if c2.Subject != "limit" || c2.Value != "50元" || c2.ValidUntil != at.Add(48*time.Hour).UnixNano() {
		t.Errorf("c2 (its own ttl wins): %s", c2.String())
	}
}

// "其实我现在更喜欢普洱" after the favourite of its kind puts 普洱 first: the
// old favourite is superseded, in either language and either word order.
func TestPreferNowSupersedesTheFavourite(t *testing.T) {
	e := NewEngine(Config{}, nil)
	s := newPebbleStore(t)
	at := time.Date(2025, 1, 5, 8, 0, 0, 0, time.UTC)
	for i, c := range [][3]string{
		{"我最喜欢喝龙井。", "其实我现在更喜欢普洱。", "我最喜欢喝什么茶"},
		{"我最喜欢的茶是龙井。", "其实我现在更喜欢普洱。", "给我泡一杯我喜欢的茶"},
		{"Sencha is my favorite tea.", "Actually I prefer oolong now.", "which tea is my favorite?"},
		{"My favourite coffee is a flat white.", "These days I'm more into cortado.", "order my favourite coffee"},
	} {
		user := fmt.Sprintf("u%d", i)
		old := applyMessage(t, e, s, user, "m1", c[0], at)
		applyMessage(t, e, s, user, "m2", c[1], at.Add(24*time.Hour))
		r, err := e.Get(s.reader(), "acme", user, old[0])
		if err != nil || r.Status != StatusSuperseded || refID(r.SupersededBy) != "m2" {
			t.Errorf("%q then %q: the old favourite is %s (%v)", c[0], c[1], r.String(), err)
		}
		res, err := e.Recall(s.reader(), Query{Tenant: "acme", User: user, Text: c[2], K: 5})
		if err != nil || len(res.Records) == 0 || res.Records[0].Record.ID != "m2" {
			t.Errorf("%q then %q: recall %+v (%v)", c[0], c[1], res.Records, err)
		}
	}
}

// Statements joined in one sentence after a comma (clauses.go) are records
// of their own: forgetting one erases its words from the store and the
// index, and leaves its sibling, its words and its speaker, found as
// before. In English and in Chinese.
func TestOneStatementOfASentenceIsForgottenAlone(t *testing.T) {
	at := time.Date(2025, 1, 5, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, text, speaker   string
		forget, gone          string // the record forgotten, a word only it says
		keep, kept, keptQuery string // its sibling, its text, a query finding it
	}{
		{"en", "Dana: I'm allergic to penicillin, and my car's tyres should be at 35 psi.", "Dana",
			"m1", "penicillin", "m1#2", "my car's tyres should be at 35 psi", "car tyres psi"},
		{"zh", "张伟：我不吃香菜，另外我对芒果过敏。", "张伟",
			"m1#2", "芒果", "m1", "张伟：我不吃香菜", "香菜"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := NewEngine(Config{}, nil)
			s := newPebbleStore(t)
			if ids := applyMessage(t, e, s, "u1", "m1", c.text, at); fmt.Sprint(ids) != "[m1 m1#2]" {
				t.Fatalf("records %v, want one per statement", ids)
			}
			forget := &events.Event{ID: "f1", Tenant: "acme", User: "u1", At: at.Add(time.Hour).UnixNano(),
				Body: &events.MemoryForgotten{ID: c.forget}}
			forget.Kind = forget.Body.Kind()
			if err := s.apply(e, forget); err != nil {
				t.Fatal(err)
			}
			if where, ok := rawContains(s.reader(), []byte(c.gone)); ok {
				t.Errorf("the forgotten statement's %q is still in %s", c.gone, where)
			}
			r, err := e.Get(s.reader(), "acme", "u1", c.keep)
			if err != nil || r.Status != StatusActive || r.Text != c.kept || r.Speaker != c.speaker || r.Message != "m1" {
				t.Fatalf("the sibling: %+v, %v", r, err)
			}
			res, err := e.Recall(s.reader(), Query{Tenant: "acme", User: "u1", Text: c.keptQuery, K: 5, At: at.Add(2 * time.Hour).UnixNano()})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Records) == 0 || res.Records[0].Record.ID != c.keep {
				t.Errorf("recall %q: %+v, want %s first", c.keptQuery, res.Records, c.keep)
			}
		})
	}
}

// TestTheFirstStatementIsNamedHashOne: a message's records are "<m>",
// "<m>#2", …, so a reader counting them names the first "<m>#1"; a
// forgetting of "<m>#1" forgets that statement alone, Forgotten reports
// it, and the view equals its rebuild from the log. Where "<m>#1" is a message's own id (its records are
// "<m>%231", …), it does not name m's first.
func TestTheFirstStatementIsNamedHashOne(t *testing.T) {
	at := time.Date(2025, 1, 5, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name     string
		messages [][2]string // id, text, in order
		forget   string
		gone     string // a word only the forgotten statement says
		erased   string // what Forgotten reports
		kept     []string
	}{
		{"en first of two", [][2]string{{"m1", "My door code is 4471. I go swimming every Tuesday evening."}},
			"m1#1", "4471", "[m1]", []string{"m1#2"}},
		{"zh first of two", [][2]string{{"m1", "我家Wi-Fi密码是qwe73519。我每周二晚上去社区上瑜伽课。"}},
			"m1#1", "qwe73519", "[m1]", []string{"m1#2"}},
		// not m1's first: m1#1 names a message of its own here
		{"a message named m1#1", [][2]string{{"m1", "I go swimming every Tuesday evening."}, {"m1#1", "My door code is 4471."}},
			"m1#1", "", "", []string{"m1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := NewEngine(Config{}, nil)
			var log []*events.Event
			for _, m := range c.messages {
				evs, err := e.ReplyEvents("acme", "u1", m[0], m[1], "", at.UnixNano())
				if err != nil {
					t.Fatal(err)
				}
				log = append(log, evs...)
			}
			log = append(log, &events.Event{ID: "f1", Tenant: "acme", User: "u1", At: at.Add(time.Hour).UnixNano(),
				Body: &events.MemoryForgotten{ID: c.forget}})
			for _, ev := range log {
				ev.Kind = ev.Body.Kind()
			}
			// the view equals its rebuild from the log with the erased keys destroyed
			s, erased := replayEqualsLive(t, e, log)
			if where, ok := rawContains(s.reader(), []byte(c.gone)); c.gone != "" && ok {
				t.Errorf("forget %s: the statement's %q is still in %s", c.forget, c.gone, where)
			}
			if got := erased["u1/"+c.forget]; c.erased != "" && fmt.Sprint(got) != c.erased {
				t.Errorf("Forgotten(%s) = %v; want %s", c.forget, got, c.erased)
			}
			for _, id := range c.kept {
				if r, err := e.Get(s.reader(), "acme", "u1", id); err != nil || r.Status != StatusActive {
					t.Errorf("%s: %+v, %v; want it kept", id, r, err)
				}
			}
		})
	}
}
