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
func Backoff(n int) time.Duration { return FullJitter(RetryFirst, RetryMax, n) }

// FullJitter is the wait before the n-th retry (1, 2, …) of a capped
// exponential backoff with full jitter: drawn at random below
// first·2^(n-1), at most limit. The busy askers' (Backoff) and the
// gateway's upstream pool's.
func FullJitter(first, limit time.Duration, n int) time.Duration {
	d := first
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	for i := n; i < 1; i++ { // n below 1: first·2^(n-1) still
		d /= 2
	}
	return time.Duration(rand.Int64N(int64(max(min(d, limit), 0)) + 1))
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
