package memory

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// A lift the language data relates to several bans ends every one it
// covers (the ban's thing is the lift's, or a kind of it), each superseded
// by the lift with its own audit link, and the lift, standing in its own
// slot, lists them all. A ban it does not cover stays, and a narrower
// lift still never ends a broader ban, whatever else it ends.
func TestALiftEndsEveryBanItCovers(t *testing.T) {
	at := time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		bans  []string // each a message of its own, in order
		lift  string
		ended []int // the bans the lift ends
		slot  string
	}{
		{"seafood after shrimp and crab", []string{"I'm allergic to shrimp.", "I'm allergic to peanuts.", "I'm allergic to crab."},
			"I can eat seafood again.", []int{0, 2}, "food/seafood"},
		{"Chinese: seafood after shrimp and crab", []string{"我对虾过敏。", "我对花生过敏。", "我对螃蟹过敏。"},
			"我现在可以吃海鲜了。", []int{0, 2}, "food/seafood"},
		{"nuts after almonds, walnuts and peanuts (kinds of kinds)", []string{"I'm allergic to almonds.", "I'm allergic to walnuts.", "I'm allergic to peanuts.", "I'm allergic to shellfish."},
			"I can eat nuts again.", []int{0, 1, 2}, "food/nut"},
		{"seafood after a seafood ban and a crab ban", []string{"I can't eat seafood.", "I'm allergic to crab."},
			"I can eat seafood again.", []int{0, 1}, "food/seafood"},
		{"shrimp after a shrimp ban and a shellfish ban: the broader stays", []string{"I'm allergic to shrimp.", "I'm allergic to shellfish."},
			"I can eat shrimp again.", []int{0}, "food/shrimp"},
		{"Chinese: dairy after milk and cheese, lactose stays", []string{"我不能喝牛奶。", "我不能吃奶酪。", "我不能吃乳糖。"},
			"我又能吃乳制品了。", []int{0, 1}, "food/dairy"},
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
				if r, _ := e.Get(s.reader(), "acme", "u1", ids[0]); r.Kind != KindConstraint || r.Polarity != Negative || r.Status != StatusActive {
					t.Fatalf("%q: not a ban in force: %s", b, r.String())
				}
				banIDs = append(banIDs, ids[0])
			}
			ids := applyMessage(t, e, s, "u1", "l1", c.lift, at.Add(24*time.Hour))
			if len(ids) != 1 {
				t.Fatalf("%q: records %v", c.lift, ids)
			}
			lift, _ := e.Get(s.reader(), "acme", "u1", ids[0])
			if lift.Kind != KindConstraint || lift.Polarity != Positive || lift.Status != StatusActive || lift.Subject+"/"+lift.Attribute != c.slot {
				t.Fatalf("the lift: %s, want an active lift in %s", lift.String(), c.slot)
			}
			var want []string
			for i, id := range banIDs {
				r, _ := e.Get(s.reader(), "acme", "u1", id)
				if !slices.Contains(c.ended, i) {
					if r.Status != StatusActive || r.SupersededBy != "" {
						t.Errorf("a ban the lift does not cover: %s", r.String())
					}
					continue
				}
				want = append(want, r.Ref())
				if r.Status != StatusSuperseded || r.SupersededBy != lift.Ref() || r.EndedAt != lift.ObservedAt {
					t.Errorf("a ban the lift covers: %s; the lift: %s", r.String(), lift.String())
				}
			}
			got := slices.Sorted(slices.Values(lift.Supersedes))
			if slices.Sort(want); !slices.Equal(got, want) {
				t.Errorf("the lift supersedes %v, want %v", lift.Supersedes, want)
			}
			res, err := e.Recall(s.reader(), Query{Tenant: "acme", User: "u1", K: KMax})
			if err != nil {
				t.Fatal(err)
			}
			for i, id := range banIDs {
				if inForce := hitsHold(res.Records, id); inForce == slices.Contains(c.ended, i) {
					t.Errorf("recall: ban %s in force %v", id, inForce)
				}
			}
			// the lift forgotten: every ban it ended is in force again, as if
			// it had never been said
			ev := &events.Event{ID: "forget-l1", Tenant: "acme", User: "u1", At: at.Add(48 * time.Hour).UnixNano(),
				Body: &events.MemoryForgotten{ID: lift.ID}}
			if err := s.apply(e, ev); err != nil {
				t.Fatal(err)
			}
			for _, id := range banIDs {
				if r, _ := e.Get(s.reader(), "acme", "u1", id); r.Status != StatusActive || r.SupersededBy != "" || r.EndedAt != 0 {
					t.Errorf("the lift forgotten, a ban it had ended: %s", r.String())
				}
			}
		})
	}
}

// A lift held against a ban (near it in meaning, unrelated by the data:
// needs_confirmation, the ban in force) ends the ban once the user
// confirms it, through the memory service on a real server: said again
// later, or corrected as the lift it is, the lift turns active and
// supersedes the ban (both audit links). When the user declines (says the
// ban again, forgets the lift, or corrects it into a ban of its own
// thing) the ban stays in force, superseded by nothing.
func TestServiceConfirmsAHeldLift(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := serve(ctx, t, &Service{})
	day := time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)
	at := func(d int) string { return day.AddDate(0, 0, d).Format(time.RFC3339Nano) }
	say := func(user, id, text string, d int) string {
		t.Helper()
		out, err := s.message(ctx, &Op{Tenant: "acme", User: user, ID: id, Text: text, Time: at(d)})
		if err != nil {
			t.Fatal(err)
		}
		w := out.(WriteReply)
		if !w.Applied || len(w.Records) != 1 {
			t.Fatalf("%q: %+v", text, w)
		}
		return w.Records[0].ID
	}
	get := func(user, id string) Record {
		t.Helper()
		v := s.Runner.View()
		defer v.Close()
		r, err := s.Engine.Get(v, "acme", user, id)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	held := func(user string) (ban, lift string) {
		t.Helper()
		ban = say(user, "b1", "I'm allergic to cats.", 0)
		lift = say(user, "l1", "Dogs are fine again now.", 1)
		if b, l := get(user, ban), get(user, lift); b.Status != StatusActive || l.Status != StatusNeedsConfirmation || len(l.Supersedes) != 0 {
			t.Fatalf("not held: the ban %s; the lift %s", b.String(), l.String())
		}
		out, err := s.recall(ctx, &Op{Tenant: "acme", User: user, Query: "can I be around dogs?"})
		if err != nil {
			t.Fatal(err)
		}
		if res := out.(RecallOut); !slices.ContainsFunc(res.Conflicts, func(h RecallHit) bool { return h.ID == lift }) {
			t.Fatalf("recall does not ask about the held lift: %+v", res)
		}
		return ban, lift
	}
	ended := func(user, ban, lift string) {
		t.Helper()
		b, l := get(user, ban), get(user, lift)
		if l.Status != StatusActive || b.Status != StatusSuperseded || b.SupersededBy != l.Ref() || !slices.Contains(l.Supersedes, b.Ref()) {
			t.Errorf("%s: confirmed, the ban %s; the lift %s", user, b.String(), l.String())
		}
		v := s.Runner.View()
		defer v.Close()
		in, err := s.Engine.InForce(v, "acme", user, day.AddDate(0, 0, 3).UnixNano())
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(in, func(r Record) bool { return r.ID == ban }) {
			t.Errorf("%s: the ended ban is still in force: %v", user, in)
		}
	}
	stays := func(user, ban string) {
		t.Helper()
		if b := get(user, ban); b.Status != StatusActive || b.SupersededBy != "" {
			t.Errorf("%s: declined, the ban %s", user, b.String())
		}
	}

	// confirmed by saying it again
	ban, lift := held("again")
	say("again", "l2", "Really, dogs are fine again now.", 2)
	ended("again", ban, lift)

	// confirmed by a correction of the held lift, as a lift of its thing
	ban, lift = held("corrected")
	l := get("corrected", lift)
	if _, err := s.write(ctx, &Op{Op: "correct", Tenant: "acme", User: "corrected", ID: lift, ExpectedVersion: l.Version, Time: at(2),
		Kind: "constraint", Subject: l.Subject, Attribute: l.Attribute, Polarity: "positive", Text: "Yes: dogs are fine again, I'm over the cat allergy."}); err != nil {
		t.Fatal(err)
	}
	ended("corrected", ban, lift)

	// declined: the ban said again
	ban, lift = held("restated")
	say("restated", "b2", "No, I'm still allergic to cats.", 2)
	stays("restated", ban)
	if l := get("restated", lift); l.Status == StatusActive {
		t.Errorf("declined, the held lift turned active: %s", l.String())
	}

	// declined: the held lift forgotten
	ban, lift = held("forgot")
	if _, err := s.write(ctx, &Op{Op: "forget", Tenant: "acme", User: "forgot", ID: lift, Time: at(2)}); err != nil {
		t.Fatal(err)
	}
	stays("forgot", ban)

	// declined: corrected into a ban of its own thing
	ban, lift = held("negated")
	l = get("negated", lift)
	if _, err := s.write(ctx, &Op{Op: "correct", Tenant: "acme", User: "negated", ID: lift, ExpectedVersion: l.Version, Time: at(2),
		Kind: "constraint", Subject: l.Subject, Attribute: l.Attribute, Polarity: "negative", Text: "No, keep me away from dogs too."}); err != nil {
		t.Fatal(err)
	}
	stays("negated", ban)
}

// A Chinese lift in other words than 又能吃 (an allergy said to be over,
// the thing put before 我, 重新, no more need to keep off it) ends its ban,
// in its own slot or, broader, in the ban's: the ban superseded by the
// lift, both audit links.
func TestChineseLiftsInOtherWordsEndTheirBan(t *testing.T) {
	at := time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct{ ban, lift string }{
		{"我对花生过敏。", "我已经不对花生过敏了。"},
		{"我对花生过敏。", "我对花生已经不过敏了。"},
		{"我对花生过敏。", "花生过敏已经好了。"},
		{"我不能吃海鲜。", "海鲜我现在可以吃了。"},
		{"我不能吃海鲜。", "我可以重新吃海鲜了。"},
		{"我不能吃海鲜。", "我不用再忌口海鲜了。"},
		{"我戒酒了。", "我不用再戒酒了。"},
		{"我对虾过敏。", "海鲜我现在可以吃了。"},
		{"我不能吃坚果。", "坚果已经没问题了。"},
		{"我对花生过敏。", "我的花生过敏好了。"},
		{"我在控糖。", "我已经不用控糖了。"},
		{"我忌口海鲜。", "我不再忌口海鲜了。"},
		{"我不能喝牛奶。", "我现在能正常喝牛奶了。"},
	} {
		t.Run(c.ban+c.lift, func(t *testing.T) {
			_, _, ban, lift := banThenLift(t, c.ban, c.lift, at)
			if lift.Kind != KindConstraint || lift.Polarity != Positive || lift.Status != StatusActive {
				t.Fatalf("not an active lift: %s", lift.String())
			}
			if ban.Status != StatusSuperseded || ban.SupersededBy != lift.Ref() || !slices.Contains(lift.Supersedes, ban.Ref()) {
				t.Errorf("the ban %s; the lift %s", ban.String(), lift.String())
			}
		})
	}
}
