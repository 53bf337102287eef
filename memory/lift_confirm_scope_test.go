package memory

import (
	"context"
	"testing"
	"time"
)

// TestAHeldLiftIsConfirmedOnlyByItsOwnUser: a lift held against a ban
// (needs_confirmation) is confirmed by its own user saying it again, and
// by no one else. The attacker, another user of the same tenant and the
// same user name in another tenant, says the very lift through the memory
// service on a real server (each statement its own record there); the
// victim's ban stays in force, its lift stays held, neither gains an
// audit link, and the victim's own confirmation still ends the ban.
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
	ban := say("acme", "victim", "b1", "I'm allergic to cats.", 0)
	lift := say("acme", "victim", "l1", "Dogs are fine again now.", 1)
	if b, l := get("acme", "victim", ban), get("acme", "victim", lift); b.Status != StatusActive || l.Status != StatusNeedsConfirmation {
		t.Fatalf("not held: the ban %s; the lift %s", b.String(), l.String())
	}

	// The same words, later, by another user of acme and by globex's
	// user of the same name, each after a ban of their own.
	for _, who := range []struct{ tenant, user string }{{"acme", "other"}, {"globex", "victim"}} {
		say(who.tenant, who.user, "b1", "I'm allergic to cats.", 0)
		say(who.tenant, who.user, "l1", "Dogs are fine again now.", 1)
		say(who.tenant, who.user, "l2", "Really, dogs are fine again now.", 2)
	}
	b, l := get("acme", "victim", ban), get("acme", "victim", lift)
	if b.Status != StatusActive || b.SupersededBy != "" {
		t.Errorf("another user's or tenant's statement ended the victim's ban: %s", b.String())
	}
	if l.Status != StatusNeedsConfirmation || len(l.Supersedes) != 0 {
		t.Errorf("another user's or tenant's statement confirmed the victim's held lift: %s", l.String())
	}
	v := s.Runner.View()
	in, err := s.Engine.InForce(v, "acme", "victim", day.AddDate(0, 0, 3).UnixNano())
	v.Close()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range in {
		found = found || r.ID == ban
	}
	if !found {
		t.Errorf("the victim's ban is no longer in force: %v", in)
	}

	// The victim's own confirmation still ends it.
	say("acme", "victim", "l2", "Really, dogs are fine again now.", 3)
	if b, l := get("acme", "victim", ban), get("acme", "victim", lift); b.Status != StatusSuperseded || l.Status != StatusActive || b.SupersededBy != l.Ref() {
		t.Errorf("the victim's confirmation: the ban %s; the lift %s", b.String(), l.String())
	}
}
