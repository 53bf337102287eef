package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// Ordered publication. A pipelined publish that fails (no stream leader for
// a moment) and is sent again after later ones succeeded stores events out
// of order, and a projection downstream would see a stream's deltas
// shuffled. On a replicated stream, where leaders change, whoever must keep
// an order (the relays, Toolstream's own producers) publishes rounds of
// messages as JetStream atomic batches and starts a round only once the
// previous one is acknowledged: the log holds the order whatever fails in
// between. A single server has no leader to change and is published to
// pipelined.

// Atomic batches. JetStream stores an atomic batch whole or not at all, in
// its order; the server refuses batches above 1000 messages by default.
// BatchMax and BatchBytesMax bound one batch of Ordered (and the
// projector's relay rounds).
const (
	BatchMax      = 1000
	BatchBytesMax = 8 << 20
)

// Headers of JetStream's atomic batch publish (ADR-50, nats-server 2.12+).
const (
	hdrBatchID     = "Nats-Batch-Id"
	hdrBatchSeq    = "Nats-Batch-Sequence"
	hdrBatchCommit = "Nats-Batch-Commit"
	// errCodeBatchDuplicate: the batch holds a message id already stored.
	errCodeBatchDuplicate = 10201
)

// ErrBatchDuplicate is returned by Batch for a batch that holds an
// already stored message id: an earlier attempt stored it (its ack was
// lost) or a prefix of it. Each stores the rest.
var ErrBatchDuplicate = errors.New("publish: batch holds an already stored event")

// Batch stores msgs, all bound for one stream, as one JetStream
// atomic batch: all of them, in order, or none. It waits up to timeout for
// the acknowledgement and returns the stream sequence of the last message.
// It returns ErrBatchDuplicate, or the server's or the connection's error.
// msgs are not changed.
func Batch(ctx context.Context, js jetstream.JetStream, msgs []*nats.Msg, timeout time.Duration) (uint64, error) {
	at, err := batch(ctx, js, msgs, timeout)
	return at.Seq, err
}

// Place is where a message was stored: its stream and its sequence there.
// A producer's messages land in the stream that takes their subjects (a
// tenant's ingress stream, on a log with per-tenant streams), whose
// sequence is not the one a stream sourcing it gives them.
type Place struct {
	Stream string
	Seq    uint64
}

// batch is Batch, with the stream the batch was stored in.
func batch(ctx context.Context, js jetstream.JetStream, msgs []*nats.Msg, timeout time.Duration) (Place, error) {
	nc := js.Conn()
	id := nuid.Next()
	for i, m := range msgs {
		bm := &nats.Msg{Subject: m.Subject, Data: m.Data, Header: nats.Header{}}
		for k, v := range m.Header {
			bm.Header[k] = v
		}
		bm.Header.Set(hdrBatchID, id)
		bm.Header.Set(hdrBatchSeq, strconv.Itoa(i+1))
		if i < len(msgs)-1 {
			if err := nc.PublishMsg(bm); err != nil {
				return Place{}, fmt.Errorf("publish: batch: %w", err)
			}
			continue
		}
		bm.Header.Set(hdrBatchCommit, "1")
		actx, cancel := context.WithTimeout(ctx, timeout)
		resp, err := nc.RequestMsgWithContext(actx, bm)
		cancel()
		if err != nil {
			return Place{}, fmt.Errorf("publish: batch of %d: %w", len(msgs), err)
		}
		var ack struct {
			Error  *jetstream.APIError `json:"error"`
			Stream string              `json:"stream"`
			Seq    uint64              `json:"seq"`
			Count  int                 `json:"count"`
		}
		if err := json.Unmarshal(resp.Data, &ack); err != nil {
			return Place{}, fmt.Errorf("publish: batch ack %q: %w", resp.Data, err)
		}
		switch {
		case ack.Error != nil && ack.Error.ErrorCode == errCodeBatchDuplicate:
			return Place{}, ErrBatchDuplicate
		case ack.Error != nil:
			return Place{}, fmt.Errorf("publish: batch of %d: %w", len(msgs), ack.Error)
		case ack.Count != len(msgs):
			return Place{}, fmt.Errorf("publish: batch of %d acknowledged %d", len(msgs), ack.Count)
		}
		return Place{Stream: ack.Stream, Seq: ack.Seq}, nil
	}
	return Place{}, nil
}

// Each publishes msgs one at a time, each after the previous one's
// acknowledgement (a repeat of a stored message id is acknowledged as a
// duplicate), waiting up to timeout for each. It returns how many were
// stored, a prefix of msgs, and the stream sequence of the last.
func Each(ctx context.Context, js jetstream.JetStream, msgs []*nats.Msg, timeout time.Duration) (int, uint64, error) {
	n, at, err := publishEach(ctx, js, msgs, timeout, nil)
	return n, at.Seq, err
}

// publishEach is Each calling dup, when set, with each message
// acknowledged as a duplicate; its error stops the publishing there (the
// message does not count as stored).
func publishEach(ctx context.Context, js jetstream.JetStream, msgs []*nats.Msg, timeout time.Duration, dup func(*nats.Msg, *jetstream.PubAck) error) (int, Place, error) {
	var last Place
	for i, m := range msgs {
		actx, cancel := context.WithTimeout(ctx, timeout)
		ack, err := js.PublishMsg(actx, m)
		cancel()
		if err != nil {
			return i, last, fmt.Errorf("publish: publish %s: %w", m.Header.Get(jetstream.MsgIDHeader), err)
		}
		if ack.Duplicate && dup != nil {
			if err := dup(m, ack); err != nil {
				return i, last, err
			}
		}
		last = Place{Stream: ack.Stream, Seq: ack.Sequence}
	}
	return len(msgs), last, nil
}

// InOrder stores msgs, all bound for one stream, in their order as
// Batch does, falling back to Each for a batch that holds an
// already stored message. It returns how many were stored (all, or a
// prefix) and the sequence of the last.
func InOrder(ctx context.Context, js jetstream.JetStream, msgs []*nats.Msg, timeout time.Duration) (int, uint64, error) {
	n, at, err := publishOrdered(ctx, js, msgs, timeout, nil)
	return n, at.Seq, err
}

func publishOrdered(ctx context.Context, js jetstream.JetStream, msgs []*nats.Msg, timeout time.Duration, dup func(*nats.Msg, *jetstream.PubAck) error) (int, Place, error) {
	if len(msgs) == 1 {
		return publishEach(ctx, js, msgs, timeout, dup)
	}
	last, err := batch(ctx, js, msgs, timeout)
	if err == nil {
		return len(msgs), last, nil
	}
	if errors.Is(err, ErrBatchDuplicate) {
		return publishEach(ctx, js, msgs, timeout, dup)
	}
	return 0, Place{}, err
}
