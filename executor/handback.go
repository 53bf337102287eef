package executor

import (
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/internal/lanes"
)

// An input handed back (NakWithDelay) waits longer the more often it was
// delivered: capped exponential backoff with full jitter by its delivery
// count (lanes.FullJitter, the busy askers' and the upstream pool's),
// drawn at random below first·2^(delivered-1), at most limit. Without it
// a call that could not be handled came back after a fixed wait however
// often it had come back before: with short leases on a loaded machine
// (TestKilledExecutorsLoseNothingAndRepeatNothing, Heartbeat 50 ms) every
// record read that timed out was asked again within a Heartbeat, every
// lease seen held was looked at again within half a Heartbeat of its end,
// and the executors' own requests kept the bucket from answering the
// lease renewals in time: leases ran out under live executors, calls were
// taken over again and again (one 17 times), and half the calls had no
// outcome after two minutes. The jitter spreads the inputs that failed
// together (a server that stalled, an executor that died) so they do not
// come back together.
//
// Two kinds of hand-back, by how soon the input may be handled:
//
//   - busy (busyDelay): its tenant is at a bound (fair.go, the tenant's
//     slots), or this executor stops. Slots free up quickly: the bound
//     starts at Heartbeat >> busyBackoffSteps, so a tenant's burst of quick
//     calls is held up a few milliseconds past its bound, not a Heartbeat
//     each time it comes back while the burst drains.
//   - failed (retryDelay): handling failed (the bucket or the log did not
//     answer, the record kept changing), this process handles the call
//     already, or another executor's lease on it is seen held (then the
//     lease's remaining term first: a takeover of a lease just run out
//     waits for the jitter, and a slow but live owner whose renewal comes
//     late keeps it). The bound starts at Heartbeat.
//
// A failed input's bound grows to handBackLeasesMax leases (8 × LeaseTTL:
// 1.6 s with the tests' 50 ms Heartbeat, 32 s by default). A busy input's
// grows to Heartbeat, as it did before, but never less than busyMaxMin:
// its slots free up within its tenant's calls, so a tenant's backlog past
// its slots and their waiters (MaxParallelPerTenant, 4 × as many waiting)
// comes back about as often as its calls end, however short the leases
// are. Before, it came back every Heartbeat and read its record each time
// (a takeover's tenant slot is taken after the read): in the
// killed-executors test (Heartbeat 50 ms) thousands of reads a second,
// against a bucket that then failed the lease renewals of the calls that
// held the slots. A busy bound growing on past a Heartbeat of a second
// would hold up the tail of a tenant's burst of quick calls (an input
// handed back a ninth time would wait up to 4 s by default), which the
// live whole path's row is timed to.

// busyBackoffSteps is how many doublings take a busy input's bound from
// its first to Heartbeat.
const busyBackoffSteps = 6

// handBackLeasesMax bounds the wait of a failed input, in LeaseTTLs.
const handBackLeasesMax = 8

// busyMaxMin is the least bound of a busy input's wait.
const busyMaxMin = time.Second

// deliveredMax caps the delivery count read for a wait: the bound has
// long reached its limit by then.
const deliveredMax = 64

// busyDelay is the wait of an input m handed back because its tenant is
// at a bound or the executor stops.
func (e *Executor) busyDelay(m jetstream.Msg) time.Duration {
	return handBack(m, e.cfg.Heartbeat>>busyBackoffSteps, max(e.cfg.Heartbeat, busyMaxMin))
}

// retryDelay is the wait of an input m handed back because handling it
// failed.
func (e *Executor) retryDelay(m jetstream.Msg) time.Duration {
	return handBack(m, e.cfg.Heartbeat, handBackLeasesMax*e.cfg.LeaseTTL)
}

// handBack draws the wait of m at its delivery count; limit when m has no
// delivery metadata.
func handBack(m jetstream.Msg, first, limit time.Duration) time.Duration {
	md, err := deliveryOf(m)
	if err != nil {
		return limit
	}
	return handBackAt(first, limit, md.delivered)
}

// handBackAt is the wait at an input's delivered-th delivery (0, no
// count, is read as the first).
func handBackAt(first, limit time.Duration, delivered uint64) time.Duration {
	return lanes.FullJitter(first, limit, int(min(max(delivered, 1), deliveredMax)))
}
