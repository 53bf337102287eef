package projector_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/projector"
)

// TestStreamInfoUnansweredAtStartIsTriedAgain: a view behind its
// durable's acknowledgements first learns where the log ends (the stream's
// info) and reads up to there. When the stream's info goes unanswered for a
// while at that moment, as during a leader election, Run does not end: it
// backs off and asks again, as it does for a read the stream does not
// answer, then applies the whole log, each message once. The runner's
// JetStream API goes through a relay on the real server (its own API
// prefix) that forwards every request unchanged, the reply going straight
// back to the asker, and leaves the first stream info requests of the
// model stream unanswered. Before, the first unanswered one ended Run with
// "log unreachable".
// acknowledged publishes n texts of acme and has a runner on durable apply
// and acknowledge them all, then stop: a new view on that durable is behind
// it and must read the log. It returns the last sequence.
func acknowledged(t *testing.T, b *bus.Bus, n int, durable string) uint64 {
	t.Helper()
	var last uint64
	for i := 1; i <= n; i++ {
		last = publishText(t, b, "acme", fmt.Sprint(i%7), i, "x")
	}
	r, stop := startRunner(t, b, t.TempDir(), tally{}, func(c *projector.Config) { c.Durable = durable })
	waitFor(t, r, last)
	stop()
	return last
}

func TestStreamInfoUnansweredAtStartIsTriedAgain(t *testing.T) {
	b := bustest.Start(t)
	last := acknowledged(t, b, 120, "ts-inforetry")

	const prefix = "$JSX.API"
	info := "$JS.API.STREAM.INFO." + events.StreamModel
	var unanswered atomic.Int64
	const silent = 3
	relay, err := b.Conn.Subscribe(prefix+".>", func(m *nats.Msg) {
		subject := "$JS.API" + strings.TrimPrefix(m.Subject, prefix)
		if subject == info && unanswered.Load() < silent {
			unanswered.Add(1)
			return
		}
		out := &nats.Msg{Subject: subject, Reply: m.Reply, Header: m.Header, Data: m.Data}
		_ = b.Conn.PublishMsg(out)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer relay.Unsubscribe()
	if err := b.Conn.Flush(); err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.NewWithAPIPrefix(b.Conn, prefix)
	if err != nil {
		t.Fatal(err)
	}
	// A new directory behind the durable: it must read the log.
	r, err := projector.New(projector.Config{JS: js, Keys: b.Keys, Dir: filepath.Join(t.TempDir(), "v"), BatchMax: 64,
		Durable: "ts-inforetry", PublishTimeout: 200 * time.Millisecond}, tally{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rctx, stopRun := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(rctx) }()
	for r.Checkpoint() < last {
		select {
		case err := <-done:
			t.Fatalf("the runner ended after %d unanswered stream info requests: %v", unanswered.Load(), err)
		case <-ctx.Done():
			t.Fatalf("at %d of %d after %d unanswered stream info requests", r.Checkpoint(), last, unanswered.Load())
		case <-time.After(5 * time.Millisecond):
		}
	}
	stopRun()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	if n := unanswered.Load(); n != silent {
		t.Fatalf("%d stream info requests went unanswered, want %d", n, silent)
	}
	v := r.View()
	defer v.Close()
	if n, sum := tallyState(v, "acme"); n != 120 || sum != 120*121/2 {
		t.Fatalf("%d events, sum %d; want 120, %d", n, sum, 120*121/2)
	}
	if st := r.Stats(); st.Applied != 120 || st.ReadRetries == 0 {
		t.Fatalf("applied %d, read retries %d; want each of 120 once, and the retries counted", st.Applied, st.ReadRetries)
	}
}
