package bench_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/toolstream/toolstream/internal/bench"
	"github.com/toolstream/toolstream/internal/bus"
)

// BenchmarkExecutorCalls is the executor's side of the executor row alone
// (ExecutorCalls over 10,000 stored call events, a fresh embedded server
// per iteration, the publishing outside the timer), so that a profile of
// it holds the executor and the server's work for it and nothing else
// (process-allocs/call counts the whole process's allocations, the
// server's among them):
// go test ./internal/bench -run '^$' -bench ExecutorCalls -benchtime 4x -cpuprofile cpu.out
func BenchmarkExecutorCalls(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	const n = 10_000
	ctx := context.Background()
	dir := b.TempDir()
	log := slog.New(slog.DiscardHandler)
	var mallocs uint64
	var ms runtime.MemStats
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		d := filepath.Join(dir, fmt.Sprint("calls", i))
		bs, err := bus.Open(ctx, bus.Config{DataDir: d, Listen: "127.0.0.1:-1", Logger: log, Name: fmt.Sprint("calls", i)})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := bench.PublishCalls(ctx, bs.JS, "exec", n); err != nil {
			b.Fatal(err)
		}
		runtime.ReadMemStats(&ms)
		before := ms.Mallocs
		b.StartTimer()
		if _, err := bench.ExecutorCalls(ctx, bs, n); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.ReadMemStats(&ms)
		mallocs += ms.Mallocs - before
		bs.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/call")
	b.ReportMetric(float64(mallocs)/float64(b.N*n), "process-allocs/call")
}
