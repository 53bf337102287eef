package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/projector"
)

// ModelEvent is one canonical model event of tenant acme and where it goes.
type ModelEvent struct {
	Response, Item string
	Body           events.Body
}

// CallEvents returns the canonical events of calls calls of deltas
// 16-byte argument deltas each (plus an opening and a closing delta), in
// responses of four calls each. streams calls are under way at a time, their
// events interleaved one by one (1: each call's events back to back; many:
// a server streaming many responses at once).
func CallEvents(calls, deltas, streams int) []ModelEvent {
	streams = max(1, streams)
	var out []ModelEvent
	for first := 0; first < calls; first += streams {
		var group [][]ModelEvent
		for c := first; c < min(calls, first+streams); c++ {
			resp, item := fmt.Sprintf("r%d", c/4), fmt.Sprintf("i%d", c)
			evs := []ModelEvent{{resp, item, &events.OutputItemAdded{Type: events.ItemFunctionCall, Name: "search"}},
				{resp, item, &events.ArgumentsDelta{Delta: `{"q":"`}}}
			for d := 0; d < deltas; d++ {
				evs = append(evs, ModelEvent{resp, item, &events.ArgumentsDelta{Delta: "abcdefghijklmnop"}})
			}
			evs = append(evs, ModelEvent{resp, item, &events.ArgumentsDelta{Delta: `"}`}}, ModelEvent{resp, item, &events.ArgumentsDone{}})
			group = append(group, evs)
		}
		for i := range group[0] {
			for _, evs := range group {
				out = append(out, evs[i])
			}
		}
	}
	return out
}

// CountDeltas counts the argument deltas among evs.
func CountDeltas(evs []ModelEvent) int {
	n := 0
	for _, e := range evs {
		if _, ok := e.Body.(*events.ArgumentsDelta); ok {
			n++
		}
	}
	return n
}

// EncodeModel encodes evs as they are published (ids b0, b1…, event time
// = position).
func EncodeModel(evs []ModelEvent) (subjects []string, data [][]byte, err error) {
	for i, e := range evs {
		subj, err := events.ModelSubject("acme", e.Response, e.Item)
		if err != nil {
			return nil, nil, err
		}
		d, err := events.Encode(&events.Event{ID: fmt.Sprint("b", i), Tenant: "acme", Response: e.Response, Item: e.Item, At: int64(i), Body: e.Body})
		if err != nil {
			return nil, nil, err
		}
		subjects, data = append(subjects, subj), append(data, d)
	}
	return subjects, data, nil
}

// PublishModel publishes evs (asynchronously) and returns the sequence of
// the last.
func PublishModel(ctx context.Context, js jetstream.JetStream, evs []ModelEvent) (uint64, error) {
	subjects, data, err := EncodeModel(evs)
	if err != nil {
		return 0, err
	}
	var last jetstream.PubAckFuture
	for i := range data {
		if last, err = publishAsync(ctx, js, subjects[i], data[i]); err != nil {
			return 0, err
		}
	}
	return waitPublished(ctx, js, last)
}

// ThroughputResult compares the assembler with the no-op projection over
// the same events.
type ThroughputResult struct {
	Events, Deltas  int
	Last            uint64 // last sequence of the events
	Noop, Assembler time.Duration
}

// AssemblerThroughput publishes CallEvents(calls, deltas, streams) to b's
// (empty) stream and times the no-op projection and the assembler
// projection (bus, Pebble, outbox, relay) over them.
func AssemblerThroughput(ctx context.Context, b *bus.Bus, dir string, calls, deltas, streams int) (ThroughputResult, error) {
	evs := CallEvents(calls, deltas, streams)
	last, err := PublishModel(ctx, b.JS, evs)
	if err != nil {
		return ThroughputResult{}, err
	}
	res := ThroughputResult{Events: len(evs), Deltas: CountDeltas(evs), Last: last}
	if res.Noop, err = RunProjection(ctx, b.JS, filepath.Join(dir, "bench-asm-noop"), Noop{}, last); err != nil {
		return res, err
	}
	res.Assembler, err = RunProjection(ctx, b.JS, filepath.Join(dir, "bench-asm"), assembler.New(assembler.Config{}), last)
	return res, err
}

// LatencyResult holds latency samples in the order taken.
type LatencyResult struct {
	Measured, Raw []time.Duration
}

// CompletionLatency runs the assembler on b (from sequence 1: best on a
// fresh stream) and takes samples pairs of
// latencies: from the publish of a call's completion event to its
// CallCompleted reaching a core subscriber, and one raw JetStream publish
// → pull consume round trip of an event nobody processes.
func CompletionLatency(ctx context.Context, b *bus.Bus, dir string, samples int) (LatencyResult, error) {
	ctx, cancel := context.WithTimeout(ctx, waitMax)
	defer cancel()
	r, err := projector.New(projector.Config{JS: b.JS, Dir: filepath.Join(dir, "bench-latency")}, assembler.New(assembler.Config{}))
	if err != nil {
		return LatencyResult{}, err
	}
	rctx, stop := context.WithCancel(ctx)
	stopped := make(chan struct{})
	var runErr error
	go func() { runErr = r.Run(rctx); close(stopped) }()
	defer func() { stop(); <-stopped; r.Close() }()

	// the assembler catches up with the log before the first sample
	if last, err := b.LastSeq(ctx, events.StreamModel); err != nil {
		return LatencyResult{}, err
	} else if err := r.WaitFor(ctx, last); err != nil {
		return LatencyResult{}, err
	}
	calls := make(chan *nats.Msg, 1024)
	sub, err := b.Conn.ChanSubscribe("ts.call.>", calls)
	if err != nil {
		return LatencyResult{}, err
	}
	defer sub.Unsubscribe()
	raw, err := b.JS.CreateConsumer(ctx, events.StreamModel, jetstream.ConsumerConfig{FilterSubjects: []string{"ts.ctl.acme.ping"}, AckPolicy: jetstream.AckNonePolicy})
	if err != nil {
		return LatencyResult{}, err
	}
	rawCh := make(chan jetstream.Msg, 16)
	cc, err := raw.Consume(func(m jetstream.Msg) { rawCh <- m })
	if err != nil {
		return LatencyResult{}, err
	}
	defer cc.Stop()
	waitCall := func(resp string) error {
		for {
			select {
			case m := <-calls:
				if ev, err := events.Decode(m.Data); err == nil && ev.Response == resp {
					return nil
				} // another call's outcome (a backlog): not this sample's
				continue
			case <-stopped:
				return fmt.Errorf("bench: assembler stopped: %v", runErr)
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	waitRaw := func() error {
		select {
		case <-rawCh:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	var res LatencyResult
	for i := 0; i < samples; i++ {
		resp := fmt.Sprint("lat", i)
		subj, _ := events.ModelSubject("acme", resp, "i")
		for _, body := range []events.Body{&events.OutputItemAdded{Type: events.ItemFunctionCall, Name: "t"}, &events.ArgumentsDelta{Delta: `{"a":1}`}} {
			if _, err := b.Publish(ctx, subj, &events.Event{ID: fmt.Sprint(resp, body.Kind()), Tenant: "acme", Response: resp, Item: "i", Body: body}); err != nil {
				return res, err
			}
		}
		start := time.Now()
		if _, err := b.Publish(ctx, subj, &events.Event{ID: resp + "done", Tenant: "acme", Response: resp, Item: "i", Body: &events.ArgumentsDone{}}); err != nil {
			return res, err
		}
		if err := waitCall(resp); err != nil {
			return res, err
		}
		res.Measured = append(res.Measured, time.Since(start))

		start = time.Now()
		if _, err := b.JS.Publish(ctx, "ts.ctl.acme.ping", []byte("x")); err != nil {
			return res, err
		}
		if err := waitRaw(); err != nil {
			return res, err
		}
		res.Raw = append(res.Raw, time.Since(start))
	}
	return res, nil
}
