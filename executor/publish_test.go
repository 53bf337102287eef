package executor_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// An outcome the log refuses to store (here: the stream of results is
// full, and discards new messages) is not lost and not decided twice: the
// input is handed back unacknowledged; once the log takes messages again,
// a write recorded in the bucket is published as recorded, without running
// again, and a read decided in the log alone runs again (harmless) and is
// decided once.
func TestOutcomePublishRefused(t *testing.T) {
	ctx := context.Background()
	b := bustest.Start(t)
	reg := parseRegistry(t, logRecordYAML)
	read, write := newCounter(nil), newCounter(func(context.Context, executor.Call) (json.RawMessage, error) {
		return json.RawMessage(`{"wrote":1}`), nil
	})
	out := b.Stream(events.StreamOut)
	info, err := out.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	open := info.Config
	full := open
	full.MaxMsgs, full.Discard = max(1, int64(info.State.Msgs)), jetstream.DiscardNew
	if info.State.Msgs == 0 { // one message in the stream, so it is full
		filler, err := events.ResultSubject("acme", "filler")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.JS.Publish(ctx, filler, mustEncode(t, &events.Event{ID: "filler", Tenant: "acme", Body: &events.Tick{}})); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.JS.UpdateStream(ctx, full); err != nil {
		t.Fatal(err)
	}
	e, _ := startExec(t, b, reg, map[string]executor.Tool{"read": read, "write": write}, nil)
	rkey := publishCall(t, b, callSpec{tenant: "acme", tool: "read", call: "r1"})
	wkey := publishCall(t, b, callSpec{tenant: "acme", tool: "write", call: "w1"})

	waitFor(t, "the write's outcome in its record, and the read run", func() bool {
		st, err := executor.CallStatus(ctx, b.JS, "", "acme", wkey)
		return err == nil && st != nil && st.State == "done" && read.count(rkey) >= 1
	})
	for _, k := range []string{rkey, wkey} {
		subj, _ := events.ResultSubject("acme", k)
		if m := lastOn(t, b, subj); m != nil {
			t.Fatalf("an outcome of %s while the log refused it", k)
		}
	}
	c, err := b.JS.Consumer(ctx, events.StreamCalls, "ts-executor")
	if err != nil {
		t.Fatal(err)
	}
	if ci, err := c.Info(ctx); err != nil || ci.NumAckPending+int(ci.NumPending) == 0 {
		t.Fatalf("the inputs were acknowledged with their outcomes refused: %+v, %v", ci, err)
	}

	if _, err := b.JS.UpdateStream(ctx, open); err != nil {
		t.Fatal(err)
	}
	ro, wo := waitOutcome(t, b, "acme", rkey), waitOutcome(t, b, "acme", wkey)
	if ro.ok == nil || wo.ok == nil || string(wo.ok.Result) != `{"wrote":1}` {
		t.Fatalf("outcomes %v, %v", ro, wo)
	}
	waitIdle(t, b, "ts-executor")
	if write.count(wkey) != 1 || wo.ok.Attempts != 1 {
		t.Fatalf("the write ran %d times (%d attempts)", write.count(wkey), wo.ok.Attempts)
	}
	for _, k := range []string{rkey, wkey} {
		subj, _ := events.ResultSubject("acme", k)
		if n := count(t, b, subj); n != 1 {
			t.Fatalf("%s: %d messages on its result subject", k, n)
		}
	}
	if st, err := executor.CallStatus(ctx, b.JS, "", "acme", rkey); err != nil || st != nil {
		t.Fatalf("the read has a record: %+v, %v", st, err)
	}
	if s := e.Stats(); s.Succeeded < 2 {
		t.Fatalf("stats %+v", s)
	}
}
