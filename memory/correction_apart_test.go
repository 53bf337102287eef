package memory

import (
	"context"
	"testing"
	"time"
)

// TestACorrectionReplacesOnlyItsOwnUsersStatement: a correction naming
// the value it replaces (correction.go) looks for the statement it
// corrects among its own user's records only. Another user of the tenant,
// and a user of the same name in another tenant, who say the correction of
// the victim's value have it kept as an episode that slots nothing (they
// never stated that value), and the victim's statement stays active, of
// its value, with no superseding link; once the intruder has stated the
// value themselves, the same words correct the intruder's statement (so the
// correction is read, and the test can fail), and still not the victim's.
// The memory service on a real server (real NATS, real Pebble), in English
// and in Chinese.
func TestACorrectionReplacesOnlyItsOwnUsersStatement(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := serve(ctx, t, &Service{})
	day := time.Date(2026, 2, 2, 8, 0, 0, 0, time.UTC)
	at := func(h int) string { return day.Add(time.Duration(h) * time.Hour).Format(time.RFC3339Nano) }
	say := func(tenant, user, id, text string, h int) {
		t.Helper()
		out, err := s.message(ctx, &Op{Tenant: tenant, User: user, ID: id, Text: text, Time: at(h)})
		if err != nil {
			t.Fatal(err)
		}
		if w := out.(WriteReply); !w.Applied || len(w.Records) != 1 || w.Records[0].ID != id {
			t.Fatalf("%s/%s %q: %+v", tenant, user, text, w)
		}
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
	for _, c := range []struct {
		name, stated, correction, victimWant, intruderWant string
	}{
		{"en", "My book club is held at the Crown Inn.", "The Red Lion, not the Crown Inn.", "my/book club=Crown Inn", "my/book club=Red Lion"},
		{"zh", "我订的花店是花语。", "是花田，不是花语。", "my/花店=花语", "my/花店=花田"},
	} {
		t.Run(c.name, func(t *testing.T) {
			victim := "victim-" + c.name
			intruder := "intruder-" + c.name
			say("acme", victim, "v1", c.stated, 0)
			intact := func(when string) {
				t.Helper()
				r := get("acme", victim, "v1")
				if got := r.Subject + "/" + r.Attribute + "=" + r.Value; got != c.victimWant || r.Status != StatusActive || r.SupersededBy != "" {
					t.Fatalf("%s: the victim's statement %s, want %s active and not superseded", when, r.String(), c.victimWant)
				}
			}
			intact("stated")

			// another user of the tenant and the victim's name in another
			// tenant say the correction: it corrects nothing of theirs
			say("acme", intruder, "c1", c.correction, 1)
			say("globex", victim, "c1", c.correction, 1)
			intact("corrected by other users")
			for _, tu := range [][2]string{{"acme", intruder}, {"globex", victim}} {
				if r := get(tu[0], tu[1], "c1"); r.Slotted() || len(r.Supersedes) != 0 {
					t.Errorf("%s/%s's correction of a value they never stated: %s, want an episode", tu[0], tu[1], r.String())
				}
			}

			// the intruder states the value, then corrects it: their own
			// statement is replaced, the victim's is not
			say("acme", intruder, "i1", c.stated, 2)
			say("acme", intruder, "c2", c.correction, 3)
			own, nu := get("acme", intruder, "i1"), get("acme", intruder, "c2")
			if got := nu.Subject + "/" + nu.Attribute + "=" + nu.Value; got != c.intruderWant || own.Status != StatusSuperseded || own.SupersededBy != nu.Ref() {
				t.Errorf("the intruder's own correction: %s over %s, want %s superseding it (the test proves nothing)", nu.String(), own.String(), c.intruderWant)
			}
			intact("the intruder corrected their own")
		})
	}
}
