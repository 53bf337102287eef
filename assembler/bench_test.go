package assembler_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/bus"
	"github.com/toolstream/toolstream/bus/bustest"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
)

type noop struct{ subjects []string }

func (n noop) Name() string                                             { return "noop" }
func (n noop) Subjects() []string                                       { return n.subjects }
func (noop) Apply(context.Context, *projector.Tx, *projector.Msg) error { return nil }

// callEvents returns the canonical events of calls calls of deltas argument
// deltas each (16 bytes), interleaved across 8 concurrent responses.
func callEvents(calls, deltas int) [][2]any {
	var out [][2]any
	for c := 0; c < calls; c++ {
		resp, item := fmt.Sprintf("r%d", c/4), fmt.Sprintf("i%d", c)
		out = append(out, [2]any{resp + "/" + item, &events.OutputItemAdded{Type: events.ItemFunctionCall, Name: "search"}})
		out = append(out, [2]any{resp + "/" + item, &events.ArgumentsDelta{Delta: `{"q":"`}})
		for d := 0; d < deltas; d++ {
			out = append(out, [2]any{resp + "/" + item, &events.ArgumentsDelta{Delta: "abcdefghijklmnop"}})
		}
		out = append(out, [2]any{resp + "/" + item, &events.ArgumentsDelta{Delta: `"}`}})
		out = append(out, [2]any{resp + "/" + item, &events.ArgumentsDone{}})
	}
	return out
}

func publishAll(b testing.TB, bs *bus.Bus, evs [][2]any) uint64 {
	var last jetstream.PubAckFuture
	for i, e := range evs {
		var resp, item string
		fmt.Sscanf(e[0].(string), "%s", &resp)
		for j := range resp {
			if resp[j] == '/' {
				resp, item = resp[:j], resp[j+1:]
				break
			}
		}
		subj, _ := events.ModelSubject("acme", resp, item)
		data, err := events.Encode(&events.Event{ID: fmt.Sprint("b", i), Tenant: "acme", Response: resp, Item: item, At: int64(i), Body: e[1].(events.Body)})
		if err != nil {
			b.Fatal(err)
		}
		f, err := bs.JS.PublishAsync(subj, data)
		if err != nil {
			b.Fatal(err)
		}
		last = f
	}
	<-bs.JS.PublishAsyncComplete()
	return (<-last.Ok()).Sequence
}

func timeRunner(b testing.TB, bs *bus.Bus, dir string, p projector.Projection, last uint64) time.Duration {
	start := time.Now()
	r, err := projector.New(projector.Config{JS: bs.JS, Stream: bus.StreamName, Dir: dir, Durable: filepath.Base(dir)}, p)
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

// BenchmarkAssemblerThroughput: argument deltas per second through the
// assembler projection (bus, Pebble, outbox) as a ratio to the backbone's
// no-op projection over the same events in the same run. Target ≥ 0.8.
func BenchmarkAssemblerThroughput(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	bs := bustest.Start(b)
	evs := callEvents(2000, 40)
	last := publishAll(b, bs, evs)
	deltas := 0
	for _, e := range evs {
		if _, ok := e[1].(*events.ArgumentsDelta); ok {
			deltas++
		}
	}
	dir := b.TempDir()
	var base, asm time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		base += timeRunner(b, bs, filepath.Join(dir, fmt.Sprint("noop", i)), noop{[]string{"ts.model.>"}}, last)
		asm += timeRunner(b, bs, filepath.Join(dir, fmt.Sprint("asm", i)), assembler.New(assembler.Config{}), last)
	}
	b.StopTimer()
	b.ReportMetric(float64(deltas*b.N)/asm.Seconds(), "deltas/s")
	b.ReportMetric(float64(deltas*b.N)/base.Seconds(), "noop-deltas/s")
	b.ReportMetric(base.Seconds()/asm.Seconds(), "ratio")
}

// BenchmarkCompletionLatency: from the publish of a completion event to the
// CallCompleted reaching a subscriber, as a ratio to one raw JetStream
// publish → consume round trip in the same run. Target ≤ 3×.
func BenchmarkCompletionLatency(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	bs := bustest.Start(b)
	ctx := context.Background()
	r, err := projector.New(projector.Config{JS: bs.JS, Stream: bus.StreamName, Dir: b.TempDir()}, assembler.New(assembler.Config{}))
	if err != nil {
		b.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	go r.Run(rctx)
	defer func() { cancel(); r.Close() }()

	calls := make(chan *nats.Msg, 16)
	sub, _ := bs.Conn.ChanSubscribe("ts.call.>", calls)
	defer sub.Unsubscribe()
	raw, _ := bs.JS.CreateConsumer(ctx, bus.StreamName, jetstream.ConsumerConfig{FilterSubjects: []string{"ts.ctl.acme.ping"}, AckPolicy: jetstream.AckNonePolicy})
	rawCh := make(chan jetstream.Msg, 16)
	cc, _ := raw.Consume(func(m jetstream.Msg) { rawCh <- m })
	defer cc.Stop()

	var asmLat, rawLat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp := fmt.Sprint("lat", i)
		for _, body := range []events.Body{&events.OutputItemAdded{Type: events.ItemFunctionCall, Name: "t"}, &events.ArgumentsDelta{Delta: `{"a":1}`}} {
			subj, _ := events.ModelSubject("acme", resp, "i")
			bs.Publish(ctx, subj, &events.Event{ID: fmt.Sprint(resp, body.Kind()), Tenant: "acme", Response: resp, Item: "i", Body: body})
		}
		subj, _ := events.ModelSubject("acme", resp, "i")
		start := time.Now()
		bs.Publish(ctx, subj, &events.Event{ID: resp + "done", Tenant: "acme", Response: resp, Item: "i", Body: &events.ArgumentsDone{}})
		<-calls
		asmLat = append(asmLat, time.Since(start))

		start = time.Now()
		if _, err := bs.JS.Publish(ctx, "ts.ctl.acme.ping", []byte("x")); err != nil {
			b.Fatal(err)
		}
		<-rawCh
		rawLat = append(rawLat, time.Since(start))
	}
	b.StopTimer()
	med := func(d []time.Duration) time.Duration {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[len(d)/2]
	}
	b.ReportMetric(float64(med(asmLat).Microseconds()), "p50-µs")
	b.ReportMetric(float64(med(rawLat).Microseconds()), "raw-p50-µs")
	b.ReportMetric(float64(med(asmLat))/float64(med(rawLat)), "ratio")
}

// TestNothingLeftBehind opens many calls, ends them every way there is, and
// checks that no argument row and no preview state outlives its call.
func TestNothingLeftBehind(t *testing.T) {
	dir := t.TempDir()
	previews := 0
	a := assembler.New(assembler.Config{Preview: func(string, []byte) { previews++ }})
	l, err := projector.NewLocal(filepath.Join(dir, "asm"), a)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	seq := uint64(0)
	apply := func(resp, item string, body events.Body) {
		seq++
		ev := &events.Event{ID: fmt.Sprint(seq), Tenant: "acme", Response: resp, Item: item, At: int64(seq), Body: body}
		data, _ := events.Encode(ev)
		if _, err := l.Apply(context.Background(), &projector.Msg{Seq: seq, Subject: "ts.model.acme.x.y", Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	ends := []events.Body{&events.ArgumentsDone{}, &events.ItemAborted{Reason: events.ReasonDiscarded}, &events.OutputItemDone{Status: "incomplete"}, nil}
	for c := 0; c < 400; c++ {
		resp, item := fmt.Sprint("r", c), "i"
		apply(resp, item, &events.OutputItemAdded{Type: events.ItemFunctionCall, Name: "t"})
		apply(resp, item, &events.ArgumentsDelta{Delta: `{"q":"`})
		apply(resp, item, &events.ArgumentsDelta{Delta: "some words"})
		if end := ends[c%len(ends)]; end != nil {
			apply(resp, item, end)
		}
		apply(resp, "", &events.ResponseIncomplete{Reason: events.ReasonTruncated})
	}
	if previews == 0 {
		t.Fatal("no previews were published")
	}
	v := l.Runner().View()
	defer v.Close()
	rows := 0
	v.Scan([]byte("acme\x00b\x00"), func(k, _ []byte) error { rows++; return nil })
	open := 0
	v.Scan([]byte("~open/"), func(k, _ []byte) error { open++; return nil })
	if rows != 0 || open != 0 {
		t.Fatalf("%d argument rows and %d open responses outlive their calls", rows, open)
	}
	if n := a.OpenPreviews(); n != 0 {
		t.Fatalf("%d preview parsers outlive their calls", n)
	}
}

// BenchmarkOpenCallMemory reports the Go heap an open call holds per
// argument byte received (issue bound: about 2× plus a small constant).
func BenchmarkOpenCallMemory(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	for i := 0; i < b.N; i++ {
		a := assembler.New(assembler.Config{Preview: func(string, []byte) {}})
		l, err := projector.NewLocal(b.TempDir(), a)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		const calls, deltas = 200, 256
		seq := uint64(0)
		for c := 0; c < calls; c++ {
			for d := -1; d < deltas; d++ {
				seq++
				var body events.Body = &events.ArgumentsDelta{Delta: `{"k":"0123456789abc`}
				if d == -1 {
					body = &events.OutputItemAdded{Type: events.ItemFunctionCall, Name: "t"}
				} else if d > 0 {
					body = &events.ArgumentsDelta{Delta: "0123456789abcdef"}
				}
				data, _ := events.Encode(&events.Event{ID: fmt.Sprint(seq), Tenant: "acme", Response: fmt.Sprint("r", c), Item: "i", Body: body})
				l.Apply(context.Background(), &projector.Msg{Seq: seq, Subject: "ts.model.acme.r.i", Data: data})
			}
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		held := float64(after.HeapAlloc) - float64(before.HeapAlloc)
		b.ReportMetric(held/float64(calls*deltas*16), "heap-bytes/arg-byte")
		l.Close()
	}
}

// BenchmarkAssemblerApply measures the projection's own cost per argument
// delta (Local: apply and commit, no bus).
func BenchmarkAssemblerApply(b *testing.B) {
	evs := callEvents(500, 40)
	var msgs []*projector.Msg
	for i, e := range evs {
		resp, item, _ := cutSlash(e[0].(string))
		data, _ := events.Encode(&events.Event{ID: fmt.Sprint(i), Tenant: "acme", Response: resp, Item: item, At: int64(i), Body: e[1].(events.Body)})
		msgs = append(msgs, &projector.Msg{Subject: "ts.model.acme.r.i", Data: data})
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		l, err := projector.NewLocal(b.TempDir(), assembler.New(assembler.Config{}))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for j := 0; j < len(msgs); j += 256 {
			batch := msgs[j:min(j+256, len(msgs))]
			for k, m := range batch {
				m.Seq = uint64(j + k + 1)
			}
			if _, err := l.Apply(context.Background(), batch...); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		l.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(len(msgs)*b.N)/b.Elapsed().Seconds(), "events/s")
}

func cutSlash(s string) (string, string, bool) {
	for i := range s {
		if s[i] == '/' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
