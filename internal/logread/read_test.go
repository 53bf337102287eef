package logread_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/toolstream/toolstream/events"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/logread"
)

func publish(t testing.TB, b *bus.Bus, n int, subject func(i int) string) {
	t.Helper()
	ctx := context.Background()
	for i := range n {
		if _, err := b.JS.PublishAsync(subject(i), []byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
		if i%1000 == 999 {
			<-b.JS.PublishAsyncComplete()
		}
	}
	select {
	case <-b.JS.PublishAsyncComplete():
	case <-ctx.Done():
	}
}

func readAll(t *testing.T, cfg logread.Config) []*logread.Msg {
	t.Helper()
	var out []*logread.Msg
	if err := logread.Read(context.Background(), cfg, func(batch []*logread.Msg) error {
		out = append(out, batch...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func seqs(ms []*logread.Msg) []uint64 {
	out := make([]uint64, len(ms))
	for i, m := range ms {
		out[i] = m.Seq
	}
	return out
}

func TestReadInOrderWithFilterBoundsAndDeletes(t *testing.T) {
	b := bustest.Start(t)
	publish(t, b, 1000, func(i int) string { return fmt.Sprintf("ts.call.t%d.x", i%3) })
	if err := b.Stream(events.StreamCalls).DeleteMsg(context.Background(), 500); err != nil {
		t.Fatal(err)
	}
	all := readAll(t, logread.Config{Conn: b.Conn, Stream: events.StreamCalls, BatchMax: 64})
	if len(all) != 999 {
		t.Fatalf("%d messages, want 999", len(all))
	}
	for i, m := range all {
		want := uint64(i + 1)
		if want >= 500 {
			want++
		}
		if m.Seq != want || string(m.Data) != fmt.Sprint(want-1) || m.Time == 0 {
			t.Fatalf("message %d: seq %d data %q time %d, want seq %d", i, m.Seq, m.Data, m.Time, want)
		}
	}
	some := readAll(t, logread.Config{Conn: b.Conn, Stream: events.StreamCalls, Filter: "ts.call.t1.>", From: 10, UpTo: 100})
	for _, m := range some {
		if m.Subject != "ts.call.t1.x" || m.Seq < 10 || m.Seq > 100 {
			t.Fatalf("filtered read gave seq %d on %s", m.Seq, m.Subject)
		}
	}
	if len(some) != 30 {
		t.Fatalf("filtered read gave %d messages %v, want 30", len(some), seqs(some))
	}
	two := readAll(t, logread.Config{Conn: b.Conn, Stream: events.StreamCalls, Subjects: []string{"ts.call.t0.>", "ts.call.t2.x"}})
	if len(two) != 667 {
		t.Fatalf("read of two subjects gave %d messages, want 667", len(two))
	}
	for _, m := range two {
		if m.Subject == "ts.call.t1.x" {
			t.Fatalf("read of two subjects gave seq %d on %s", m.Seq, m.Subject)
		}
	}
	if none := readAll(t, logread.Config{Conn: b.Conn, Stream: events.StreamCalls, From: 5000}); len(none) != 0 {
		t.Fatalf("read past the end gave %d messages", len(none))
	}
}

func TestFollowSeesWhatComesLater(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	got := make(chan uint64, 100)
	done := make(chan error, 1)
	go func() {
		done <- logread.Read(ctx, logread.Config{Conn: b.Conn, Stream: events.StreamModel, Follow: true}, func(batch []*logread.Msg) error {
			for _, m := range batch {
				got <- m.Seq
			}
			return nil
		})
	}()
	for i := uint64(1); i <= 20; i++ {
		if _, err := b.JS.Publish(ctx, "ts.ctl._system.x", nil); err != nil {
			t.Fatal(err)
		}
		select {
		case s := <-got:
			if s != i {
				t.Fatalf("followed seq %d, want %d", s, i)
			}
		case <-ctx.Done():
			t.Fatalf("message %d never followed", i)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("a followed read ended by its context returned %v", err)
	}
}

// TestAttackStolenDelivery: a reader reads the whole log by direct gets,
// but cannot create, read from, acknowledge or delete a processor's durable
// consumer.
func TestAttackStolenDelivery(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	publish(t, b, 10, func(int) string { return "ts.call.acme.x" })
	if _, err := b.JS.CreateConsumer(ctx, events.StreamCalls, jetstream.ConsumerConfig{Durable: "ts-executor", AckPolicy: jetstream.AckExplicitPolicy}); err != nil {
		t.Fatal(err)
	}
	for _, role := range []auth.Role{auth.RoleReader, auth.RoleOperator, auth.RoleVerifier, auth.RoleMemory, auth.RoleAssembler} {
		t.Run(string(role), func(t *testing.T) {
			opts, err := b.UserOptions(auth.Identity{Role: role})
			if err != nil {
				t.Fatal(err)
			}
			nc, err := nats.Connect(b.ClientURL(), append(opts, nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))...)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			if got := readAll(t, logread.Config{Conn: nc, Stream: events.StreamCalls}); len(got) != 10 {
				t.Fatalf("%s read %d messages, want 10", role, len(got))
			}
			js, _ := jetstream.New(nc)
			sctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
			defer cancel()
			if c, err := js.Consumer(sctx, events.StreamCalls, "ts-executor"); err == nil {
				if _, err := c.Fetch(1, jetstream.FetchMaxWait(300*time.Millisecond)); err == nil {
					t.Fatalf("%s fetched from the executor's consumer", role)
				}
			}
			next := fmt.Sprintf("$JS.API.CONSUMER.MSG.NEXT.%s.ts-executor", events.StreamCalls)
			if m, err := nc.Request(next, []byte(`{"batch":1,"no_wait":true}`), 300*time.Millisecond); err == nil && len(m.Data) > 0 {
				t.Fatalf("%s took a delivery of the executor's consumer: %q", role, m.Data)
			}
			if err := js.DeleteConsumer(sctx, events.StreamCalls, "ts-executor"); err == nil {
				t.Fatalf("%s deleted the executor's consumer", role)
			}
		})
	}
	info, err := b.JS.Consumer(ctx, events.StreamCalls, "ts-executor")
	if err != nil {
		t.Fatal(err)
	}
	if n := info.CachedInfo().NumAckPending; n != 0 {
		t.Fatalf("%d of the executor's messages were delivered to someone else", n)
	}
}

// BenchmarkRead compares a direct-get read of the whole log with an
// ordered consumer reading the same messages (the way every reader read
// the log before).
func BenchmarkRead(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	bb := bustest.Start(b)
	const n = 100_000
	publish(b, bb, n, func(i int) string { return fmt.Sprintf("ts.model.acme.r%d.i", i%1000) })
	ctx := context.Background()
	b.Run("direct-get", func(b *testing.B) {
		for range b.N {
			got := 0
			if err := logread.Read(ctx, logread.Config{Conn: bb.Conn, Stream: events.StreamModel}, func(batch []*logread.Msg) error {
				got += len(batch)
				return nil
			}); err != nil || got != n {
				b.Fatal(got, err)
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "msgs/s")
	})
	b.Run("ordered-consumer", func(b *testing.B) {
		for range b.N {
			c, err := bb.JS.OrderedConsumer(ctx, events.StreamModel, jetstream.OrderedConsumerConfig{})
			if err != nil {
				b.Fatal(err)
			}
			got := 0
			for got < n {
				batch, err := c.Fetch(512, jetstream.FetchMaxWait(time.Second))
				if err != nil {
					b.Fatal(err)
				}
				for range batch.Messages() {
					got++
				}
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "msgs/s")
	})
}

// TestAReadNobodyAnswersIsUnavailable: a read no server serves (no
// responders) and one a server takes and never answers (no answer within
// Timeout) both end with ErrUnavailable, which a caller may try again,
// and hand nothing to fn; an error of fn is returned as it is.
func TestAReadNobodyAnswersIsUnavailable(t *testing.T) {
	b := bustest.Start(t)
	sub, err := b.Conn.Subscribe("$JS.API.DIRECT.GET.SILENT", func(*nats.Msg) {})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := b.Conn.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		stream string
		cause  error
	}{
		{stream: "NOSUCHSTREAM", cause: nats.ErrNoResponders},
		{stream: "SILENT", cause: nats.ErrTimeout},
	} {
		t.Run(tc.stream, func(t *testing.T) {
			called := false
			err := logread.Read(context.Background(), logread.Config{Conn: b.Conn, Stream: tc.stream, Timeout: 200 * time.Millisecond},
				func([]*logread.Msg) error { called = true; return nil })
			if !errors.Is(err, logread.ErrUnavailable) || !errors.Is(err, tc.cause) {
				t.Fatalf("err %v; want ErrUnavailable and %v", err, tc.cause)
			}
			if called {
				t.Fatal("fn called for a read nobody answered")
			}
		})
	}
	publish(t, b, 3, func(int) string { return "ts.model.acme.r.i" })
	stop := errors.New("stop")
	err = logread.Read(context.Background(), logread.Config{Conn: b.Conn, Stream: events.StreamModel}, func([]*logread.Msg) error { return stop })
	if err != stop {
		t.Fatalf("fn's error came back as %v", err)
	}
}
