package memory

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A held lift is confirmed only by its own user saying it again: the same
// words from another user of the tenant, or from a user of the same name
// in another tenant, end no ban of the victim's and leave the victim's
// lift held; an intruder's correction naming the victim's lift by its id
// is rejected (not found in the intruder's memory) and changes nothing.
// The memory service on a real server (real NATS, real Pebble).
func TestAHeldLiftIsConfirmedOnlyByItsOwnUser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := serve(ctx, t, &Service{})
	day := time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)
	at := func(d int) string { return day.AddDate(0, 0, d).Format(time.RFC3339Nano) }
	say := func(tenant, user, id, text string, d int) string {
		t.Helper()
		out, err := s.message(ctx, &Op{Tenant: tenant, User: user, ID: id, Text: text, Time: at(d)})
		if err != nil {
			t.Fatal(err)
		}
		w := out.(WriteReply)
		if !w.Applied || len(w.Records) != 1 {
			t.Fatalf("%s/%s %q: %+v", tenant, user, text, w)
		}
		return w.Records[0].ID
	}
	get := func(tenant, user, id string) Record {
		t.Helper()
		v := s.Runner.View()
		defer v.Close()
		r, err := s.Engine.Get(v, tenant, user, id)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	stillHeld := func(when, ban, lift string) {
		t.Helper()
		b, l := get("acme", "victim", ban), get("acme", "victim", lift)
		if b.Status != StatusActive || b.SupersededBy != "" || l.Status != StatusNeedsConfirmation || len(l.Supersedes) != 0 {
			t.Fatalf("%s: the victim's ban %s; the victim's lift %s", when, b.String(), l.String())
		}
	}

	ban := say("acme", "victim", "b1", "I'm allergic to cats.", 0)
	lift := say("acme", "victim", "l1", "Dogs are fine again now.", 1)
	stillHeld("held", ban, lift)

	// another user of the tenant, who also holds a cat ban, says the lift
	// twice: their own lift is held and then confirmed, the victim's not
	say("acme", "intruder", "b1", "I'm allergic to cats.", 0)
	say("acme", "intruder", "l1", "Dogs are fine again now.", 1)
	say("acme", "intruder", "l2", "Really, dogs are fine again now.", 2)
	stillHeld("another user said it again", ban, lift)
	if b := get("acme", "intruder", "b1"); b.Status != StatusSuperseded {
		t.Errorf("the intruder's own held lift was not confirmed (the test proves nothing): %s", b.String())
	}

	// the same user name in another tenant says it again
	say("globex", "victim", "l2", "Really, dogs are fine again now.", 2)
	stillHeld("another tenant said it again", ban, lift)

	// the intruder corrects the victim's lift by its id, as a lift
	out, err := s.write(ctx, &Op{Op: "correct", Tenant: "acme", User: "intruder2", ID: lift, ExpectedVersion: 1, Time: at(3),
		Kind: "constraint", Subject: "general", Attribute: "dog", Polarity: "positive", Text: "Dogs are fine again."})
	if err != nil {
		t.Fatal(err)
	}
	if w := out.(WriteReply); w.Applied || !strings.Contains(w.Rejected, ErrNotFound.Error()) {
		t.Errorf("the intruder's correction of another user's lift: %+v, want rejected as not found", w)
	}
	stillHeld("another user corrected it", ban, lift)

	// the victim saying it again still confirms it
	say("acme", "victim", "l2", "Really, dogs are fine again now.", 4)
	if b, l := get("acme", "victim", ban), get("acme", "victim", lift); b.Status != StatusSuperseded || l.Status != StatusActive {
		t.Errorf("the victim's own confirmation: the ban %s; the lift %s", b.String(), l.String())
	}
}
