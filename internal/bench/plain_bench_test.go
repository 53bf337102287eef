package bench

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/stack"
)

// BenchmarkPlain is the one-shot row's plain program alone (its own
// embedded server, closed as the row closes it) on BenchmarkAssemble's
// input and GOGC: the CPU profile to set beside BenchmarkAssemble's.
func BenchmarkPlain(b *testing.B) {
	if testing.Short() {
		b.Skip("embedded server")
	}
	input := ProviderStream("oneshot", 500, WholeCalls, WholeDeltas)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	defer debug.SetGCPercent(debug.SetGCPercent(stack.OneShotGOGC))
	b.SetBytes(int64(len(input)))
	for b.Loop() {
		if _, err := plainOnce(context.Background(), b.TempDir(), input, log); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOneShotCPU is the one-shot row measured in CPU instead of
// wall time, for a machine too busy for the row's clock: each iteration
// runs toolstream assemble and the plain program (in turns, first one then
// the other) and takes the process's CPU time (ProcessCPU: user and
// system, the embedded servers' included) of each; it reports the median
// over iterations of the plain program's CPU over toolstream assemble's
// (higher is better for Toolstream, as the row's ratio) and the medians of
// each side's CPU per run.
func BenchmarkOneShotCPU(b *testing.B) {
	if testing.Short() {
		b.Skip("embedded servers")
	}
	input := ProviderStream("oneshot", 500, WholeCalls, WholeDeltas)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	defer debug.SetGCPercent(debug.SetGCPercent(stack.OneShotGOGC))
	ctx := context.Background()
	var ratios, ts, plain []float64
	cpu := func(f func() error) float64 {
		start := ProcessCPU()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		return float64(ProcessCPU()-start) / float64(time.Millisecond)
	}
	for i := 0; b.Loop(); i++ {
		runTS := func() error {
			_, _, err := oneShot(ctx, filepath.Join(b.TempDir(), "oneshot"), input, log)
			return err
		}
		runPlain := func() error {
			_, err := plainOnce(ctx, b.TempDir(), input, log)
			return err
		}
		var t, p float64
		if i%2 == 0 {
			t, p = cpu(runTS), cpu(runPlain)
		} else {
			p, t = cpu(runPlain), cpu(runTS)
		}
		ts, plain, ratios = append(ts, t), append(plain, p), append(ratios, p/t)
	}
	b.ReportMetric(median(ratios), "ratio")
	b.ReportMetric(median(ts), "ts-cpu-ms/run")
	b.ReportMetric(median(plain), "plain-cpu-ms/run")
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
