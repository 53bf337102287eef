package executor

import (
	"testing"
	"time"
)

// TestHandBackGrowsWithDeliveries: the wait of an input handed back is
// drawn below a bound that doubles with each of its deliveries up to its
// limit, busy from Heartbeat/64 to Heartbeat (at least busyMaxMin),
// failed from Heartbeat to handBackLeasesMax leases; never above the bound, and its mean doubles
// while the bound does (200 draws a delivery: the two means are about 25
// standard errors apart, so a backoff that does not grow fails).
func TestHandBackGrowsWithDeliveries(t *testing.T) {
	const hb, lease, draws = 50 * time.Millisecond, 200 * time.Millisecond, 200
	for _, tc := range []struct {
		name         string
		first, limit time.Duration
	}{
		{"busy", hb >> busyBackoffSteps, max(hb, busyMaxMin)},
		{"failed", hb, handBackLeasesMax * lease},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bound, prevMean := tc.first, time.Duration(0)
			for delivered := uint64(0); delivered <= 16; delivered++ { // 0 (no count) is read as the first
				if delivered > 1 {
					bound = min(2*bound, tc.limit)
				}
				var sum time.Duration
				for range draws {
					d := handBackAt(tc.first, tc.limit, delivered)
					if d < 0 || d > bound {
						t.Fatalf("delivery %d: wait %s outside [0, %s]", delivered, d, bound)
					}
					sum += d
				}
				mean := sum / draws
				if mean < bound/4 {
					t.Errorf("delivery %d: mean wait %s, far below half its bound %s", delivered, mean, bound)
				}
				if delivered > 1 && bound < tc.limit && mean <= prevMean {
					t.Errorf("delivery %d: mean wait %s, not above delivery %d's %s", delivered, mean, delivered-1, prevMean)
				}
				prevMean = mean
			}
			if bound != tc.limit {
				t.Fatalf("bound %s after 16 deliveries, want the limit %s", bound, tc.limit)
			}
			for range draws {
				if d := handBackAt(tc.first, tc.limit, 1<<40); d > tc.limit {
					t.Fatalf("a much redelivered input waits %s, past the limit %s", d, tc.limit)
				}
			}
		})
	}
}
