package executor

import (
	"sync"
	"time"

	"github.com/toolstream/toolstream/events"
)

// breaker is the circuit breaker of each (tenant, tool): after
// Config.BreakerFailures consecutive failed invocations it opens, and calls
// fail fast with unavailable until Config.BreakerCoolDown has passed by the
// executor's clock. Then one trial call is let through (half-open): its
// success closes the circuit, its failure opens it again.
//
// Each executor process keeps its own breakers: they protect a tool from
// this process's load and need no coordination. Only invocation failures
// count (provider_timeout, tool_error, unavailable); a business_rejected or
// validation_error answer shows a healthy tool. Entries exist only for
// circuits with failures, so the map is bounded by the failing pairs.
type breaker struct {
	n     int
	cool  time.Duration
	clock func() time.Time

	mu sync.Mutex // guards m
	m  map[circuitKey]*circuit
}

// circuitKey names a circuit. A struct, not the two names joined, so that
// a look at the map on every call builds no string.
type circuitKey struct{ tenant, tool string }

type circuit struct {
	fails     int
	openUntil time.Time // zero: closed
	trial     time.Time // a half-open trial began then (zero: none); it lapses after a cool-down
}

func newBreaker(n int, cool time.Duration, clock func() time.Time) *breaker {
	return &breaker{n: n, cool: cool, clock: clock, m: map[circuitKey]*circuit{}}
}

// allow reports whether a call may be invoked now; when not, until says
// when the circuit half-opens.
func (b *breaker) allow(tenant, tool string) (ok bool, until time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.m[circuitKey{tenant, tool}]
	if c == nil || c.openUntil.IsZero() {
		return true, time.Time{}
	}
	now := b.clock()
	if now.Before(c.openUntil) {
		return false, c.openUntil
	}
	if !c.trial.IsZero() && now.Before(c.trial.Add(b.cool)) {
		return false, c.trial.Add(b.cool)
	}
	c.trial = now
	return true, time.Time{}
}

// counts reports whether an invocation that ended with et says the tool is
// unhealthy.
func counts(et events.ErrorType) bool {
	return et == events.ErrProviderTimeout || et == events.ErrToolError || et == events.ErrUnavailable
}

// record notes an invocation's end: et is "" on success.
func (b *breaker) record(tenant, tool string, et events.ErrorType) {
	k := circuitKey{tenant, tool}
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.m[k]
	if !counts(et) {
		delete(b.m, k)
		return
	}
	if c == nil {
		c = &circuit{}
		b.m[k] = c
	}
	c.fails++
	if !c.trial.IsZero() || c.fails >= b.n {
		c.trial = time.Time{}
		c.openUntil = b.clock().Add(b.cool)
	}
}
