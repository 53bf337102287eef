package projector

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/publish"
	"github.com/vmihailenco/msgpack/v5"
)

// A relay round is at most one atomic batch (package publish).
const (
	relayChunk      = publish.BatchMax
	relayChunkBytes = publish.BatchBytesMax
)

// relay publishes outbox rows in outbox order and deletes each only after
// JetStream acknowledged it. Publication may repeat (a crash between publish
// and delete); the deterministic Nats-Msg-Id makes the repeat a no-op.
//
// Order (package publish): on a replicated stream (where leaders change) each
// round is one atomic batch, and the next round starts only after the batch
// is acknowledged: the log holds the outbox's order whatever fails in
// between. A single-server stream has no leader to change and is relayed
// pipelined.
func (r *Runner) relay(ctx context.Context) error {
	r.atomic = r.streamAllowsBatches(ctx)
	r.log.Debug("relay", "atomic_batches", r.atomic)
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

func (r *Runner) streamAllowsBatches(ctx context.Context) bool {
	for {
		actx, cancel := context.WithTimeout(ctx, r.cfg.PublishTimeout)
		s, err := r.cfg.JS.Stream(actx, r.cfg.Stream)
		cancel()
		if err == nil {
			cfg := s.CachedInfo().Config
			// Only a replicated stream changes leader under a running
			// relay, and there a batch costs less than pipelining. On one
			// server the batch is staged in its own file store, which
			// costs more than the order it protects.
			return cfg.AllowAtomicPublish && cfg.Replicas > 1
		}
		if ctx.Err() != nil {
			return false
		}
		r.log.Warn("relay: stream info", "err", err)
		select {
		case <-ctx.Done():
			return false
		case <-time.After(100 * time.Millisecond):
		}
	}
}

type relayRow struct {
	key []byte
	row outboxRow
}

func (r *Runner) relayOnce(ctx context.Context) (int, error) {
	r.dbMu.RLock()
	defer r.dbMu.RUnlock()
	rows, err := r.readOutbox()
	if err != nil || len(rows) == 0 {
		return 0, err
	}
	if h := r.cfg.Hooks; h != nil && h.BeforePublish != nil {
		for _, x := range rows {
			h.BeforePublish(x.row.ID)
		}
	}
	var stored []int
	if !r.atomic {
		stored, err = r.publishPipelined(ctx, rows)
	} else {
		// An atomic batch is stored by one stream: one batch per stream the
		// round writes to, each in outbox order (streams are not ordered
		// against each other).
		for _, group := range byStream(rows) {
			sub := make([]relayRow, len(group))
			for i, j := range group {
				sub[i] = rows[j]
			}
			got, gerr := r.publishAtomic(ctx, sub)
			for _, i := range got {
				stored = append(stored, group[i])
			}
			if gerr != nil && err == nil {
				err = gerr
			}
		}
		slices.Sort(stored)
	}
	if len(stored) == 0 {
		return 0, err
	}
	if derr := r.deleteRelayed(rows, stored); derr != nil {
		return 0, derr
	}
	return len(stored), err
}

// publishAtomic stores rows, all bound for one stream, as one atomic batch
// (publish.InOrder) and returns the indices of the stored ones.
func (r *Runner) publishAtomic(ctx context.Context, rows []relayRow) ([]int, error) {
	msgs := make([]*nats.Msg, len(rows))
	for i, x := range rows {
		msgs[i] = r.relayMsg(x.row)
	}
	n, _, err := publish.InOrder(ctx, r.cfg.JS, msgs, r.cfg.PublishTimeout)
	return allOf(n), err
}

// byStream groups the indices of rows by the stream of the log their
// subject lies in, each group in outbox order, the groups in the order of
// their first row.
func byStream(rows []relayRow) [][]int {
	var groups [][]int
	at := map[string]int{}
	for i, x := range rows {
		s, _ := events.StreamOf(x.row.Subject)
		g, ok := at[s]
		if !ok {
			g = len(groups)
			at[s] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

// readOutbox returns the next rows to relay, oldest first.
func (r *Runner) readOutbox() ([]relayRow, error) {
	it, err := r.db.NewIter(&pebble.IterOptions{LowerBound: r.outboxFrom(), UpperBound: prefixUpper(prefixOutbox)})
	if err != nil {
		return nil, err
	}
	var rows []relayRow
	size := 0
	for ok := it.First(); ok && len(rows) < relayChunk && size < relayChunkBytes; ok = it.Next() {
		var x relayRow
		if err := msgpack.Unmarshal(it.Value(), &x.row); err != nil {
			it.Close()
			return nil, fmt.Errorf("projector: outbox row: %w", err)
		}
		x.key = append([]byte(nil), it.Key()...)
		size += len(x.row.Data) + len(x.row.Subject) + len(x.row.ID)
		rows = append(rows, x)
	}
	return rows, it.Close()
}

func (r *Runner) relayMsg(row outboxRow) *nats.Msg {
	m := nats.NewMsg(row.Subject)
	m.Data = row.Data
	m.Header.Set(jetstream.MsgIDHeader, events.MsgID(r.cfg.MsgIDKey, row.Subject, row.ID))
	for k, v := range row.Trace {
		m.Header[k] = []string{v}
	}
	return m
}

// publishPipelined is the relay for servers without atomic batches: fast,
// but a publish retried after a leader change lands after later ones.
func (r *Runner) publishPipelined(ctx context.Context, rows []relayRow) ([]int, error) {
	futs := make([]jetstream.PubAckFuture, len(rows))
	for i, x := range rows {
		fut, err := r.cfg.JS.PublishMsgAsync(r.relayMsg(x.row))
		if err != nil {
			rows = rows[:i]
			futs = futs[:i]
			break
		}
		futs[i] = fut
	}
	var stored []int
	var firstErr error
	for i, fut := range futs {
		select {
		case <-fut.Ok():
			stored = append(stored, i)
		case err := <-fut.Err():
			if firstErr == nil {
				firstErr = fmt.Errorf("projector: relay %s: %w", rows[i].row.ID, err)
			}
		case <-ctx.Done():
			return stored, ctx.Err()
		}
	}
	return stored, firstErr
}

// deleteRelayed deletes the stored rows (indices into rows, ascending).
func (r *Runner) deleteRelayed(rows []relayRow, stored []int) error {
	b := r.db.NewBatch()
	defer b.Close()
	for _, i := range stored {
		if err := b.Delete(rows[i].key, nil); err != nil {
			return err
		}
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		return fmt.Errorf("projector: outbox delete: %w", err)
	}
	r.backlog.Add(-int64(len(stored)))
	// Rows are written in increasing key order: an unbroken stored prefix
	// is gone, and later rounds start after it instead of walking its
	// tombstones again (which made the relay quadratic).
	prefix := 0
	for prefix < len(stored) && stored[prefix] == prefix {
		prefix++
	}
	if prefix > 0 {
		r.outboxLow = append(rows[prefix-1].key, 0)
	}
	r.relayed.Add(uint64(len(stored)))
	select {
	case r.relayRoom <- struct{}{}:
	default:
	}
	return nil
}

func allOf(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
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
