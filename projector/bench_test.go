package projector_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bench"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/projector"
)

// BenchmarkNoopProjection reports events/s through a no-op projection
// (fetch, apply, batch commit, ack) and its ratio to a raw pull consumer
// that fetches and acks the same events with the same ack policy, both in
// this process on the same stream. Issue target: ratio ≥ 0.7. The
// measurement is package bench's (also `toolstream bench`).
func BenchmarkNoopProjection(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	const n = 100_000
	ctx := context.Background()
	bs := bustest.Start(b)
	last, err := bench.FillModel(ctx, bs.JS, n)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	var raw, proj time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, err := bench.RawConsume(ctx, bs.JS, fmt.Sprintf("raw%d", i), last, bench.BatchMax)
		if err != nil {
			b.Fatal(err)
		}
		raw += d
		if d, err = bench.RunProjection(ctx, bs.JS, filepath.Join(dir, fmt.Sprintf("noop%d", i)), bench.Noop{}, last); err != nil {
			b.Fatal(err)
		}
		proj += d
	}
	b.StopTimer()
	rawRate := float64(n*b.N) / raw.Seconds()
	projRate := float64(n*b.N) / proj.Seconds()
	b.ReportMetric(rawRate, "raw-events/s")
	b.ReportMetric(projRate, "noop-events/s")
	b.ReportMetric(projRate/rawRate, "ratio")
}

// BenchmarkReplay reports events/s of Replay (direct gets, apply, batch
// commit; a no-op projection) and its ratio to reading the same messages
// by direct gets and doing nothing with them (bench.RawRead), both in this
// process on the same stream.
func BenchmarkReplay(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	const n = 100_000
	ctx := context.Background()
	bs := bustest.Start(b)
	last, err := bench.FillModel(ctx, bs.JS, n)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	var raw, rep time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, err := bench.RawRead(ctx, bs, events.StreamModel, last)
		if err != nil {
			b.Fatal(err)
		}
		raw += d
		start := time.Now()
		if _, err := projector.Replay(ctx, projector.Config{JS: bs.JS, Dir: filepath.Join(dir, fmt.Sprint(i))}, bench.Noop{}, last); err != nil {
			b.Fatal(err)
		}
		rep += time.Since(start)
	}
	b.StopTimer()
	rawRate := float64(n*b.N) / raw.Seconds()
	repRate := float64(n*b.N) / rep.Seconds()
	b.ReportMetric(rawRate, "raw-events/s")
	b.ReportMetric(repRate, "replay-events/s")
	b.ReportMetric(repRate/rawRate, "ratio")
}
