package hear

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// A message can be heard before what it announces can be read (the
// stream stores it from its own queue): a waiter that reads on each
// wake-up, with no poll, still reads it, because rechecks follow the
// wake-up. Here what it announces becomes readable 30 ms after the
// message; one wake-up per message (the agent's waits before this package)
// read too early and then waited for the poll, an hour in
// TestADriveIsWokenByTheLogNotAPoll.
func TestAWakeUpHeardBeforeItsMessageIsStoredIsReadAfter(t *testing.T) {
	b := bustest.Start(t)
	const subj = "ts.test.hear"
	h, err := Subject(b.Conn, subj, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var stored atomic.Bool
	if err := b.Conn.Publish(subj, []byte("x")); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(30*time.Millisecond, func() { stored.Store(true) })
	deadline := time.After(5 * time.Second)
	wakes := 0
	for {
		select {
		case <-h.C():
			wakes++
			if stored.Load() {
				if wakes < 2 {
					t.Fatalf("read on wake-up %d", wakes)
				}
				return
			}
		case <-deadline:
			t.Fatalf("after %d wake-ups, never read what the message announced", wakes)
		}
	}
}

// The rechecks end: after the last, a quiet subject wakes nobody, and a
// closed hearing wakes nobody at all.
func TestRechecksEnd(t *testing.T) {
	b := bustest.Start(t)
	const subj = "ts.test.hear.quiet"
	var all time.Duration // from the message to its last recheck
	for d := RecheckFirst; d <= RecheckLast; d *= RecheckFactor {
		all += d
	}
	for _, closeFirst := range []bool{false, true} {
		h, err := Subject(b.Conn, subj, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Conn.Publish(subj, []byte("x")); err != nil {
			t.Fatal(err)
		}
		<-h.C() // the message itself
		quiet := all + 100*time.Millisecond
		if closeFirst {
			h.Close()
			quiet = 0
		}
		time.Sleep(quiet)
		for len(h.C()) > 0 {
			<-h.C()
		}
		select {
		case <-h.C():
			t.Errorf("closed %v: woken after the rechecks ended", closeFirst)
		case <-time.After(all + 100*time.Millisecond):
		}
		h.Close()
	}
}
