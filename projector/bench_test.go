package projector_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/bus"
	"github.com/toolstream/toolstream/bus/bustest"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
)

type noop struct{}

func (noop) Name() string                                               { return "noop" }
func (noop) Subjects() []string                                         { return []string{"ts.model.>"} }
func (noop) Apply(context.Context, *projector.Tx, *projector.Msg) error { return nil }

func fill(b testing.TB, bs *bus.Bus, n int) uint64 {
	var last jetstream.PubAckFuture
	for i := 0; i < n; i++ {
		data, _ := events.Encode(&events.Event{ID: fmt.Sprint(i), Tenant: "acme", Response: "r", Item: "i", At: int64(i),
			Body: &events.ArgumentsDelta{Delta: `{"city":"Par`}})
		f, err := bs.JS.PublishAsync("ts.model.acme.r.i", data)
		if err != nil {
			b.Fatal(err)
		}
		last = f
	}
	<-bs.JS.PublishAsyncComplete()
	return (<-last.Ok()).Sequence
}

// rawConsume fetches and acks every event the way the runner does (a
// durable pull consumer, AckAll on the last message of each batch) but
// applies nothing: the baseline.
func rawConsume(b testing.TB, bs *bus.Bus, name string, last uint64, batchMax int) time.Duration {
	ctx := context.Background()
	start := time.Now()
	cons, err := bs.JS.CreateConsumer(ctx, bus.StreamName, jetstream.ConsumerConfig{Durable: name,
		AckPolicy: jetstream.AckAllPolicy, MaxAckPending: 8 * batchMax})
	if err != nil {
		b.Fatal(err)
	}
	ch := make(chan jetstream.Msg, 2*batchMax)
	cc, err := cons.Consume(func(m jetstream.Msg) { ch <- m }, jetstream.PullMaxMessages(batchMax))
	if err != nil {
		b.Fatal(err)
	}
	defer cc.Stop()
	batch := make([]jetstream.Msg, 0, batchMax)
	for {
		batch = append(batch[:0], <-ch)
	drain:
		for len(batch) < batchMax {
			select {
			case m := <-ch:
				batch = append(batch, m)
			default:
				break drain
			}
		}
		lastMsg := batch[len(batch)-1]
		md, _ := lastMsg.Metadata()
		lastMsg.Ack()
		if md.Sequence.Stream >= last {
			return time.Since(start)
		}
	}
}

func runNoop(b testing.TB, bs *bus.Bus, dir string, last uint64) time.Duration {
	start := time.Now()
	r, err := projector.New(projector.Config{JS: bs.JS, Stream: bus.StreamName, Dir: dir, Durable: filepath.Base(dir)}, noop{})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	if err := r.WaitFor(ctx, last); err != nil {
		b.Fatal(err)
	}
	d := time.Since(start)
	cancel()
	<-done
	r.Close()
	return d
}

// BenchmarkNoopProjection reports events/s through a no-op projection
// (fetch, apply, batch commit, ack) and its ratio to a raw pull consumer
// that fetches and acks the same events with the same ack policy, both in
// this process on the same stream. Issue target: ratio ≥ 0.7.
func BenchmarkNoopProjection(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	const n = 100_000
	bs := bustest.Start(b)
	last := fill(b, bs, n)
	dir := b.TempDir()
	var raw, proj time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		raw += rawConsume(b, bs, fmt.Sprintf("raw%d", i), last, 512)
		proj += runNoop(b, bs, filepath.Join(dir, fmt.Sprintf("noop%d", i)), last)
	}
	b.StopTimer()
	rawRate := float64(n*b.N) / raw.Seconds()
	projRate := float64(n*b.N) / proj.Seconds()
	b.ReportMetric(rawRate, "raw-events/s")
	b.ReportMetric(projRate, "noop-events/s")
	b.ReportMetric(projRate/rawRate, "ratio")
}
