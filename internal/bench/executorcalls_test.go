package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bench"
	"github.com/toolstream/toolstream/internal/bus"
)

// BenchmarkExecutorCalls is the executor's side of the executor row alone
// (ExecutorCalls over 10,000 stored call events, a fresh embedded server
// per iteration, the publishing outside the timer), so that a profile of
// it holds the executor and the server's work for it and nothing else
// (process-allocs/call counts the whole process's allocations, the
// server's among them):
// go test ./internal/bench -run '^$' -bench ExecutorCalls/immediate -benchtime 4x -cpuprofile cpu.out
//
// Its two sub-benchmarks differ in the no-op tool only: immediate is the
// row's (bench.NoopTool, run on its call's handler), func the same
// function as a plain executor.ToolFunc (run on an invoker under a timeout
// context of its own).
func BenchmarkExecutorCalls(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	noop := func(context.Context, executor.Call) (json.RawMessage, error) { return json.RawMessage(`{}`), nil }
	b.Run("immediate", func(b *testing.B) { benchExecutorCalls(b, bench.NoopTool()) })
	b.Run("func", func(b *testing.B) { benchExecutorCalls(b, executor.ToolFunc(noop)) })
}

func benchExecutorCalls(b *testing.B, tool executor.Tool) {
	const n = 10_000
	ctx := context.Background()
	dir := b.TempDir()
	log := slog.New(slog.DiscardHandler)
	var mallocs uint64
	var used time.Duration
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
		before, c0 := ms.Mallocs, bench.ProcessCPU()
		b.StartTimer()
		if _, err := bench.ExecutorCallsWith(ctx, bs, n, tool); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		used += bench.ProcessCPU() - c0
		runtime.ReadMemStats(&ms)
		mallocs += ms.Mallocs - before
		bs.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/call")
	b.ReportMetric(float64(mallocs)/float64(b.N*n), "process-allocs/call")
	b.ReportMetric(float64(used.Microseconds())/float64(b.N*n), "process-cpu-µs/call")
}
