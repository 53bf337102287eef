package assembler_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bench"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/projector"
)

// BenchmarkAssemblerThroughput: argument deltas per second through the
// assembler projection (bus, Pebble, outbox) as a ratio to the backbone's
// no-op projection over the same events in the same run. Target ≥ 0.8.
// The measurement is package bench's (also `toolstream bench`).
func BenchmarkAssemblerThroughput(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	// streams: calls under way at once, their deltas interleaved. One at a
	// time, a batch holds ~13 calls' deltas and each call's are one write;
	// 256 at a time, nearly every delta is a write of its own.
	for _, streams := range []int{1, 256} {
		b.Run(fmt.Sprintf("streams=%d", streams), func(b *testing.B) {
			ctx := context.Background()
			bs := bustest.Start(b)
			evs := bench.CallEvents(2000, 40, streams)
			last, err := bench.PublishModel(ctx, bs.JS, evs)
			if err != nil {
				b.Fatal(err)
			}
			deltas := bench.CountDeltas(evs)
			dir := b.TempDir()
			var base, asm time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				d, err := bench.RunProjection(ctx, bs.JS, filepath.Join(dir, fmt.Sprint("noop", i)), bench.Noop{}, last)
				if err != nil {
					b.Fatal(err)
				}
				base += d
				if d, err = bench.RunProjection(ctx, bs.JS, filepath.Join(dir, fmt.Sprint("asm", i)), assembler.New(assembler.Config{}), last); err != nil {
					b.Fatal(err)
				}
				asm += d
			}
			b.StopTimer()
			b.ReportMetric(float64(deltas*b.N)/asm.Seconds(), "deltas/s")
			b.ReportMetric(float64(deltas*b.N)/base.Seconds(), "noop-deltas/s")
			b.ReportMetric(base.Seconds()/asm.Seconds(), "ratio")
		})
	}
}

// BenchmarkCompletionLatency: from the publish of a completion event to the
// CallCompleted reaching a subscriber, as a ratio to one raw JetStream
// publish → consume round trip in the same run. Target ≤ 3×.
func BenchmarkCompletionLatency(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	bs := bustest.Start(b)
	b.ResetTimer()
	res, err := bench.CompletionLatency(context.Background(), bs, b.TempDir(), b.N)
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	p50, raw := bench.Percentile(res.Measured, 50), bench.Percentile(res.Raw, 50)
	b.ReportMetric(float64(p50.Microseconds()), "p50-µs")
	b.ReportMetric(float64(raw.Microseconds()), "raw-p50-µs")
	b.ReportMetric(float64(p50)/float64(raw), "ratio")
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
	_, data, err := bench.EncodeModel(bench.CallEvents(500, 40, 1))
	if err != nil {
		b.Fatal(err)
	}
	var msgs []*projector.Msg
	for _, d := range data {
		msgs = append(msgs, &projector.Msg{Subject: "ts.model.acme.r.i", Data: d})
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
