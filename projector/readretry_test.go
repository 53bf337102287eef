package projector_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/projector"
)

// setDirect turns the model stream's direct gets on or off on the server.
func setDirect(t *testing.T, b *bus.Bus, on bool) {
	t.Helper()
	ctx := context.Background()
	s, err := b.JS.Stream(ctx, events.StreamModel)
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.CachedInfo().Config
	cfg.AllowDirect = on
	if _, err := b.JS.UpdateStream(ctx, cfg); err != nil {
		t.Fatalf("allow_direct %v: %v", on, err)
	}
}

// TestAReadTheStreamDoesNotAnswerIsTriedAgain: a view behind its
// durable's acknowledgements reads the log by direct gets (fill); when the
// stream does not answer them for a while, as during a leader change
// (no server serving them: no responders; or a server that takes the
// request and never answers: no answer within the read's timeout), the
// runner does not end: it tries again from its checkpoint and, once the
// stream answers, applies the whole log, each message once and in order.
// The stream is made silent on the real server: its direct gets turned
// off, and, for "no answer", a core subscriber that swallows them.
func TestAReadTheStreamDoesNotAnswerIsTriedAgain(t *testing.T) {
	for _, tc := range []struct {
		name    string
		swallow bool // a subscriber takes the requests and never answers
	}{
		{name: "no responders"},
		{name: "no answer", swallow: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := bustest.Start(t)
			last := acknowledged(t, b, 300, "ts-readretry")

			setDirect(t, b, false)
			var swallowed atomic.Int64
			if tc.swallow {
				sub, err := b.Conn.Subscribe("$JS.API.DIRECT.GET."+events.StreamModel, func(*nats.Msg) { swallowed.Add(1) })
				if err != nil {
					t.Fatal(err)
				}
				defer sub.Unsubscribe()
				if err := b.Conn.Flush(); err != nil {
					t.Fatal(err)
				}
			}

			// A new directory behind the durable: it must read the log.
			r, err := projector.New(projector.Config{JS: b.JS, Keys: b.Keys, Dir: filepath.Join(t.TempDir(), "v"), BatchMax: 64, Durable: "ts-readretry"}, tally{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			rctx, stopRun := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() { done <- r.Run(rctx) }()

			for r.Stats().ReadRetries == 0 {
				select {
				case err := <-done:
					t.Fatalf("the runner ended while the stream did not answer: %v", err)
				case <-ctx.Done():
					t.Fatal("no read of the log failed while the stream did not answer")
				case <-time.After(5 * time.Millisecond):
				}
			}
			if tc.swallow && swallowed.Load() == 0 {
				t.Fatal("the silent subscriber took no read")
			}
			if cp := r.Checkpoint(); cp != 0 {
				t.Fatalf("checkpoint %d while the stream did not answer", cp)
			}
			setDirect(t, b, true)
			if err := r.WaitFor(ctx, last); err != nil {
				t.Fatalf("wait for %d (at %d): %v", last, r.Checkpoint(), err)
			}
			stopRun()
			if err := <-done; err != nil {
				t.Fatalf("run: %v", err)
			}
			v := r.View()
			defer v.Close()
			if n, sum := tallyState(v, "acme"); n != 300 || sum != 300*301/2 {
				t.Fatalf("after the stream answered again: %d events, sum %d; want 300, %d", n, sum, 300*301/2)
			}
			if st := r.Stats(); st.Applied != 300 || st.Rejected != 0 {
				t.Fatalf("applied %d, rejected %d; want each of 300 once", st.Applied, st.Rejected)
			}
		})
	}
}
