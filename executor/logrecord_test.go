package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

const logRecordYAML = `
tools:
  - name: read
    side_effect: none
  - name: write
    idempotency: required
grants:
  - tenant: acme
    permissions: [read, write]
`

// A tool without side effects is decided in the log alone: its outcome is
// the first message on the key's result subject and no record is written
// to the bucket. A duplicate input, a call that depends on it and an
// approval find it there; a call of another tool under the same key is
// refused and never runs.
func TestSideEffectFreeCallsAreRecordedInTheLog(t *testing.T) {
	b := bustest.Start(t)
	reg := parseRegistry(t, logRecordYAML)
	read := newCounter(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
		return json.Marshal(map[string]string{"call": c.CallID})
	})
	write := newCounter(nil)
	e, _ := startExec(t, b, reg, map[string]executor.Tool{"read": read, "write": write}, func(c *executor.Config) {
		c.DependencyWaitMax = 10 * time.Second
	})
	ctx := context.Background()

	key := publishCall(t, b, callSpec{tenant: "acme", tool: "read", call: "r1", response: "resp_1"})
	if o := waitOutcome(t, b, "acme", key); o.ok == nil || string(o.ok.Result) != `{"call":"r1"}` {
		t.Fatalf("outcome %v", o)
	}
	if st, err := executor.CallStatus(ctx, b.JS, "", "acme", key); err != nil || st != nil {
		t.Fatalf("a record in the bucket for a call decided in the log: %+v, %v", st, err)
	}
	subj, _ := events.ResultSubject("acme", key)
	m := lastOn(t, b, subj)
	if seq, err := strconv.ParseUint(m.Header.Get("Ts-Input-Seq"), 10, 64); err != nil || seq == 0 || m.Header.Get("Ts-Call-Name") != "read" {
		t.Fatalf("the outcome does not say which input it decides: %v", m.Header)
	}

	// A duplicate under another message id: acknowledged as one, no second outcome.
	publishCall(t, b, callSpec{tenant: "acme", tool: "read", call: "r1", response: "resp_1", msgID: "again-r1"})
	waitFor(t, "the duplicate", func() bool { return e.Stats().Duplicates > 0 })

	// A call that depends on it runs once it finds the outcome in the log.
	kd := publishCall(t, b, callSpec{tenant: "acme", tool: "read", call: "r2", response: "resp_1", dependsOn: []string{"r1"}})
	if o := waitOutcome(t, b, "acme", kd); o.ok == nil {
		t.Fatalf("dependent: %v", o)
	}

	// Another tool under the same key (another item): refused, never run.
	publishCall(t, b, callSpec{tenant: "acme", tool: "write", call: "r1", response: "resp_1", item: "i9", msgID: "other-r1"})
	var refused *events.CallFailed
	waitFor(t, "the refusal", func() bool {
		ev := lastEvent(t, b, subj)
		if ev == nil {
			return false
		}
		refused, _ = events.As[*events.CallFailed](ev)
		return refused != nil && strings.HasPrefix(ev.ID, "conflict:")
	})
	if refused.Error != events.ErrIdempotencyConflict || write.total.Load() != 0 {
		t.Fatalf("refusal %+v, write invoked %d times", refused, write.total.Load())
	}

	// An approval of the decided call changes nothing.
	if err := executor.Approve(ctx, b.JS, "acme", key, "ops", ""); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, b, "ts-executor-approvals")
	if st, err := executor.CallStatus(ctx, b.JS, "", "acme", key); err != nil || st != nil {
		t.Fatalf("an approval wrote a record for a call decided in the log: %+v, %v", st, err)
	}

	outcomes := 0
	for _, ev := range all(t, b, subj) {
		if ev.ID == events.ResultID(key) {
			outcomes++
		}
	}
	if outcomes != 1 || read.count(key) != 2 { // the duplicate's first delivery ran the read again: harmless by contract
		t.Fatalf("%d outcomes, %d invocations", outcomes, read.count(key))
	}
}

// A key whose record is in the bucket (a call with side effects ran under
// it) is not taken by a side-effect-free call that comes later: it is
// refused, and the key keeps its one outcome.
func TestLogRecordDefersToTheBucket(t *testing.T) {
	b := bustest.Start(t)
	reg := parseRegistry(t, logRecordYAML)
	read, write := newCounter(nil), newCounter(nil)
	startExec(t, b, reg, map[string]executor.Tool{"read": read, "write": write}, nil)
	key := publishCall(t, b, callSpec{tenant: "acme", tool: "write", call: "w1"})
	if o := waitOutcome(t, b, "acme", key); o.ok == nil {
		t.Fatalf("write: %v", o)
	}
	if k := publishCall(t, b, callSpec{tenant: "acme", tool: "read", call: "w1", item: "i2", msgID: "read-w1"}); k != key {
		t.Fatalf("key %s, want %s", k, key)
	}
	subj, _ := events.ResultSubject("acme", key)
	waitFor(t, "the refusal", func() bool {
		ev := lastEvent(t, b, subj)
		if ev == nil {
			return false
		}
		f, ok := events.As[*events.CallFailed](ev)
		return ok && f.Error == events.ErrIdempotencyConflict && ev.Item == "i2"
	})
	n := 0
	for _, ev := range all(t, b, subj) {
		if ev.ID == events.ResultID(key) {
			if _, ok := events.As[*events.CallSucceeded](ev); !ok || ev.Item != "item_w1" {
				t.Fatalf("the key's outcome is %s of %s", ev.Kind, ev.Item)
			}
			n++
		}
	}
	if n != 1 || write.count(key) != 1 {
		t.Fatalf("%d outcomes, write invoked %d times", n, write.count(key))
	}
}

// A crash of an executor at each point of a side-effect-free call: the
// next one finds the outcome in the log (after the publish) or runs the
// tool again (before it; harmless by contract), and the call ends with
// exactly one outcome and no record in the bucket.
func TestCrashAtEachPointSideEffectFree(t *testing.T) {
	for _, point := range []string{"before-invoke", "after-invoke", "before-publish", "before-ack"} {
		t.Run(point, func(t *testing.T) {
			b := bustest.Start(t)
			dir := t.TempDir()
			effects := filepath.Join(dir, "effects")
			toolsFile := filepath.Join(dir, "tools.yaml")
			os.WriteFile(toolsFile, []byte(fmt.Sprintf(`
tools:
  - {name: read.cmd, side_effect: none, command: [%q, tstool, once, %q]}
grants:
  - {tenant: acme, permissions: [read.cmd]}
`, os.Args[0], effects)), 0o644)
			key := publishCall(t, b, callSpec{tenant: "acme", tool: "read.cmd", call: "r"})
			c := startChild(t, b, toolsFile, "doomed", 50, 4, "TS_KILL_AT="+point)
			if err := <-c.done; err == nil || !strings.Contains(err.Error(), "killed") {
				t.Fatalf("child was not killed at %s: %v", point, err)
			}
			ran := len(readLines(t, effects))
			c = startChild(t, b, toolsFile, "survivor", 50, 4)
			o := waitOutcome(t, b, "acme", key)
			waitIdle(t, b, "ts-executor")
			c.stop(t)
			want := ran + 1 // the survivor runs it again
			if point == "before-ack" {
				want = ran // the outcome was in the log: nothing runs again
			}
			if got := len(readLines(t, effects)); o.ok == nil || got != want {
				t.Fatalf("outcome %v, %d invocations, want %d", o, got, want)
			}
			subj, _ := events.ResultSubject("acme", key)
			if n := count(t, b, subj); n != 1 {
				t.Fatalf("%d messages on the result subject", n)
			}
			if st, err := executor.CallStatus(context.Background(), b.JS, "", "acme", key); err != nil || st != nil {
				t.Fatalf("record %+v, %v", st, err)
			}
		})
	}
}

// Looks at the bucket made together (a burst of side-effect-free calls
// decided at once, by two executors) still find every record there: reads
// that reuse the keys of writes, done or running under another executor's
// lease, are refused, the writes keep their one outcome each, and every
// other read is decided in the log alone, once.
func TestLogRecordDefersToTheBucketInABurst(t *testing.T) {
	const writes, running, reads = 12, 4, 160
	b := bustest.Start(t)
	reg := parseRegistry(t, logRecordYAML)
	hold, release := make(chan struct{}), make(chan struct{})
	read := newCounter(func(ctx context.Context, _ executor.Call) (json.RawMessage, error) {
		select { // every read waits for the whole burst, so their looks meet
		case <-hold:
		case <-ctx.Done():
		}
		return json.RawMessage(`{"read":true}`), nil
	})
	write := newCounter(func(ctx context.Context, c executor.Call) (json.RawMessage, error) {
		if n, _ := strconv.Atoi(strings.TrimPrefix(c.CallID, "w")); n >= writes-running { // the last ones hold their lease until released
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		return json.RawMessage(`{"wrote":true}`), nil
	})
	tools := map[string]executor.Tool{"read": read, "write": write}
	// Leases long enough that a loaded machine does not let one run out
	// (a takeover would invoke a write again, as its contract allows).
	startExec(t, b, reg, tools, func(c *executor.Config) {
		c.InFlightMax, c.MaxParallelPerTenant, c.Heartbeat = 256, 64, time.Second
	})
	ctx := context.Background()

	var wkeys []string
	for i := range writes {
		wkeys = append(wkeys, publishCall(t, b, callSpec{tenant: "acme", tool: "write", call: fmt.Sprint("w", i)}))
	}
	for i, k := range wkeys[:writes-running] {
		if o := waitOutcome(t, b, "acme", k); o.ok == nil {
			t.Fatalf("write %d: %v", i, o)
		}
	}
	waitFor(t, "the running writes' leases", func() bool {
		for _, k := range wkeys[writes-running:] {
			if st, err := executor.CallStatus(ctx, b.JS, "", "acme", k); err != nil || st == nil || st.State != "running" {
				return false
			}
		}
		return true
	})
	// A second executor, on a durable of its own: it reads every call too,
	// and the reads under the running writes' keys are its to refuse (the
	// first holds those keys while it runs the writes).
	startExec(t, b, reg, tools, func(c *executor.Config) {
		c.InFlightMax, c.MaxParallelPerTenant, c.Heartbeat = 256, 64, time.Second
		c.Durable, c.ApprovalDurable, c.ExecutorID = "ts-executor-b", "ts-executor-b-approvals", "b"
	})

	// The burst: fresh reads, and reads under the writes' keys (other items).
	var fresh []string
	for i := range reads {
		if i < writes {
			publishCall(t, b, callSpec{tenant: "acme", tool: "read", call: fmt.Sprint("w", i), item: fmt.Sprint("other_", i), msgID: fmt.Sprint("reuse-", i)})
			continue
		}
		fresh = append(fresh, publishCall(t, b, callSpec{tenant: "acme", tool: "read", call: fmt.Sprint("r", i)}))
	}
	close(hold)
	for _, k := range fresh {
		if o := waitOutcome(t, b, "acme", k); o.ok == nil || string(o.ok.Result) != `{"read":true}` {
			t.Fatalf("read %s: %v", k, o)
		}
	}
	refused := func(k string) bool {
		subj, _ := events.ResultSubject("acme", k)
		for _, ev := range all(t, b, subj) {
			if f, ok := events.As[*events.CallFailed](ev); ok && f.Error == events.ErrIdempotencyConflict && strings.HasPrefix(ev.Item, "other_") {
				return true
			}
		}
		return false
	}
	for i, k := range wkeys {
		waitFor(t, fmt.Sprint("the refusal of the read under write ", i), func() bool { return refused(k) })
	}
	close(release)
	for i, k := range wkeys {
		waitFor(t, fmt.Sprint("the outcome of write ", i), func() bool {
			st, err := executor.CallStatus(ctx, b.JS, "", "acme", k)
			return err == nil && st != nil && st.State == "done"
		})
		subj, _ := events.ResultSubject("acme", k)
		outcomes := 0
		for _, ev := range all(t, b, subj) {
			if ev.ID != events.ResultID(k) {
				continue
			}
			outcomes++
			if o, ok := events.As[*events.CallSucceeded](ev); !ok || string(o.Result) != `{"wrote":true}` || ev.Item != fmt.Sprint("item_w", i) {
				t.Fatalf("write %d: the key's outcome is %s of %s", i, ev.Kind, ev.Item)
			}
		}
		if outcomes != 1 || write.count(k) != 1 {
			t.Fatalf("write %d: %d outcomes, invoked %d times", i, outcomes, write.count(k))
		}
	}
	for _, k := range fresh {
		subj, _ := events.ResultSubject("acme", k)
		if n := count(t, b, subj); n != 1 {
			t.Fatalf("read %s: %d messages on its result subject", k, n)
		}
		if st, err := executor.CallStatus(ctx, b.JS, "", "acme", k); err != nil || st != nil {
			t.Fatalf("read %s has a record in the bucket: %+v, %v", k, st, err)
		}
	}
}
