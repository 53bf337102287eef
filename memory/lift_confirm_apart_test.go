package memory

import (
	"context"
	"strings"
	"testing"
	"time"
)

// An intruder's correction naming another user's held lift by its id, as
// the lift of that very thing (which would confirm it, were it the
// owner's), is rejected as not found in the intruder's own memory: the
// victim's ban stays in force, the lift stays held, neither gains an audit
// link. The memory service on a real server (real NATS, real Pebble).
// TestAHeldLiftIsConfirmedOnlyByItsOwnUser covers the lift said again.
func TestAHeldLiftIsNotConfirmedByAnotherUsersCorrection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := serve(ctx, t, &Service{})
	day := time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)
	at := func(d int) string { return day.AddDate(0, 0, d).Format(time.RFC3339Nano) }
	say := func(text, id string, d int) string {
		t.Helper()
		out, err := s.message(ctx, &Op{Tenant: "acme", User: "victim", ID: id, Text: text, Time: at(d)})
		if err != nil {
			t.Fatal(err)
		}
		w := out.(WriteReply)
		if !w.Applied || len(w.Records) != 1 {
			t.Fatalf("%q: %+v", text, w)
		}
		return w.Records[0].ID
	}
	stillHeld := func(when, ban, lift string) {
		t.Helper()
		v := s.Runner.View()
		defer v.Close()
		b, err := s.Engine.Get(v, "acme", "victim", ban)
		if err != nil {
			t.Fatal(err)
		}
		l, err := s.Engine.Get(v, "acme", "victim", lift)
		if err != nil {
			t.Fatal(err)
		}
		if b.Status != StatusActive || b.SupersededBy != "" || l.Status != StatusNeedsConfirmation || len(l.Supersedes) != 0 {
			t.Fatalf("%s: the victim's ban %s; the victim's lift %s", when, b.String(), l.String())
		}
	}
	ban := say("I'm allergic to cats.", "b1", 0)
	lift := say("Dogs are fine again now.", "l1", 1)
	stillHeld("held", ban, lift)

	for _, tenant := range []string{"acme", "globex"} {
		out, err := s.write(ctx, &Op{Op: "correct", Tenant: tenant, User: "intruder", ID: lift, ExpectedVersion: 1, Time: at(2),
			Kind: "constraint", Subject: "general", Attribute: "dog", Polarity: "positive", Text: "Dogs are fine again."})
		if err != nil {
			t.Fatal(err)
		}
		if w := out.(WriteReply); w.Applied || !strings.Contains(w.Rejected, ErrNotFound.Error()) {
			t.Errorf("%s/intruder's correction of the victim's lift: %+v, want rejected as not found", tenant, w)
		}
		stillHeld(tenant+"/intruder corrected it", ban, lift)
	}
}
