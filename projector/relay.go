package projector

import (
	"context"
	"fmt"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/vmihailenco/msgpack/v5"
)

// relayChunk bounds the rows one relay round publishes before it waits for
// their acknowledgements.
const relayChunk = 1024

// relay publishes outbox rows and deletes each only after JetStream
// acknowledged it. Publication may repeat (a crash between publish and
// delete); the deterministic Nats-Msg-Id makes the repeat a no-op.
func (r *Runner) relay(ctx context.Context) error {
	backoff := 10 * time.Millisecond
	for {
		n, err := r.relayOnce(ctx)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			r.log.Warn("relay publish failed; retrying", "err", err, "backoff", backoff)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 2*time.Second)
			continue
		case n > 0:
			backoff = 10 * time.Millisecond
			continue // there may be more
		}
		select {
		case <-ctx.Done():
			return nil
		case <-r.relayKick:
		}
	}
}

type pending struct {
	key []byte
	fut jetstream.PubAckFuture
}

func (r *Runner) relayOnce(ctx context.Context) (int, error) {
	it, err := r.db.NewIter(&pebble.IterOptions{LowerBound: r.outboxFrom(), UpperBound: prefixUpper(prefixOutbox)})
	if err != nil {
		return 0, err
	}
	var inflight []pending
	for ok := it.First(); ok && len(inflight) < relayChunk; ok = it.Next() {
		var row outboxRow
		if err := msgpack.Unmarshal(it.Value(), &row); err != nil {
			it.Close()
			return 0, fmt.Errorf("projector: outbox row: %w", err)
		}
		if h := r.cfg.Hooks; h != nil && h.BeforePublish != nil {
			h.BeforePublish(row.ID)
		}
		fut, err := r.cfg.JS.PublishAsync(row.Subject, row.Data, jetstream.WithMsgID(row.ID))
		if err != nil {
			it.Close()
			return 0, fmt.Errorf("projector: relay %s: %w", row.ID, err)
		}
		inflight = append(inflight, pending{key: append([]byte(nil), it.Key()...), fut: fut})
	}
	if err := it.Close(); err != nil {
		return 0, err
	}
	if len(inflight) == 0 {
		return 0, nil
	}
	b := r.db.NewBatch()
	defer b.Close()
	var firstErr error
	var through []byte
	acked := 0
	for _, p := range inflight {
		select {
		case <-p.fut.Ok():
			if err := b.Delete(p.key, nil); err != nil {
				return 0, err
			}
			if firstErr == nil {
				through = p.key // the acked prefix is unbroken so far
			}
			acked++
		case err := <-p.fut.Err():
			if firstErr == nil {
				firstErr = err
			}
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	if acked > 0 {
		if err := b.Commit(pebble.NoSync); err != nil {
			return 0, fmt.Errorf("projector: outbox delete: %w", err)
		}
		r.backlog.Add(-int64(acked))
		if through != nil {
			// Rows are written in increasing key order and this prefix is
			// gone: later rounds start after it instead of walking its
			// tombstones again (which made the relay quadratic).
			r.outboxLow = append(through, 0)
		}
		r.relayed.Add(uint64(acked))
		select {
		case r.relayRoom <- struct{}{}:
		default:
		}
	}
	return acked, firstErr
}

// outboxFrom is where the next relay round starts reading the outbox.
func (r *Runner) outboxFrom() []byte {
	if r.outboxLow != nil {
		return r.outboxLow
	}
	return prefixOutbox
}

func (r *Runner) countOutbox() (int, error) {
	it, err := r.db.NewIter(&pebble.IterOptions{LowerBound: prefixOutbox, UpperBound: prefixUpper(prefixOutbox)})
	if err != nil {
		return 0, err
	}
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	return n, it.Close()
}
