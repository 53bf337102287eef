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
// round is one atomic batch per stream written, and the next round starts
// only after the batches are acknowledged: the log holds the outbox's order
// whatever fails in between. A single-server stream has no leader to change
// and is relayed pipelined. What decides is the stream a row is written to,
// never the one the projection reads (ingest reads TS_IN and writes
// TS_MODEL): a stream that takes no atomic batches is written pipelined
// (docs/security.md, "Known holes", C).
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

// batchesTo reports whether the relay writes the stream that stores
// subject in atomic batches: it takes them and is replicated. Only a
// replicated stream changes leader under a running relay, and there a
// batch costs less than pipelining; on one server the batch is staged in
// its own file store, which costs more than the order it protects. The
// answer is kept by the stream's name in the log's layout (group, from
// events.StreamOf) for the runner's life: a stream's replicas and atomic
// publish change only by the admin's setup, with processors restarted. A
// stream the relay cannot look up is an error, and the round is tried
// again.
func (r *Runner) batchesTo(ctx context.Context, group, subject string) (bool, error) {
	if ok, known := r.atomic[group]; known {
		return ok, nil
	}
	actx, cancel := context.WithTimeout(ctx, r.cfg.PublishTimeout)
	defer cancel()
	name, err := r.cfg.JS.StreamNameBySubject(actx, subject)
	if err != nil {
		return false, fmt.Errorf("projector: relay: the stream of %s: %w", subject, err)
	}
	s, err := r.cfg.JS.Stream(actx, name)
	if err != nil {
		return false, fmt.Errorf("projector: relay: stream %s: %w", name, err)
	}
	cfg := s.CachedInfo().Config
	ok := cfg.AllowAtomicPublish && cfg.Replicas > 1
	if r.atomic == nil {
		r.atomic = map[string]bool{}
	}
	r.atomic[group] = ok
	r.log.Debug("relay", "stream", name, "atomic_batches", ok)
	return ok, nil
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
	// An atomic batch is stored by one stream: one batch per stream the
	// round writes to that takes them, each in outbox order, and the rows
	// for the others pipelined together (streams are not ordered against
	// each other).
	var stored, plain []int
	for _, group := range byStream(rows) {
		atomic, aerr := r.batchesTo(ctx, group.stream, rows[group.rows[0]].row.Subject)
		if aerr != nil {
			if err == nil {
				err = aerr
			}
			continue
		}
		if !atomic {
			plain = append(plain, group.rows...)
			continue
		}
		got, gerr := r.publishAtomic(ctx, pick(rows, group.rows))
		for _, i := range got {
			stored = append(stored, group.rows[i])
		}
		if gerr != nil && err == nil {
			err = gerr
		}
	}
	if len(plain) > 0 {
		slices.Sort(plain)
		got, perr := r.publishPipelined(ctx, pick(rows, plain))
		for _, i := range got {
			stored = append(stored, plain[i])
		}
		if perr != nil && err == nil {
			err = perr
		}
	}
	slices.Sort(stored)
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

// streamRows are the indices of the rows bound for one stream.
type streamRows struct {
	stream string
	rows   []int
}

// byStream groups the indices of rows by the stream of the log their
// subject lies in, each group in outbox order, the groups in the order of
// their first row.
func byStream(rows []relayRow) []streamRows {
	var groups []streamRows
	at := map[string]int{}
	for i, x := range rows {
		s, _ := events.StreamOf(x.row.Subject)
		g, ok := at[s]
		if !ok {
			g = len(groups)
			at[s] = g
			groups = append(groups, streamRows{stream: s})
		}
		groups[g].rows = append(groups[g].rows, i)
	}
	return groups
}

// pick returns the rows at the indices.
func pick(rows []relayRow, at []int) []relayRow {
	out := make([]relayRow, len(at))
	for i, j := range at {
		out[i] = rows[j]
	}
	return out
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
	m.Header.Set(jetstream.MsgIDHeader, events.OwnedMsgID(r.cfg.MsgIDKey, row.Subject, row.ID))
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
