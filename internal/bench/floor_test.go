package bench_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bench"
	"github.com/toolstream/toolstream/internal/bus"
)

// TestFloorsStoreAndAcknowledgeWhatTheySay runs each of the executor's
// floors over 600 stored calls (three fetches: 256, 256, 88) on a server
// of its own and reads what it left in the log: how many result messages
// it stored, its consumer's acknowledgement policy, and how far the
// consumer's acknowledgement floor reached. Options that do not go
// together are refused.
func TestFloorsStoreAndAcknowledgeWhatTheySay(t *testing.T) {
	const n = 600
	ctx := context.Background()
	for i, tc := range []struct {
		name    string
		o       bench.FloorOptions
		results int
		policy  jetstream.AckPolicy
		acked   bool // the acknowledgement floor reaches the last call
		bad     bool
	}{
		{"per input", bench.FloorOptions{}, n, jetstream.AckExplicitPolicy, true, false},
		{"ackall", bench.FloorOptions{AckAll: true}, n, jetstream.AckAllPolicy, true, false},
		{"acknone", bench.FloorOptions{AckNone: true}, n, jetstream.AckNonePolicy, true, false},
		{"onemsg", bench.FloorOptions{AckAll: true, OneMessage: true}, 3, jetstream.AckAllPolicy, true, false},
		{"onemsg acknone", bench.FloorOptions{AckNone: true, OneMessage: true}, 3, jetstream.AckNonePolicy, true, false},
		{"ackall and acknone", bench.FloorOptions{AckAll: true, AckNone: true}, 0, 0, false, true},
		{"onemsg alone", bench.FloorOptions{OneMessage: true}, 0, 0, false, true},
		{"onemsg fast batch", bench.FloorOptions{AckAll: true, OneMessage: true, FastBatch: true}, 0, 0, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bs, err := bus.Open(ctx, bus.Config{DataDir: filepath.Join(t.TempDir(), "d"), Listen: "127.0.0.1:-1",
				Logger: slog.New(slog.DiscardHandler), Name: fmt.Sprint("floor", i)})
			if err != nil {
				t.Fatal(err)
			}
			defer bs.Close()
			last, err := bench.PublishCalls(ctx, bs.JS, "exec", n)
			if err != nil {
				t.Fatal(err)
			}
			_, err = bench.FloorCallsWith(ctx, bs, n, tc.o)
			if tc.bad {
				if err == nil {
					t.Fatalf("options %+v accepted", tc.o)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			out, err := bs.JS.Stream(ctx, events.StreamOut)
			if err != nil {
				t.Fatal(err)
			}
			info, err := out.Info(ctx, jetstream.WithSubjectFilter("ts.result.>"))
			if err != nil {
				t.Fatal(err)
			}
			stored := 0
			for _, k := range info.State.Subjects {
				stored += int(k)
			}
			if stored != tc.results {
				t.Errorf("%d result messages stored, want %d", stored, tc.results)
			}
			calls, err := bs.JS.Stream(ctx, events.StreamCalls)
			if err != nil {
				t.Fatal(err)
			}
			// A per-input acknowledgement is sent without waiting for the
			// server's reply: the floor returns with the last few still on
			// their way (CI once read 303 of 600 acknowledged). Read the
			// consumer again until its floor is reached, or 10 s.
			var ci *jetstream.ConsumerInfo
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				ci = nil
				for c := range calls.ListConsumers(ctx).Info() {
					if strings.HasPrefix(c.Name, "bench-floor") {
						ci = c
					}
				}
				if ci == nil || !tc.acked || ci.AckFloor.Stream == last && ci.NumAckPending == 0 || time.Now().After(deadline) {
					break
				}
			}
			if ci == nil {
				t.Fatal("no floor consumer")
			}
			if ci.Config.AckPolicy != tc.policy {
				t.Errorf("policy %v, want %v", ci.Config.AckPolicy, tc.policy)
			}
			if got := ci.AckFloor.Stream == last && ci.NumAckPending == 0; got != tc.acked {
				t.Errorf("acknowledged to %d of %d (%d pending), want all: %t", ci.AckFloor.Stream, last, ci.NumAckPending, tc.acked)
			}
		})
	}
}
