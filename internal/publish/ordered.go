package publish

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Ordered publishes one producer's messages in the order they are
// added: a sliding window of asynchronous publishes (Window unacknowledged
// at most, each acknowledgement letting one more go, never retried by
// nats.go, since a publish sent again after later ones would be stored out
// of order), or, with Batches, atomic batches one after another
// (InOrder), each retried with its message ids while the stream has
// no leader, up to RetryMax — what a replicated stream needs. The edge's
// producer (client.Writer) and the gateway's kept frames publish through
// it. Not safe for concurrent use.
type Ordered struct {
	JS       jetstream.JetStream
	Window   int           // window mode: unacknowledged publishes at most (default 512)
	Timeout  time.Duration // batch mode: the wait for one batch's acknowledgement
	RetryMax time.Duration // batch mode: how long a batch is retried
	Batches  bool
	// Duplicate, when set, is called with each message the log
	// acknowledged as a duplicate of a stored one; an error (the stored
	// message is not this one) ends the publishing with it at once (a
	// batch is not retried), and the message does not count as stored.
	Duplicate func(m *nats.Msg, ack *jetstream.PubAck) error

	futs   []jetstream.PubAckFuture // sent, not yet acknowledged, oldest first
	dups   int
	batch  []*nats.Msg // batch mode: the next batch
	bytes  int
	stored int
	last   Place // the highest sequence acknowledged, and its stream
}

// Stored is how many messages the log has acknowledged; Last the highest
// stream sequence among them.
func (o *Ordered) Stored() int { return o.stored }

// Last: see Stored.
func (o *Ordered) Last() uint64 { return o.last.Seq }

// LastStream is the stream Last is a sequence of ("" before an
// acknowledgement).
func (o *Ordered) LastStream() string { return o.last.Stream }

// ack takes in that a message was stored at.
func (o *Ordered) ack(at Place) {
	if at.Seq >= o.last.Seq {
		o.last = at
	}
}

// Duplicates is how many of the stored messages the log already held
// (acknowledged as duplicates: published before, by this publisher).
func (o *Ordered) Duplicates() int { return o.dups }

func (o *Ordered) dup(m *nats.Msg, ack *jetstream.PubAck) error {
	if o.Duplicate != nil {
		if err := o.Duplicate(m, ack); err != nil {
			return err
		}
	}
	o.dups++
	return nil
}

// Add publishes m after every message added before it.
func (o *Ordered) Add(ctx context.Context, m *nats.Msg) error {
	if o.Batches {
		o.batch = append(o.batch, m)
		o.bytes += len(m.Data) + len(m.Subject)
		if len(o.batch) >= BatchMax || o.bytes >= BatchBytesMax {
			return o.flushBatch(ctx)
		}
		return nil
	}
	for len(o.futs) >= max(1, o.Window) {
		if err := o.waitOldest(ctx); err != nil {
			return err
		}
	}
	for {
		// No retries inside nats.go: a publish sent again after later ones
		// would store the stream out of order. On a single server a publish
		// that finds no stream fails.
		f, err := o.JS.PublishMsgAsync(m, jetstream.WithRetryAttempts(0))
		if errors.Is(err, jetstream.ErrTooManyStalledMsgs) && len(o.futs) > 0 {
			// The connection's other publishers fill nats.go's window:
			// wait for one of ours and try again.
			if err := o.waitOldest(ctx); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		o.futs = append(o.futs, f)
		return nil
	}
}

func (o *Ordered) waitOldest(ctx context.Context) error {
	f := o.futs[0]
	select {
	case ack := <-f.Ok():
		if ack.Duplicate {
			if err := o.dup(f.Msg(), ack); err != nil {
				return err
			}
		}
		o.stored++
		o.ack(Place{Stream: ack.Stream, Seq: ack.Sequence})
	case err := <-f.Err():
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
	o.futs[0] = nil
	o.futs = o.futs[1:]
	return nil
}

// Flush waits until everything added is stored.
func (o *Ordered) Flush(ctx context.Context) error {
	if o.Batches {
		return o.flushBatch(ctx)
	}
	for len(o.futs) > 0 {
		if err := o.waitOldest(ctx); err != nil {
			return err
		}
	}
	return nil
}

// flushBatch stores the pending batch, retrying it (the same message ids)
// while the stream has no leader, up to RetryMax; a duplicate Duplicate
// refuses is not retried.
func (o *Ordered) flushBatch(ctx context.Context) error {
	deadline := time.Now().Add(o.RetryMax)
	backoff := 50 * time.Millisecond
	for len(o.batch) > 0 {
		// A duplicate Duplicate refuses is another message under this one's
		// id: no retry makes it ours, so it ends the publishing at once.
		var refused error
		n, last, err := publishOrdered(ctx, o.JS, o.batch, o.Timeout, func(m *nats.Msg, ack *jetstream.PubAck) error {
			refused = o.dup(m, ack)
			return refused
		})
		o.stored += n
		if n > 0 {
			o.ack(last)
			o.batch = o.batch[n:]
		}
		if err == nil {
			continue
		}
		if refused != nil || ctx.Err() != nil || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
	o.batch, o.bytes = o.batch[:0], 0
	return nil
}
