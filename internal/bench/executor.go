package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/registry"
)

// executorTenants spread the calls so per-tenant parallelism is not the
// bound being measured.
const executorTenants = 8

// NoopRegistry is the registry of the executor measurements: one tool,
// "noop", with no side effect (no lease: one record write per call),
// granted to tenants t0…t7.
func NoopRegistry() (*registry.Registry, error) {
	var b strings.Builder
	b.WriteString("tools:\n  - {name: noop, side_effect: none}\ngrants:\n")
	for i := range executorTenants {
		fmt.Fprintf(&b, "  - {tenant: t%d, permissions: [noop]}\n", i)
	}
	return registry.Parse([]byte(b.String()))
}

// PublishCalls publishes n CallCompleted events of the noop tool (tenants
// t0…t7, call ids c0…, response phase) asynchronously, each with its
// deterministic id as Nats-Msg-Id, and returns the sequence of the last.
func PublishCalls(ctx context.Context, js jetstream.JetStream, phase string, n int) (uint64, error) {
	var last jetstream.PubAckFuture
	for i := range n {
		tenant, call := fmt.Sprint("t", i%executorTenants), fmt.Sprint("c", i)
		ev := &events.Event{ID: events.CompletedID(tenant, phase, "item_"+call), Tenant: tenant, Response: phase, Item: "item_" + call,
			CallID: call, At: time.Now().UnixNano(), Body: &events.CallCompleted{Name: "noop", Arguments: []byte(`{}`)}}
		data, err := events.Encode(ev)
		if err != nil {
			return 0, err
		}
		subj, err := events.CallSubject(tenant, "noop")
		if err != nil {
			return 0, err
		}
		if last, err = publishAsync(ctx, js, subj, data, jetstream.WithMsgID(ev.ID)); err != nil {
			return 0, err
		}
	}
	return waitPublished(ctx, js, last)
}

// NoopCalls starts the no-op projection on call events, publishes n calls
// (PublishCalls) and returns the time from the first publish until the
// projection applied the last: the backbone's rate on the same events the
// executor gets. b's stream must be empty.
func NoopCalls(ctx context.Context, b *bus.Bus, dir string, n int) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, waitMax)
	defer cancel()
	r, err := projector.New(projector.Config{JS: b.JS, Dir: filepath.Join(dir, "bench-noop-calls")}, Noop{Filter: []string{"ts.call.>"}})
	if err != nil {
		return 0, err
	}
	defer r.Close()
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(rctx) }()
	defer func() { stop(); <-done }()
	start := time.Now()
	last, err := PublishCalls(ctx, b.JS, "noop", n)
	if err != nil {
		return 0, err
	}
	if err := r.WaitFor(ctx, last); err != nil {
		return 0, fmt.Errorf("bench: no-op projection on calls: %w", err)
	}
	return time.Since(start), nil
}

// ExecutorCalls runs one in-process executor with the noop tool
// (NoopRegistry), publishes n calls once its consumer exists, and returns the
// time from the first publish until the n-th outcome was published (seen
// by a core subscription, the moment JetStream stores it; the subscriber
// only notes the subject, so the harness costs the measured process
// little). It fails unless the executor counted n CallSucceeded.
func ExecutorCalls(ctx context.Context, b *bus.Bus, n int) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, waitMax)
	defer cancel()
	reg, err := NoopRegistry()
	if err != nil {
		return 0, err
	}
	noop := executor.ToolFunc(func(context.Context, executor.Call) (json.RawMessage, error) { return json.RawMessage(`{}`), nil })
	ex, err := executor.New(executor.Config{JS: b.JS, Keys: b.Keys, ExecutorID: "bench",
		Registry: func() *registry.Registry { return reg }, Tools: map[string]executor.Tool{"noop": noop},
		InFlightMax: 1000, MaxParallelPerTenant: 64})
	if err != nil {
		return 0, err
	}
	var (
		mu     sync.Mutex
		seen   = map[string]bool{}
		lastAt time.Time
		all    = make(chan struct{})
	)
	sub, err := b.Conn.Subscribe("ts.result.>", func(m *nats.Msg) {
		now := time.Now()
		mu.Lock()
		defer mu.Unlock()
		if seen[m.Subject] {
			return
		}
		seen[m.Subject] = true
		lastAt = now
		if len(seen) == n {
			close(all)
		}
	})
	if err != nil {
		return 0, err
	}
	defer sub.Unsubscribe()
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- ex.Run(rctx) }()
	defer func() { stop(); <-done }()
	if err := waitConsumer(ctx, b, "ts-executor"); err != nil {
		return 0, err
	}
	start := time.Now()
	if _, err := PublishCalls(ctx, b.JS, "exec", n); err != nil {
		return 0, err
	}
	select {
	case <-all:
	case err := <-done:
		return 0, fmt.Errorf("bench: executor stopped: %v", err)
	case <-ctx.Done():
		mu.Lock()
		defer mu.Unlock()
		return 0, fmt.Errorf("bench: %d of %d outcomes: %w", len(seen), n, ctx.Err())
	}
	// The executor counts an outcome just after the log stored it.
	st := ex.Stats()
	for st.Succeeded+st.Failed < uint64(n) && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
		st = ex.Stats()
	}
	if st.Failed > 0 || st.Succeeded < uint64(n) {
		return 0, fmt.Errorf("bench: of %d noop calls %d succeeded and %d failed", n, st.Succeeded, st.Failed)
	}
	mu.Lock()
	defer mu.Unlock()
	return lastAt.Sub(start), nil
}

// waitConsumer polls until the durable consumer exists: the executor
// creates it before it pulls, and it delivers from the start of the log, so
// nothing published after this is missed.
func waitConsumer(ctx context.Context, b *bus.Bus, durable string) error {
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := b.JS.Consumer(ctx, events.StreamCalls, durable); err == nil {
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return fmt.Errorf("bench: no consumer %s: %w", durable, ctx.Err())
		}
	}
}
