package publish_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/logread"
	"github.com/toolstream/toolstream/internal/publish"
)

// msgs are n messages on one model subject of tenant, numbered in their
// data, with message ids prefix-<i> (ids are the stream's, whatever the
// subject: each test's are its own).
func msgs(t *testing.T, tenant, prefix string, n int) (string, []*nats.Msg) {
	t.Helper()
	subj, err := events.ModelSubject(tenant, "resp", "item")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*nats.Msg, n)
	for i := range out {
		out[i] = &nats.Msg{Subject: subj, Data: []byte(strconv.Itoa(i)),
			Header: nats.Header{jetstream.MsgIDHeader: []string{fmt.Sprintf("%s-%d", prefix, i)}}}
	}
	return subj, out
}

// stored is the data of every message the log holds on subj, in log
// order, and the sequence of the last.
func stored(t *testing.T, b *bus.Bus, subj string) ([]string, uint64) {
	t.Helper()
	stream, err := events.StreamOf(subj)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var last uint64
	err = logread.Read(context.Background(), logread.Config{Conn: b.Conn, Stream: stream, Filter: subj}, func(batch []*logread.Msg) error {
		for _, m := range batch {
			out = append(out, string(m.Data))
			last = m.Seq
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, last
}

// TestOrderedKeepsTheOrder: a window of single publishes and atomic
// batches (2,500 messages: three batches, BatchMax 1,000) both store every
// message once in the order added; Stored and Last say so; the same
// messages added again are acknowledged as duplicates and store nothing.
func TestOrderedKeepsTheOrder(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, batches := range []bool{false, true} {
		tenant := fmt.Sprintf("batches%v", batches)
		subj, ms := msgs(t, tenant, tenant, 2500)
		o := publish.Ordered{JS: b.JS, Window: 7, Timeout: 10 * time.Second, RetryMax: time.Minute, Batches: batches}
		for _, m := range ms {
			if err := o.Add(ctx, m); err != nil {
				t.Fatalf("%s: %v", tenant, err)
			}
		}
		if err := o.Flush(ctx); err != nil {
			t.Fatalf("%s: %v", tenant, err)
		}
		got, last := stored(t, b, subj)
		if len(got) != len(ms) || o.Stored() != len(ms) || o.Last() != last || o.Duplicates() != 0 {
			t.Fatalf("%s: %d stored, Stored %d, Last %d (log %d), Duplicates %d", tenant, len(got), o.Stored(), o.Last(), last, o.Duplicates())
		}
		for i, d := range got {
			if d != strconv.Itoa(i) {
				t.Fatalf("%s: message %d of the log is %s", tenant, i, d)
			}
		}
		again := publish.Ordered{JS: b.JS, Window: 7, Timeout: 10 * time.Second, RetryMax: time.Minute, Batches: batches}
		for _, m := range ms[:10] {
			if err := again.Add(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		if err := again.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if got2, last2 := stored(t, b, subj); len(got2) != len(ms) || last2 != last || again.Duplicates() != 10 || again.Stored() != 10 {
			t.Fatalf("%s again: %d stored (last %d, was %d), Duplicates %d, Stored %d", tenant, len(got2), last2, last, again.Duplicates(), again.Stored())
		}
	}
}

// TestOrderedStopsAtADuplicateNotOurs: a message acknowledged as the
// duplicate of another stored message is what Duplicate says it is; its
// error ends the publishing with it, and the message is not counted as
// stored.
func TestOrderedStopsAtADuplicateNotOurs(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	notOurs := errors.New("not ours")
	for _, batches := range []bool{false, true} {
		tenant := fmt.Sprintf("dup%v", batches)
		subj, ms := msgs(t, tenant, tenant, 3)
		// Someone stored another message under the second's id first.
		if _, err := b.JS.PublishMsg(ctx, &nats.Msg{Subject: subj, Data: []byte("theirs"), Header: ms[1].Header}); err != nil {
			t.Fatal(err)
		}
		var seen []string
		o := publish.Ordered{JS: b.JS, Timeout: 10 * time.Second, RetryMax: time.Minute, Batches: batches,
			Duplicate: func(m *nats.Msg, ack *jetstream.PubAck) error {
				seen = append(seen, m.Header.Get(jetstream.MsgIDHeader))
				return notOurs
			}}
		var err error
		for _, m := range ms {
			if err = o.Add(ctx, m); err != nil {
				break
			}
		}
		if err == nil {
			err = o.Flush(ctx)
		}
		if !errors.Is(err, notOurs) || len(seen) != 1 || seen[0] != tenant+"-1" || o.Stored() != 1 || o.Duplicates() != 0 {
			t.Fatalf("%s: %v, Duplicate saw %v, Stored %d, Duplicates %d", tenant, err, seen, o.Stored(), o.Duplicates())
		}
		if got, _ := stored(t, b, subj); fmt.Sprint(got) != "[theirs 0]" {
			t.Fatalf("%s: the log holds %v", tenant, got)
		}
	}
}

// TestInOrderFallsBackToEach: a batch that holds an already stored message
// id is refused whole (ErrBatchDuplicate), and InOrder stores it one
// message at a time instead: the others in order, the stored one once.
func TestInOrderFallsBackToEach(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	subj, ms := msgs(t, "inorder", "inorder", 3)
	if _, err := b.JS.PublishMsg(ctx, ms[1]); err != nil {
		t.Fatal(err)
	}
	if _, err := publish.Batch(ctx, b.JS, ms, 10*time.Second); !errors.Is(err, publish.ErrBatchDuplicate) {
		t.Fatalf("Batch: %v, want ErrBatchDuplicate", err)
	}
	n, last, err := publish.InOrder(ctx, b.JS, ms, 10*time.Second)
	got, logLast := stored(t, b, subj)
	if err != nil || n != 3 || last != logLast || fmt.Sprint(got) != "[1 0 2]" {
		t.Fatalf("InOrder: %d stored, last %d (log %d), %v; the log holds %v", n, last, logLast, err, got)
	}
}
