package projector

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// A Lease makes one process at a time the active runner of a projection
// (or of one partition of it) among several that could run it: the others
// wait and take over when the holder dies.
//
// The lease is a key in a JetStream key-value bucket whose TTL is the
// lease's TTL: the holder writes the key with Create (only one Create of an
// absent key succeeds) and renews it by compare-and-set on its revision
// every TTL/3; a holder that dies stops renewing, the server expires the
// key TTL after its last write, and a waiting process's Create succeeds. A
// holder that cannot renew (its server is gone) gives the lease up TTL
// after it sent its last successful renewal, which is before the server can
// expire it, so a holder that merely lost its connection stops before
// another starts, by the margin of the renewal's round trip.
//
// NB: the margin assumes the two processes' clocks advance at about the same
// rate; it does not need them to agree. Should two runners of one
// projection ever overlap anyway, nothing breaks: a projection is
// deterministic (invariant 6) and emits events with deterministic ids
// (invariant 4), so the overlap emits the same events twice and the log's
// duplicate window drops the repeats; each runner has its own view.
type Lease struct {
	kv     jetstream.KeyValue
	key    string
	holder string
	ttl    time.Duration
	lost   chan struct{}
	stop   chan struct{}
	done   chan struct{}
	rev    uint64 // renewal goroutine only, after AcquireLease returns
}

// LeaseBucketConfig is the key-value bucket of leases with a TTL of ttl.
func LeaseBucketConfig(bucket string, ttl time.Duration, replicas int) jetstream.KeyValueConfig {
	return jetstream.KeyValueConfig{
		Bucket: bucket, Description: "Toolstream leases: one active runner per projection or partition",
		History: 1, TTL: ttl, Storage: jetstream.FileStorage, Replicas: replicas,
	}
}

// AcquireLease blocks until holder holds key in kv (a bucket made with
// LeaseBucketConfig and the same ttl) or ctx ends, polling every ttl/4
// while another process holds it. It returns ctx's error when ctx ends.
func AcquireLease(ctx context.Context, kv jetstream.KeyValue, key, holder string, ttl time.Duration) (*Lease, error) {
	if ttl <= 0 || key == "" || holder == "" {
		return nil, fmt.Errorf("%w: lease needs a key, a holder and a TTL", ErrInvalidConfig)
	}
	for {
		start := time.Now()
		rctx, cancel := context.WithTimeout(ctx, ttl/3)
		rev, err := kv.Create(rctx, key, []byte(holder))
		cancel()
		if err == nil {
			l := &Lease{kv: kv, key: key, holder: holder, ttl: ttl, rev: rev,
				lost: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
			go l.renew(start)
			return l, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// Held by another (ErrKeyExists), or the bucket is unreachable for
		// now: look again soon.
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(ttl / 4):
		}
	}
}

// Lost is closed when the lease is lost: the holder must stop at once.
func (l *Lease) Lost() <-chan struct{} { return l.lost }

// Release stops renewing and deletes the key if it is still this lease's,
// so a waiting process takes over without waiting for the TTL.
func (l *Lease) Release(ctx context.Context) error {
	close(l.stop)
	<-l.done
	select {
	case <-l.lost:
		return nil
	default:
	}
	close(l.lost)
	err := l.kv.Delete(ctx, l.key, jetstream.LastRevision(l.rev))
	if err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		return fmt.Errorf("projector: release lease %s: %w", l.key, err)
	}
	return nil
}

// renew renews the lease every TTL/3 until Release, or until it is lost:
// another process holds the key, or no renewal succeeded for a TTL since
// the last successful one was sent (sent at since).
func (l *Lease) renew(since time.Time) {
	defer close(l.done)
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), l.ttl/3)
		rev, err := l.kv.Update(ctx, l.key, []byte(l.holder), l.rev)
		cancel()
		switch {
		case err == nil:
			l.rev, since = rev, start
		case errors.Is(err, jetstream.ErrKeyExists), errors.Is(err, jetstream.ErrKeyNotFound), time.Since(since) >= l.ttl:
			close(l.lost) // taken over, expired, or unreachable for a whole TTL
			return
		}
	}
}
