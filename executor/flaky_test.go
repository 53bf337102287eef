package executor_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// A record bucket that is briefly unavailable (a stream leader change:
// timeouts, no responders, or a write applied whose answer is lost) when
// the outcome is recorded, or when the lease is taken, does not turn a
// tool's success into outcome_unknown: the write is tried again while the
// lease holds. The tool has the default contract (at most one invocation,
// under a lease).
func TestRecordWriteRetried(t *testing.T) {
	for _, tc := range []struct {
		name    string
		state   string
		err     error
		applied bool
	}{
		{"outcome timeout", executor.StateDone, nats.ErrTimeout, false},
		{"outcome no responders", executor.StateDone, jetstream.ErrNoStreamResponse, false},
		{"outcome answer lost", executor.StateDone, nats.ErrTimeout, true},
		{"lease timeout", executor.StateRunning, nats.ErrTimeout, false},
		{"lease answer lost", executor.StateRunning, context.DeadlineExceeded, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const fails = 3
			b := bustest.Start(t)
			tool := newCounter(nil)
			e, err := executor.New(executor.Config{JS: b.JS,
				Tools: map[string]executor.Tool{"noop": tool}, Heartbeat: 250 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			failed := executor.FlakyRecordWrites(e, tc.state, fails, tc.err, tc.applied)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- e.Run(ctx) }()
			defer func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("run: %v", err)
				}
			}()
			key := publishCall(t, b, callSpec{tenant: "acme", tool: "noop", call: "c1"})
			o := waitOutcome(t, b, "acme", key)
			if o.ok == nil {
				t.Fatalf("outcome %v, want success", o)
			}
			want := fails
			if tc.applied {
				want = 1 // the first write was applied: the next try finds it
			}
			st := e.Stats()
			if failed() != want || tool.count(key) != 1 || st.Succeeded != 1 || st.Dropped != 0 {
				t.Fatalf("%d writes failed (want %d), tool invoked %d times, stats %+v", failed(), want, tool.count(key), st)
			}
		})
	}
}
