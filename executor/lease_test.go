package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

const leaseYAML = `
tools:
  - name: once
    side_effect: reversible
    idempotency: none
  - name: idem.auto
    side_effect: reversible
    idempotency: required
grants:
  - tenant: acme
    permissions: [once, idem.auto]
`

// An executor that stops renewing its lease (a long pause) loses the call
// to another executor; its late result is dropped.
func TestLeaseTakeover(t *testing.T) {
	b := bustest.Start(t)
	reg := parseRegistry(t, leaseYAML)
	var mu sync.Mutex
	invocations := map[string][]string{} // key → executor that invoked
	entered := make(chan string, 4)
	release := make(chan struct{})
	tool := func(who string) executor.Tool {
		return executor.ToolFunc(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
			mu.Lock()
			invocations[c.Key] = append(invocations[c.Key], who)
			mu.Unlock()
			if who == "A" {
				entered <- c.Key
				<-release // paused: no heartbeat, and it ignores cancellation
			}
			return json.RawMessage(fmt.Sprintf(`{"by":%q,"attempt":%d}`, who, c.Attempt)), nil
		})
	}
	toolsA := map[string]executor.Tool{"once": tool("A"), "idem.auto": tool("A")}
	toolsB := map[string]executor.Tool{"once": tool("B"), "idem.auto": tool("B")}
	a, _ := startExec(t, b, reg, toolsA, func(c *executor.Config) {
		c.ExecutorID = "A"
		c.Hooks = &executor.Hooks{SkipHeartbeat: func(string) bool { return true }}
	})
	kOnce := publishCall(t, b, callSpec{tenant: "acme", tool: "once", call: "once"})
	kIdem := publishCall(t, b, callSpec{tenant: "acme", tool: "idem.auto", call: "idem"})
	<-entered
	<-entered
	bx, _ := startExec(t, b, reg, toolsB, func(c *executor.Config) { c.ExecutorID = "B" })

	o := waitOutcome(t, b, "acme", kOnce)
	if o.err == nil || o.err.Error != events.ErrOutcomeUnknown {
		t.Fatalf("non-idempotent call taken over: %v", o)
	}
	o = waitOutcome(t, b, "acme", kIdem)
	if o.ok == nil || string(o.ok.Result) != `{"by":"B","attempt":2}` {
		t.Fatalf("idempotent call taken over: %v", o)
	}
	close(release)
	waitFor(t, "A to drop its late results", func() bool { return a.Stats().Dropped == 2 })
	mu.Lock()
	defer mu.Unlock()
	if got := fmt.Sprint(invocations[kOnce]); got != "[A]" {
		t.Fatalf("non-idempotent tool invoked by %s, want only A", got)
	}
	if got := fmt.Sprint(invocations[kIdem]); got != "[A B]" {
		t.Fatalf("idempotent tool invoked by %s, want A then B (same key)", got)
	}
	for _, k := range []string{kOnce, kIdem} {
		n := 0
		for _, ev := range all(t, b, "ts.result.acme.>") {
			if ev.ID == events.ResultID(k) {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d outcomes for %s", n, k)
		}
	}
	if s := bx.Stats(); s.Takeovers != 1 {
		t.Fatalf("B stats %+v", s)
	}
}

// Redelivery storms and duplicate CallCompleted events (same and other
// Nats-Msg-Id) never cause an extra invocation.
func TestRedeliveryStormInvokesOnce(t *testing.T) {
	b := bustest.Start(t)
	reg := parseRegistry(t, leaseYAML)
	once, idem := newCounter(nil), newCounter(nil)
	tools := map[string]executor.Tool{"once": once, "idem.auto": idem}
	var execs []*executor.Executor
	for i := range 3 {
		e, _ := startExec(t, b, reg, tools, func(c *executor.Config) {
			c.ExecutorID = fmt.Sprint("x", i)
			c.Heartbeat = 10 * testHeartbeat
		})
		execs = append(execs, e)
	}
	// A rogue member of the consumer group hands back everything it gets.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	waitFor(t, "consumer", func() bool {
		_, err := b.JS.Consumer(ctx, events.StreamCalls, "ts-executor")
		return err == nil
	})
	cons, _ := b.JS.Consumer(ctx, events.StreamCalls, "ts-executor")
	var naks atomic.Int64
	cc, err := cons.Consume(func(m jetstream.Msg) { naks.Add(1); m.Nak() }, jetstream.PullMaxMessages(8))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Stop()

	const n = 60
	var keys []string
	for i := range n {
		tool := "once"
		if i%2 == 1 {
			tool = "idem.auto"
		}
		c := callSpec{tenant: "acme", tool: tool, call: fmt.Sprint("s", i)}
		for range 3 {
			keys = append(keys, publishCall(t, b, c)) // same Nats-Msg-Id: dropped by the log
		}
		for d := range 3 {
			c.msgID = fmt.Sprintf("dup-%d-%d", i, d) // other ids: in the log, three more times
			publishCall(t, b, c)
		}
	}
	for _, k := range keys {
		if o := waitOutcome(t, b, "acme", k); o.ok == nil {
			t.Fatalf("%s: %v", k, o)
		}
	}
	waitIdle(t, b, "ts-executor")
	for _, k := range keys {
		if c := once.count(k) + idem.count(k); c != 1 {
			t.Fatalf("%s invoked %d times", k, c)
		}
	}
	outcomes := all(t, b, "ts.result.acme.>")
	if len(outcomes) != n {
		t.Fatalf("%d outcomes in the log, want %d", len(outcomes), n)
	}
	var dups uint64
	for _, e := range execs {
		dups += e.Stats().Duplicates
	}
	if dups < 3*n || naks.Load() == 0 {
		t.Fatalf("duplicates acknowledged %d (want ≥ %d), rogue naks %d", dups, 3*n, naks.Load())
	}
}

// A decision about a call that is already running (its tool needs no
// approval) leaves it alone: no lease is broken, nothing runs twice.
func TestStrayDecisionLeavesARunningCallAlone(t *testing.T) {
	b := bustest.Start(t)
	reg := parseRegistry(t, leaseYAML)
	entered, release := make(chan struct{}, 1), make(chan struct{})
	once := newCounter(func(context.Context, executor.Call) (json.RawMessage, error) {
		entered <- struct{}{}
		<-release
		return json.RawMessage(`{"done":true}`), nil
	})
	startExec(t, b, reg, map[string]executor.Tool{"once": once}, nil)
	key := publishCall(t, b, callSpec{tenant: "acme", tool: "once", call: "busy"})
	<-entered
	// Another executor takes the decision (the busy one hands it back while
	// the call runs in it).
	startExec(t, b, reg, nil, nil)
	if err := executor.Deny(context.Background(), b.JS, "acme", key, "mallory", "stop"); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, b, "ts-executor-approvals")
	close(release)
	if o := waitOutcome(t, b, "acme", key); o.ok == nil || once.count(key) != 1 {
		t.Fatalf("running call after a stray decision: %v, %d invocations", o, once.count(key))
	}
}
