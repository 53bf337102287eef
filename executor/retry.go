package executor

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// JetStream API error codes of a server or stream that is briefly unable
// to answer: a leader election, a cluster forming or failing over.
const (
	codeClusterNoPeers        jetstream.ErrorCode = 10005 // no peers for a new stream (yet)
	codeClusterNotAvail       jetstream.ErrorCode = 10008 // JetStream system temporarily unavailable
	codeClusterNotLeader      jetstream.ErrorCode = 10009 // cluster can not handle request
	codeStreamOffline         jetstream.ErrorCode = 10118
	codeExpectedLastSeqNotYet jetstream.ErrorCode = 10163 // expected last sequence per subject temporarily unavailable
)

// transient reports whether err is the bucket (or JetStream) being briefly
// unavailable, so the same request may succeed if tried again: a timeout,
// no responders, JetStream or the cluster not available. A lost
// compare-and-set (errConflict, a wrong last sequence) is not: it is an
// answer.
func transient(err error) bool {
	switch {
	case err == nil, errors.Is(err, errConflict), errors.Is(err, context.Canceled),
		errors.Is(err, jetstream.ErrKeyExists), errors.Is(err, jetstream.ErrKeyRevisionMismatch):
		return false
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout),
		errors.Is(err, nats.ErrNoResponders), errors.Is(err, jetstream.ErrNoStreamResponse),
		errors.Is(err, nats.ErrConnectionReconnecting), errors.Is(err, jetstream.ErrJetStreamNotEnabled),
		errors.Is(err, errRaced):
		return true
	}
	var ae *jetstream.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode {
		case codeClusterNoPeers, codeClusterNotAvail, codeClusterNotLeader, codeStreamOffline, codeExpectedLastSeqNotYet:
			return true
		}
		return ae.Code == 503 // service unavailable: the server says try again
	}
	return false
}

// errRaced means another executor created a bucket at the same moment:
// look it up again.
var errRaced = errors.New("executor: created concurrently")

// retryPolicy paces the tries of a request that failed transiently: each
// try is bounded by Try, and the pause between tries starts at Min and
// doubles up to Max (with jitter, so executors that failed together do not
// retry together).
type retryPolicy struct {
	Try, Min, Max time.Duration
}

// defaultRetry is the policy of setup.
func defaultRetry() retryPolicy {
	return retryPolicy{Try: 2 * time.Second, Min: 20 * time.Millisecond, Max: time.Second}
}

// recordRetry is the policy of record reads and writes: a try lasts a
// heartbeat (250ms to 2s), so a request lost to a stream leader that died
// is tried again within the lease.
func recordRetry(heartbeat time.Duration) retryPolicy {
	p := defaultRetry()
	p.Try = min(max(heartbeat, 250*time.Millisecond), 2*time.Second)
	return p
}

// retry runs op until it succeeds, fails with an error that is not
// transient, or ctx ends, and returns op's last error. Each try gets a
// context bounded by p.Try (and by ctx). The error of a try cut short by
// ctx's end is returned as it is: the caller decides what running out of
// time means.
func retry(ctx context.Context, p retryPolicy, op func(ctx context.Context) error) error {
	return retryUntil(ctx, p, time.Time{}, op)
}

// retryUntil is retry that also stops at deadline (none if zero), as if
// ctx ended then. The deadline bounds each try's context along with
// p.Try, so a try costs one context, not one for the tries and one for
// the try.
func retryUntil(ctx context.Context, p retryPolicy, deadline time.Time, op func(ctx context.Context) error) error {
	pause := p.Min
	for {
		tctx, cancel := ctx, context.CancelFunc(func() {})
		if p.Try > 0 || !deadline.IsZero() {
			d := deadline
			if p.Try > 0 {
				if t := time.Now().Add(p.Try); d.IsZero() || t.Before(d) {
					d = t
				}
			}
			tctx, cancel = context.WithDeadline(ctx, d)
		}
		err := op(tctx)
		cancel()
		if err == nil || !transient(err) || ctx.Err() != nil || past(deadline) {
			return err
		}
		wait := pause
		if wait > 0 {
			wait = wait/2 + rand.N(wait/2+1)
		}
		if !deadline.IsZero() {
			wait = min(wait, time.Until(deadline))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		if past(deadline) {
			return err
		}
		pause = min(2*pause, p.Max)
	}
}

func past(deadline time.Time) bool { return !deadline.IsZero() && !time.Now().Before(deadline) }
