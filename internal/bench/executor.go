package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

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

// NoopCalls runs the no-op projection over the call events b's stream
// holds, published before (PublishCalls; last is the sequence of the
// last), and returns the time from its start until its view's checkpoint
// stood at last: its output stored, the same point ExecutorCalls stops at.
func NoopCalls(ctx context.Context, b *bus.Bus, dir string, last uint64) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, waitMax)
	defer cancel()
	r, err := projector.New(projector.Config{JS: b.JS, Dir: filepath.Join(dir, "bench-noop-calls")}, Noop{Filter: []string{"ts.call.>"}})
	if err != nil {
		return 0, err
	}
	defer r.Close()
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- r.Run(rctx) }()
	defer func() { stop(); <-done }()
	if err := r.WaitFor(ctx, last); err != nil {
		return 0, fmt.Errorf("bench: no-op projection on calls: %w", err)
	}
	return time.Since(start), nil
}

// ExecutorCalls runs one in-process executor with the noop tool
// (NoopRegistry) over the n call events b's stream holds, published before
// (PublishCalls), and returns the time from its start until it counted the
// n-th CallSucceeded, which it does once the log acknowledged storing it:
// its last output stored. It fails unless all n succeeded.
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
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- ex.Run(rctx) }()
	defer func() { stop(); <-done }()
	// The executor counts an outcome once the log acknowledged storing it;
	// it is read every 100 µs (a step small against the run's length).
	tick := time.NewTicker(100 * time.Microsecond)
	defer tick.Stop()
	for {
		st := ex.Stats()
		if st.Failed > 0 {
			return 0, fmt.Errorf("bench: of %d noop calls %d succeeded and %d failed", n, st.Succeeded, st.Failed)
		}
		if st.Succeeded >= uint64(n) {
			return time.Since(start), nil
		}
		select {
		case <-tick.C:
		case err := <-done:
			return 0, fmt.Errorf("bench: executor stopped: %v", err)
		case <-ctx.Done():
			return 0, fmt.Errorf("bench: %d of %d outcomes: %w", st.Succeeded, n, ctx.Err())
		}
	}
}

// ExecutorRatio publishes n calls of the noop tool to b once and runs both
// sides of the executor row over them, one after the other on the same
// server (the no-op projection first when noopFirst): each from its start
// until its last output was stored (NoopCalls, ExecutorCalls).
func ExecutorRatio(ctx context.Context, b *bus.Bus, dir string, n int, noopFirst bool) (noop, exec time.Duration, err error) {
	last, err := PublishCalls(ctx, b.JS, "exec", n)
	if err != nil {
		return 0, 0, err
	}
	runNoop := func() error { noop, err = NoopCalls(ctx, b, dir, last); return err }
	runExec := func() error { exec, err = ExecutorCalls(ctx, b, n); return err }
	first, second := runExec, runNoop
	if noopFirst {
		first, second = runNoop, runExec
	}
	if err := first(); err != nil {
		return 0, 0, err
	}
	if err := second(); err != nil {
		return 0, 0, err
	}
	return noop, exec, nil
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
