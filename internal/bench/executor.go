package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
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

// NoopTool returns the executor row's no-op tool: a Go function that
// returns {} at once, marked executor.Immediate (it does no I/O and waits
// for nothing), so the executor runs it on its call's handler.
func NoopTool() executor.Tool {
	return executor.ImmediateFunc(func(context.Context, executor.Call) (json.RawMessage, error) {
		return json.RawMessage(`{}`), nil
	})
}

// ExecutorCalls runs one in-process executor with the noop tool
// (NoopRegistry, NoopTool) over the n call events b's stream holds,
// published before (PublishCalls), and returns the time from its start
// until it counted the n-th CallSucceeded, which it does once the log
// acknowledged storing it: its last output stored. It fails unless all n
// succeeded.
func ExecutorCalls(ctx context.Context, b *bus.Bus, n int) (time.Duration, error) {
	return ExecutorCallsWith(ctx, b, n, NoopTool())
}

// ExecutorCallsWith is ExecutorCalls with tool as the noop tool's
// implementation.
func ExecutorCallsWith(ctx context.Context, b *bus.Bus, n int, tool executor.Tool) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, waitMax)
	defer cancel()
	reg, err := NoopRegistry()
	if err != nil {
		return 0, err
	}
	ex, err := executor.New(executor.Config{JS: b.JS, Keys: b.Keys, ExecutorID: "bench",
		Registry: func() *registry.Registry { return reg }, Tools: map[string]executor.Tool{"noop": tool},
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

// FloorCalls is the least a durable executor of the n call events b's
// stream holds (PublishCalls) must make the log do, run by a plain nats.go
// program with none of the executor's work: a durable pull consumer with
// explicit acknowledgements, like the executors' (up to 256 a fetch); for
// each call one message published to a result subject of its own with the
// headers an outcome recorded in the log carries (its id, the
// compare-and-set on an empty subject, the input's sequence and the tool's
// name) and the input's bytes as its body, each publish with a reply
// subject on one inbox (as the executor's windows publish); each input
// acknowledged once its message's publish was. No decode, tool, bucket
// look or outcome encoding. It returns the time from its start until the
// n-th input was acknowledged. Fetches, publishes and acknowledgements go
// one batch at a time: what it measures is the CPU the log's side costs
// per call, not how fast one goroutine can drive it.
func FloorCalls(ctx context.Context, b *bus.Bus, n int) (time.Duration, error) {
	return FloorCallsWith(ctx, b, n, FloorOptions{})
}

// FloorOptions are changes to FloorCalls that would send the log fewer
// messages per call (BenchmarkFloorVariants weighs them); the zero value
// is FloorCalls.
type FloorOptions struct {
	// FastBatch publishes a fetch's messages as one fast batch (ADR-50:
	// reply subjects <inbox>.<id>.<flow>.fail.<seq>.<op>.$FI, one
	// acknowledgement for the batch at its commit, flow acknowledgements
	// now and then; the stream must allow batches) instead of each with
	// an acknowledgement of its own.
	FastBatch bool
	// AckAll acknowledges the last input of each fetch on a consumer of
	// its own with AckAll, instead of each input: one acknowledgement per
	// contiguous done prefix, since a fetch's inputs are all done once its
	// publishes were acknowledged.
	AckAll bool
	// AckNone reads the inputs on a consumer of its own with no
	// acknowledgements at all (AckNone): the stored outcomes, each naming
	// its input's sequence (Ts-Input-Seq), are then the only record of
	// what is done, and a reader that takes over would resume after the
	// last of them. That resumption costs nothing per call and is not run.
	AckNone bool
	// OneMessage stores a fetch's outcomes as one message (its body the
	// inputs' bytes one after another, its headers the last input's)
	// instead of one message per call: what a log that recorded outcomes
	// by the window would store. With AckAll or AckNone.
	OneMessage bool
}

// FloorCallsWith is FloorCalls changed by o. Each variant uses a durable
// and result subjects of its own, so that several run over the same calls.
func FloorCallsWith(ctx context.Context, b *bus.Bus, n int, o FloorOptions) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, waitMax)
	defer cancel()
	durable, prefix := "bench-floor", "floor-"
	pol := jetstream.AckExplicitPolicy
	if o != (FloorOptions{}) {
		durable, prefix = fmt.Sprintf("bench-floor-fast-%t-%t-%t-%t", o.FastBatch, o.AckAll, o.AckNone, o.OneMessage), fmt.Sprintf("ff%t%t%t%t-", o.FastBatch, o.AckAll, o.AckNone, o.OneMessage)
	}
	switch {
	case o.AckAll && o.AckNone, o.OneMessage && (o.FastBatch || !o.AckAll && !o.AckNone):
		return 0, fmt.Errorf("bench: floor: options %+v do not go together", o)
	case o.AckAll:
		pol = jetstream.AckAllPolicy
	case o.AckNone:
		pol = jetstream.AckNonePolicy
	}
	pending := 4000
	if o.AckNone {
		pending = 0 // the server refuses a limit on acknowledgements it does not wait for
	}
	c, err := b.JS.CreateConsumer(ctx, events.StreamCalls, jetstream.ConsumerConfig{
		Durable: durable, FilterSubjects: []string{executor.CallFilter}, AckPolicy: pol,
		MaxAckPending: pending, DeliverPolicy: jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return 0, fmt.Errorf("bench: floor consumer: %w", err)
	}
	nc := b.JS.Conn()
	inbox := nc.NewInbox()
	sub, err := nc.SubscribeSync(inbox + ".>")
	if err != nil {
		return 0, err
	}
	defer sub.Unsubscribe()
	start := time.Now()
	done := 0
	var batch []jetstream.Msg
	var body []byte
	for done < n {
		msgs, err := c.Fetch(min(256, n-done), jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			return 0, fmt.Errorf("bench: floor fetch: %w", err)
		}
		batch = batch[:0]
		for m := range msgs.Messages() {
			batch = append(batch, m)
		}
		if err := msgs.Error(); err != nil {
			return 0, fmt.Errorf("bench: floor fetch: %w", err)
		}
		id := ""
		if o.FastBatch {
			id = nuid.Next()
		}
		body = body[:0]
		for i, m := range batch {
			md, err := m.Metadata()
			if err != nil {
				return 0, err
			}
			// ts.call.<tenant>.<tool>: one result subject per call.
			tenant := strings.Split(m.Subject(), ".")[2]
			seq := strconv.FormatUint(md.Sequence.Stream, 10)
			subj, err := events.ResultSubject(tenant, prefix+seq)
			if err != nil {
				return 0, err
			}
			reply := inbox + "." + strconv.Itoa(i)
			if o.FastBatch {
				op := 1 // the batch's first message opens it, its last commits it
				if i == 0 {
					op = 0
				}
				if i == len(batch)-1 {
					op = 2
				}
				reply = fmt.Sprintf("%s.%s.%d.fail.%d.%d.$FI", inbox, id, 500, i+1, op)
			}
			data := m.Data()
			if o.OneMessage {
				if body = append(body, data...); i < len(batch)-1 {
					continue
				}
				data, reply = body, inbox+".0"
			}
			out := &nats.Msg{Subject: subj, Reply: reply, Data: data, Header: nats.Header{
				jetstream.MsgIDHeader:               []string{prefix + seq},
				jetstream.ExpectedLastSubjSeqHeader: []string{"0"},
				"Ts-Input-Seq":                      []string{seq},
				"Ts-Call-Name":                      []string{"noop"},
			}}
			if err := nc.PublishMsg(out); err != nil {
				return 0, fmt.Errorf("bench: floor publish: %w", err)
			}
		}
		answers := len(batch)
		if o.OneMessage {
			answers = 1
		}
		if err := floorAnswers(sub, inbox, answers, o.FastBatch, start.Add(waitMax)); err != nil {
			return 0, fmt.Errorf("bench: floor: %d of %d acknowledged: %w", done, n, err)
		}
		for i, m := range batch {
			if !o.AckNone && (!o.AckAll || i == len(batch)-1) {
				if err := m.Ack(); err != nil {
					return 0, err
				}
			}
			done++
		}
	}
	return time.Since(start), nil
}

// floorAnswers waits for the log's answers to a batch of k publishes: one
// acknowledgement each, or, for a fast batch, its commit's (flow
// acknowledgements between are skipped).
func floorAnswers(sub *nats.Subscription, inbox string, k int, fast bool, deadline time.Time) error {
	for got := 0; fast || got < k; {
		a, err := sub.NextMsg(time.Until(deadline))
		if err != nil {
			return err
		}
		if fast {
			if bytes.HasPrefix(a.Data, []byte(`{"type"`)) {
				if !bytes.Contains(a.Data, []byte(`"ack"`)) {
					return fmt.Errorf("fast batch: %s", a.Data)
				}
				continue
			}
			if !bytes.Contains(a.Data, []byte(fmt.Sprintf(`"count":%d`, k))) {
				return fmt.Errorf("fast batch: %s", a.Data)
			}
			return nil
		}
		i, err := strconv.Atoi(a.Subject[len(inbox)+1:])
		if err != nil || i >= k {
			return fmt.Errorf("an answer on %s", a.Subject)
		}
		if !bytes.HasPrefix(a.Data, []byte(`{"stream":`)) || bytes.Contains(a.Data, []byte(`"error"`)) {
			return fmt.Errorf("publish: %s", a.Data)
		}
		got++
	}
	return nil
}
