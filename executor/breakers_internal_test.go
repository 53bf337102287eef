package executor

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestBreakersSnapshot: the snapshot says of each failing circuit how many
// failures it has and whether it is closed, open (until when) or half-open,
// by the breaker's clock; a success forgets the circuit.
func TestBreakersSnapshot(t *testing.T) {
	now := time.Unix(1000, 0)
	b := newBreaker(2, time.Minute, func() time.Time { return now })
	b.record("acme", "a", events.ErrToolError)
	b.record("acme", "b", events.ErrToolError)
	b.record("acme", "b", events.ErrToolError)
	b.record("beta", "c", events.ErrToolError)
	b.record("beta", "c", "")
	got := b.snapshot()
	want := []Breaker{
		{Tenant: "acme", Tool: "a", Failures: 1, State: "closed"},
		{Tenant: "acme", Tool: "b", Failures: 2, State: "open", OpenUntil: now.Add(time.Minute)},
	}
	if len(got) != len(want) {
		t.Fatalf("snapshot %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("circuit %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	now = now.Add(2 * time.Minute)
	if s := b.snapshot()[1].State; s != "half_open" {
		t.Errorf("after the cool-down: %s, want half_open", s)
	}
}
