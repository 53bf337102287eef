package lanes

import (
	"context"
	"math/rand/v2"
	"time"
)

// An asker refused busy (its lane full) asks again after a wait drawn at
// random below RetryFirst, doubled for each later refusal up to RetryMax
// (capped exponential backoff, full jitter): a burst larger than a lane
// is answered as the lane drains, and the askers of one burst spread out
// instead of coming back together. Only a busy refusal is asked again; a
// refusal of what was asked (4xx) never is.
const (
	RetryFirst = 10 * time.Millisecond
	RetryMax   = time.Second
)

// Backoff is the wait before asking again after the n-th busy refusal
// (1, 2, …).
func Backoff(n int) time.Duration {
	d := RetryFirst
	for i := 1; i < n && d < RetryMax; i++ {
		d *= 2
	}
	return time.Duration(rand.Int64N(int64(min(d, RetryMax)) + 1))
}

// Wait waits Backoff(n), or until ctx ends (then its error).
func Wait(ctx context.Context, n int) error {
	t := time.NewTimer(Backoff(n))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
