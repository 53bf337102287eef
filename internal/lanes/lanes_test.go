package lanes

import (
	"sync"
	"testing"
	"time"
)

// TestLanes: a lane whose first request is held keeps the rest in order and
// refuses past its bound, while another lane's request is answered; once
// released, the held lane answers what it took, in order.
func TestLanes(t *testing.T) {
	for _, tc := range []struct {
		name               string
		laneMax, queuedMax int
		wantTaken          int // of 10 submitted to the held lane
		otherTaken         bool
	}{
		{"lane bound", 4, 100, 4, true},
		{"whole bound", 100, 5, 5, false},
		{"room for all", 100, 100, 10, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := New(tc.laneMax, tc.queuedMax)
			release, started := make(chan struct{}), make(chan struct{})
			var mu sync.Mutex
			var order []int
			var done sync.WaitGroup
			taken := 0
			for i := range 10 {
				done.Add(1)
				ok := l.Submit("acme", func() {
					defer done.Done()
					if i == 0 {
						close(started)
						<-release
					}
					mu.Lock()
					order = append(order, i)
					mu.Unlock()
				})
				if ok {
					taken++
				} else {
					done.Done()
				}
			}
			<-started
			other := make(chan struct{})
			if ok := l.Submit("globex", func() { close(other) }); ok != tc.otherTaken {
				t.Fatalf("globex's request taken %v, want %v", ok, tc.otherTaken)
			} else if ok {
				<-other // answered while acme's lane is held
			}
			if taken != tc.wantTaken {
				t.Errorf("acme's lane took %d of 10, want %d", taken, tc.wantTaken)
			}
			close(release)
			done.Wait()
			for i, v := range order {
				if v != i {
					t.Fatalf("acme's lane answered in order %v", order)
				}
			}
			if len(order) != taken {
				t.Errorf("acme's lane answered %d, took %d", len(order), taken)
			}
		})
	}
}

// TestBackoff: the n-th wait is below RetryFirst·2^(n-1), never past
// RetryMax, and drawn at random (not every draw the same).
func TestBackoff(t *testing.T) {
	for _, tc := range []struct {
		n     int
		bound time.Duration
	}{
		{1, RetryFirst}, {2, 2 * RetryFirst}, {4, 8 * RetryFirst}, {30, RetryMax}, {1000, RetryMax},
	} {
		seen := map[time.Duration]bool{}
		for range 50 {
			d := Backoff(tc.n)
			if d < 0 || d > tc.bound {
				t.Fatalf("Backoff(%d) = %v, want in [0, %v]", tc.n, d, tc.bound)
			}
			seen[d] = true
		}
		if len(seen) < 2 {
			t.Errorf("Backoff(%d): 50 draws, %d distinct: no jitter", tc.n, len(seen))
		}
	}
}
