package bus_test

import (
	"slices"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
)

// TestOpenAddsANewSubjectToAnExistingStream: a TS_OUT made by a version
// before constraint checks had their own subject (no ts.check.>) gains
// it when the log is opened again, keeping what it stored; a check
// published on its subject then lands in TS_OUT, where the verifier reads
// it in order with the answers, instead of being refused for want of a
// stream.
func TestOpenAddsANewSubjectToAnExistingStream(t *testing.T) {
	ctx := ctxT(t)
	dir := t.TempDir()
	b, err := bus.Open(ctx, bus.Config{DataDir: dir, Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.JS.Stream(ctx, events.StreamOut)
	if err != nil {
		t.Fatal(err)
	}
	old := s.CachedInfo().Config
	old.Subjects = slices.DeleteFunc(slices.Clone(old.Subjects), func(s string) bool { return s == events.AllChecks })
	if len(old.Subjects) != len(events.StreamSubjects[events.StreamOut])-1 {
		t.Fatalf("TS_OUT's subjects %v hold no %s", events.StreamSubjects[events.StreamOut], events.AllChecks)
	}
	if _, err := b.JS.UpdateStream(ctx, old); err != nil {
		t.Fatal(err)
	}
	answer, _ := events.AnswerSubject("acme", "r1")
	before, err := b.Publish(ctx, answer, &events.Event{ID: "submitted:acme/r1", Tenant: "acme", Response: "r1", At: 1,
		Body: &events.AnswerSubmitted{Text: "Paris is sunny."}})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()

	b = open(t, bus.Config{DataDir: dir})
	info, err := b.Stream(events.StreamOut).Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(info.Config.Subjects, events.StreamSubjects[events.StreamOut]) {
		t.Fatalf("TS_OUT's subjects after opening again: %v, want %v", info.Config.Subjects, events.StreamSubjects[events.StreamOut])
	}
	if m, err := b.Stream(events.StreamOut).GetMsg(ctx, before.Sequence); err != nil || m.Subject != answer {
		t.Fatalf("the answer stored before the upgrade: %v", err)
	}
	check, _ := events.ConstraintCheckSubject("acme", "r1")
	ack, err := b.Publish(ctx, check, &events.Event{ID: "checked:acme/r1", Tenant: "acme", Response: "r1", At: 2,
		Body: &events.ConstraintsChecked{AsOf: 2, InForce: 0}})
	if err != nil {
		t.Fatalf("a check after the upgrade: %v", err)
	}
	if ack.Stream != events.StreamOut || ack.Sequence != before.Sequence+1 {
		t.Fatalf("the check stored in %s at %d, want TS_OUT at %d (after the answer)", ack.Stream, ack.Sequence, before.Sequence+1)
	}
}
