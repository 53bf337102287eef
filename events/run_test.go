package events_test

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// Run events live in TS_OUT, beside the results they are made of, and
// every run id builder names one cause only.
func TestRunSubjectsAndIDs(t *testing.T) {
	subj, err := events.RunSubject("acme", "run.1")
	if err != nil {
		t.Fatal(err)
	}
	if st, err := events.StreamOf(subj); err != nil || st != events.StreamOut {
		t.Fatalf("StreamOf(%s) = %s, %v; want TS_OUT", subj, st, err)
	}
	if _, err := events.RunSubject("", "r"); err == nil {
		t.Fatal("a run subject without a tenant")
	}
	ids := []string{
		events.RunCallID("acme", "r/1", "i", events.CallVerdictCompleted), events.RunCallID("acme", "r", "1/i", events.CallVerdictCompleted),
		events.RunCallID("acme", "r", "i", events.CallVerdictRejected),
		events.RoundSettledID("acme", "a/b", "c"), events.RoundSettledID("acme", "a", "b/c"),
		events.RunDegradedID("acme", "a", 1), events.RunDegradedID("acme", "a", 2),
		events.ReplanID("acme", "a", 1, events.ReplanNoNewEvidence), events.ReplanID("acme", "a", 1, events.ReplanBudgetShort),
		events.PlanWriteID("acme", "a", 1, "d"), events.PlanWriteID("acme", "a", 2, "d"), events.PlanWriteID("acme", "a", 1, "e"),
		events.RunMessageID("acme", "a", "m"), events.RunMessageID("globex", "a", "m"),
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("two causes share the id %q", id)
		}
		seen[id] = true
	}
	if r := events.RunOf(&events.Event{Response: "resp"}); r != "resp" {
		t.Fatalf("a response with no run is its own run: %q", r)
	}
	if r := events.RunOf(&events.Event{Run: "run", Response: "resp"}); r != "run" {
		t.Fatalf("RunOf = %q", r)
	}
}
