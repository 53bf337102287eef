package executor

import (
	"testing"
	"time"
)

// TestBusyDelayDoublesUpToHeartbeat: an input handed back for its
// tenant's bounds waits Heartbeat/64 at its first delivery, twice as long
// at each delivery after, and Heartbeat from its seventh on, so it comes
// back sooner than Heartbeat at most busyBackoffSteps times.
func TestBusyDelayDoublesUpToHeartbeat(t *testing.T) {
	const hb = time.Second
	want := []time.Duration{hb / 64, hb / 64, hb / 32, hb / 16, hb / 8, hb / 4, hb / 2, hb, hb, hb}
	sooner := 0
	for delivered, w := range want { // delivered 0 (no count) is read as the first
		got := busyDelayAt(hb, uint64(delivered))
		if got != w {
			t.Errorf("delivery %d: delay %s, want %s", delivered, got, w)
		}
		if delivered > 0 && got < hb {
			sooner++
		}
	}
	if got := busyDelayAt(hb, 1<<40); got != hb {
		t.Errorf("a much redelivered input: delay %s, want %s", got, hb)
	}
	if sooner != busyBackoffSteps {
		t.Errorf("%d deliveries wait less than Heartbeat, want %d", sooner, busyBackoffSteps)
	}
}
