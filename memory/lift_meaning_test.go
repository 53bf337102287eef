package memory

import (
	"maps"
	"testing"
	"time"
)

// A lift said in other words than its ban ends the ban it means, found by
// meaning among the user's bans in force: the ban is superseded by the
// lift (both ways linked), and a ban it does not mean stays active. A lift
// that means none of them ends none.
func TestALiftInOtherWordsEndsItsBan(t *testing.T) {
	at := time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)
	cases := []struct {
		name        string
		bans        []string // said in order, each a message of its own
		lift        string
		lifted      int // index of the ban the lift ends; -1 for none
		liftedState Status
	}{
		{"seafood for shrimp (a kind of a kind)", []string{"I'm allergic to peanuts.", "I'm allergic to shrimp."},
			"Seafood is fine for me again.", 1, StatusSuperseded},
		{"climbing steps for stairs", []string{"I can't do stairs since the operation."},
			"I'm fine climbing steps again.", 0, StatusSuperseded},
		{"citrus for grapefruit", []string{"I have to keep away from grapefruit.", "I'm avoiding alcohol."},
			"Citrus is no problem for me anymore.", 0, StatusSuperseded},
		{"its own thing, of a request", []string{"Please don't book me any red-eye flights."},
			"Red-eye flights are fine again now.", 0, StatusSuperseded},
		{"a lift of nothing banned", []string{"I'm allergic to peanuts.", "I'm avoiding alcohol."},
			"I can run again.", -1, StatusActive},
		{"Chinese: a word held in the ban's", []string{"我对芒果干过敏。"},
			"我又能吃芒果了。", 0, StatusSuperseded},
		{"words held in the ban's", []string{"I can't eat dried mango."},
			"Mango is fine for me again.", 0, StatusSuperseded},
		{"the broader kind of the ban's thing", []string{"I'm avoiding cheese."},
			"I can have dairy again.", 0, StatusSuperseded},
		{"shellfish after shrimp", []string{"I'm allergic to shrimp."},
			"Shellfish is fine for me again.", 0, StatusSuperseded},
		{"alcohol after wine (broader by the data, far in the word vectors: 0.43)", []string{"I'm allergic to peanuts.", "I'm avoiding wine."},
			"Alcohol is fine for me again.", 1, StatusSuperseded},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := NewEngine(Config{}, nil)
			s := newPebbleStore(t)
			var banIDs []string
			for i, b := range c.bans {
				ids := applyMessage(t, e, s, "u1", "b"+string(rune('1'+i)), b, at.Add(time.Duration(i)*time.Hour))
				if len(ids) != 1 {
					t.Fatalf("%q: records %v", b, ids)
				}
				if r, _ := e.Get(s.reader(), "acme", "u1", ids[0]); r.Kind != KindConstraint || r.Polarity != Negative {
					t.Fatalf("%q: not a ban: %s", b, r.String())
				}
				banIDs = append(banIDs, ids[0])
			}
			ids := applyMessage(t, e, s, "u1", "l1", c.lift, at.Add(24*time.Hour))
			if len(ids) != 1 {
				t.Fatalf("%q: records %v", c.lift, ids)
			}
			lift, _ := e.Get(s.reader(), "acme", "u1", ids[0])
			for i, id := range banIDs {
				r, _ := e.Get(s.reader(), "acme", "u1", id)
				if i != c.lifted {
					if r.Status != StatusActive {
						t.Errorf("a ban the lift does not mean: %s", r.String())
					}
					continue
				}
				if r.Status != c.liftedState || refID(r.SupersededBy) != lift.ID || len(lift.Supersedes) != 1 {
					t.Errorf("the ban: %s; the lift: %s", r.String(), lift.String())
				}
				if lift.Subject != r.Subject || lift.Attribute != r.Attribute {
					t.Errorf("the lift %s is not in its ban's slot %s/%s", lift.String(), r.Subject, r.Attribute)
				}
			}
		})
	}
}

// A favourite of no known kind ("actually I prefer orchids now") takes the
// kind of the user's favourite nearest it in meaning and supersedes it
// there; the favourite of another kind stays, and one near none stands
// on its own.
func TestAFavouriteOfNoKnownKindTakesTheNearestKind(t *testing.T) {
	at := time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)
	e := NewEngine(Config{}, nil)
	s := newPebbleStore(t)
	flower := applyMessage(t, e, s, "u1", "m1", "My favourite flower is the tulip.", at)
	colour := applyMessage(t, e, s, "u1", "m2", "My favourite colour is green.", at.Add(time.Hour))
	orchid := applyMessage(t, e, s, "u1", "m3", "Actually I prefer orchids now.", at.Add(24*time.Hour))
	if len(flower) != 1 || len(colour) != 1 || len(orchid) != 1 {
		t.Fatalf("records %v %v %v", flower, colour, orchid)
	}
	get := func(id string) Record {
		r, err := e.Get(s.reader(), "acme", "u1", id)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	o, f := get(orchid[0]), get(flower[0])
	if o.Attribute != f.Attribute || f.Status != StatusSuperseded || refID(f.SupersededBy) != o.ID {
		t.Errorf("the new favourite %s; the old one %s", o.String(), f.String())
	}
	if c := get(colour[0]); c.Status != StatusActive {
		t.Errorf("a favourite of another kind: %s", c.String())
	}
	far := applyMessage(t, e, s, "u1", "m4", "Honestly I prefer mornings.", at.Add(48*time.Hour))
	if r := get(far[0]); r.Attribute != "general" || get(orchid[0]).Status != StatusActive || get(colour[0]).Status != StatusActive {
		t.Errorf("a favourite near none: %s", r.String())
	}
}

// A lift near a ban in meaning but not shown by the language data to be
// the ban's thing or a kind of it never ends the ban: siblings of one kind
// (dog and cat, peanut and almond, almond milk and milk, one medicine and
// another) are near in word vectors and still different things, and
// ending a safety constraint wrongly is the worst error memory can make.
// The ban stays active; a lift the word vectors matched to it is kept as a
// statement that needs confirmation, and recall shows it among conflicts.
func TestASiblingLiftNeverEndsItsBan(t *testing.T) {
	at := time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)
	cases := []struct {
		name, ban, lift string
		unsure          bool // the lift needs confirmation (matched by meaning alone)
	}{
		{"dog after a cat allergy", "I'm allergic to cats.", "Dogs are fine again now.", true},
		{"peanuts after tree nuts", "I'm allergic to tree nuts.", "I can eat peanuts again.", false},
		{"almonds after peanuts", "I'm allergic to peanuts.", "I can eat almonds again.", true},
		{"peanuts after shellfish", "I'm allergic to shellfish.", "I can eat peanuts again.", false},
		{"almond milk after milk", "I can't have milk.", "Almond milk is fine now.", true},
		{"almond milk after dairy", "I can't have dairy.", "Almond milk is fine now.", false},
		{"almond milk after lactose", "I'm lactose intolerant.", "Almond milk is fine now.", false},
		{"another medicine after a drug allergy", "I'm allergic to penicillin.", "I can take amoxicillin again.", false},
		{"aspirin after ibuprofen", "I'm allergic to ibuprofen.", "Aspirin is fine for me again.", false},
		{"Chinese: a dog after a cat allergy", "我对猫过敏。", "跟狗待在一起也没事了。", false},
		{"Chinese: almonds after peanuts", "我对花生过敏。", "我又能吃杏仁了。", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, s, ban, lift := banThenLift(t, c.ban, c.lift, at)
			if ban.Status != StatusActive || ban.SupersededBy != "" || len(lift.Supersedes) != 0 {
				t.Errorf("the sibling ended the ban: %s; the lift: %s", ban.String(), lift.String())
			}
			if lift.Kind != KindConstraint || lift.Polarity != Positive {
				t.Errorf("not a lift: %s", lift.String())
			}
			if lift.Subject == ban.Subject && lift.Attribute == ban.Attribute {
				t.Errorf("the lift took the ban's slot: %s", lift.String())
			}
			if want := map[bool]Status{true: StatusNeedsConfirmation, false: StatusActive}[c.unsure]; lift.Status != want {
				t.Errorf("the lift is %s, want %s: %s", lift.Status, want, lift.String())
			}
			res, err := e.Recall(s.reader(), Query{Tenant: "acme", User: "u1", K: KMax})
			if err != nil {
				t.Fatal(err)
			}
			if !hitsHold(res.Records, ban.ID) || hitsHold(res.Conflicts, ban.ID) {
				t.Errorf("recall does not hold the ban in force: records %v, conflicts %v", res.Records, res.Conflicts)
			}
			if c.unsure && (!hitsHold(res.Conflicts, lift.ID) || hitsHold(res.Records, lift.ID)) {
				t.Errorf("recall does not show the lift as needing confirmation: records %v, conflicts %v", res.Records, res.Conflicts)
			}
		})
	}
}

// A lift narrower than its ban (its thing a kind of the ban's, or a thing
// that holds it, by the data or by its name holding the ban's and more:
// 芒果干 after 芒果) never ends the ban: "cheese is fine again" after "I can't
// have dairy" says nothing of milk or cream. The ban stays active, in
// force in recall and nowhere marked lifted; the lift is the narrower
// permission the user stated, active in its own slot. Coffee after a caffeine ban (coffee holds caffeine) is narrower too, and
// a lift of what the ban's thing holds (caffeine after coffee) ends
// nothing either: the holder may be banned for more than what it holds.
func TestANarrowerLiftLeavesTheBroaderBan(t *testing.T) {
	at := time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)
	cases := []struct{ name, ban, lift string }{
		{"cheese after dairy", "I can't have dairy.", "Cheese is fine again."},
		{"cheese after avoiding dairy", "I'm avoiding dairy.", "I can have cheese again."},
		{"shrimp after shellfish", "I'm allergic to shellfish.", "I can eat shrimp again."},
		{"almonds after nuts", "I'm allergic to nuts.", "I can eat almonds again."},
		{"coffee after caffeine", "I'm staying off caffeine for now.", "I can finally have coffee again."},
		{"Chinese: cheese after dairy", "我不能吃乳制品。", "我又能吃奶酪了。"},
		{"Chinese: a word holding the ban's", "我对芒果过敏。", "我又能吃芒果干了。"},
		{"words holding the ban's", "I'm allergic to mango.", "I can eat dried mango again."},
		{"caffeine after coffee (what it holds)", "I'm staying off coffee for now.", "I can finally have caffeine again."},
		{"lactose after cheese (what it holds)", "I'm avoiding cheese.", "Lactose is fine for me again."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, s, ban, lift := banThenLift(t, c.ban, c.lift, at)
			if ban.Status != StatusActive || ban.SupersededBy != "" || len(ban.Supersedes) != 0 || len(lift.Supersedes) != 0 {
				t.Errorf("the narrower lift ended the ban: %s; the lift: %s", ban.String(), lift.String())
			}
			if lift.Kind != KindConstraint || lift.Polarity != Positive || lift.Status != StatusActive {
				t.Errorf("not an active lift: %s", lift.String())
			}
			if lift.Subject == ban.Subject && lift.Attribute == ban.Attribute {
				t.Errorf("the lift took the ban's slot: %s", lift.String())
			}
			res, err := e.Recall(s.reader(), Query{Tenant: "acme", User: "u1", K: KMax})
			if err != nil {
				t.Fatal(err)
			}
			if !hitsHold(res.Records, ban.ID) || hitsHold(res.Conflicts, ban.ID) {
				t.Errorf("recall does not hold the ban in force: records %v, conflicts %v", res.Records, res.Conflicts)
			}
			if !hitsHold(res.Records, lift.ID) {
				t.Errorf("recall does not return the narrower permission: records %v, conflicts %v", res.Records, res.Conflicts)
			}
		})
	}
}

// The language data says how a lift's thing stands to a ban's: the same
// thing (or a synonym: steps and stairs), broader (the ban's thing a kind
// of it, through kinds of kinds: nuts and almond), narrower (a kind of the
// ban's thing, or a thing holding it: cheese and lactose, coffee and
// caffeine), held (a thing the ban's holds: caffeine and coffee), or
// unrelated (siblings, things the data does not know).
func TestThingRelationFollowsTheData(t *testing.T) {
	cases := []struct {
		liftSubject, lift, banSubject, ban string
		want                               thingRelation
	}{
		{"food", "nuts", "general", "almond", thingBroader},
		{"general", "almond", "food", "nuts", thingNarrower},
		{"activity", "climb steps", "activity", "stairs", thingSame},
		{"activity", "stairs", "activity", "climb steps", thingSame},
		{"general", "staircase", "activity", "stairs", thingSame},
		{"food", "dairy", "food", "dairy", thingSame},
		{"food", "cheese", "food", "lactose", thingNarrower},
		{"food", "cheese", "food", "dairy", thingNarrower},
		{"food", "dairy", "food", "cheese", thingBroader},
		{"drink", "coffee", "general", "caffeine", thingNarrower},
		{"general", "caffeine", "drink", "coffee", thingHeld},
		{"food", "lactose", "food", "cheese", thingHeld},
		{"food", "dairy", "food", "milk", thingBroader},
		{"food", "milk", "food", "lactose", thingNarrower},
		{"food", "citrus", "food", "grapefruit", thingBroader},
		{"food", "grapefruit", "food", "citrus", thingNarrower},
		{"food", "shrimp", "food", "shellfish", thingNarrower},
		{"food", "shrimp", "food", "seafood", thingNarrower},
		{"food", "花生", "food", "坚果", thingNarrower},
		{"food", "坚果", "food", "花生", thingBroader},
		{"food", "奶酪", "food", "乳制品", thingNarrower},
		{"food", "peanut", "food", "almond", thingUnrelated},
		{"food", "peanut", "food", "tree nut", thingUnrelated},
		{"general", "dogs", "general", "cat", thingUnrelated},
		{"drink", "almond milk", "food", "milk", thingUnrelated},
		{"drink", "almond milk", "food", "dairy", thingUnrelated},
		{"general", "amoxicillin", "general", "penicillin", thingUnrelated},
		{"general", "狗", "general", "猫", thingUnrelated},
		{"food", "unicorn meat", "food", "dairy", thingUnrelated},
	}
	for _, c := range cases {
		if got := relateThings(c.liftSubject, c.lift, c.banSubject, c.ban); got != c.want {
			t.Errorf("relateThings(%s/%s, %s/%s) = %v, want %v", c.liftSubject, c.lift, c.banSubject, c.ban, got, c.want)
		}
	}
}

// banThenLift writes the ban, then a day later the lift, as the service
// writes messages (one record each), and returns both records as they stand
// after the lift.
func banThenLift(t *testing.T, banText, liftText string, at time.Time) (*Engine, *pebbleStore, Record, Record) {
	t.Helper()
	e := NewEngine(Config{}, nil)
	s := newPebbleStore(t)
	b := applyMessage(t, e, s, "u1", "b1", banText, at)
	if len(b) != 1 {
		t.Fatalf("%q: records %v", banText, b)
	}
	if r, _ := e.Get(s.reader(), "acme", "u1", b[0]); r.Kind != KindConstraint || r.Polarity != Negative {
		t.Fatalf("%q: not a ban: %s", banText, r.String())
	}
	l := applyMessage(t, e, s, "u1", "l1", liftText, at.Add(24*time.Hour))
	if len(l) != 1 {
		t.Fatalf("%q: records %v", liftText, l)
	}
	ban, _ := e.Get(s.reader(), "acme", "u1", b[0])
	lift, _ := e.Get(s.reader(), "acme", "u1", l[0])
	return e, s, ban, lift
}

// hitsHold reports whether hits hold the record id.
func hitsHold(hits []Hit, id string) bool {
	for _, h := range hits {
		if h.Record.ID == id {
			return true
		}
	}
	return false
}

// TestTiedKindsTakeNoFavourite: a favourite of no known kind takes the
// nearest kind only when one stands clear of the rest; two kinds tied
// (related gives 1 to any value whose words hold another's: "apple"
// beside "green apple" and "apple juice") are ambiguous and give none,
// every time, whichever order the scores' map is read in. Each case is
// built afresh a hundred times, as Go's map order differs from map to
// map.
func TestTiedKindsTakeNoFavourite(t *testing.T) {
	for _, c := range []struct {
		score map[string]float64
		want  string
	}{
		{map[string]float64{"drink": 1, "fruit": 1}, ""},
		{map[string]float64{"fruit": 1, "drink": 1, "flower": 0.2}, ""},
		{map[string]float64{"fruit": 0.9, "drink": 0.5}, "fruit"},
		{map[string]float64{"drink": 0.9, "fruit": 0.85}, ""},
		{map[string]float64{"fruit": liftRelatedMin - 0.01}, ""},
		{map[string]float64{}, ""},
	} {
		for range 100 {
			score := maps.Clone(c.score)
			if got := nearestKind(score); got != c.want {
				t.Fatalf("nearestKind(%v) = %q, want %q", c.score, got, c.want)
			}
		}
	}
}
