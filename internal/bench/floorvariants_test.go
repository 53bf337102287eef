package bench_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bench"
	"github.com/toolstream/toolstream/internal/bus"
)

// BenchmarkFloorVariants weighs what the executor's floor would cost with
// fewer messages per call: the floor as it is (an acknowledgement per
// publish and per input), a window's publishes as one fast batch, one
// AckAll per fetch, and both; each over the same 10,000 stored calls on
// one server, in turns, reporting the process's CPU per call (median of
// the iterations):
// go test ./internal/bench -run '^$' -bench FloorVariants -benchtime 9x
// Neither change is the executor's (docs/speed.md says why): a fast batch
// reports no duplicate, and an AckAll is exact only for a consumer of one
// executor's.
func BenchmarkFloorVariants(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	const n = 10_000
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	var res [2][2][]float64
	ix := map[bool]int{false: 0, true: 1}
	for i := range b.N {
		bs, err := bus.Open(ctx, bus.Config{DataDir: filepath.Join(b.TempDir(), "d"), Listen: "127.0.0.1:-1", Logger: log, Name: fmt.Sprint("ff", i)})
		if err != nil {
			b.Fatal(err)
		}
		s, err := bs.JS.Stream(ctx, events.StreamOut)
		if err != nil {
			b.Fatal(err)
		}
		cfg := s.CachedInfo().Config
		cfg.AllowBatchPublish = true
		if _, err := bs.JS.UpdateStream(ctx, cfg); err != nil {
			b.Fatal(err)
		}
		if _, err := bench.PublishCalls(ctx, bs.JS, "exec", n); err != nil {
			b.Fatal(err)
		}
		type variant struct{ fast, all bool }
		vs := []variant{{false, false}, {true, false}, {false, true}, {true, true}}
		for k := range vs {
			v := vs[(k+i)%len(vs)]
			c0 := bench.ProcessCPU()
			if _, err := bench.FloorCallsWith(ctx, bs, n, bench.FloorOptions{FastBatch: v.fast, AckAll: v.all}); err != nil {
				b.Fatal(err)
			}
			res[ix[v.fast]][ix[v.all]] = append(res[ix[v.fast]][ix[v.all]], float64((bench.ProcessCPU()-c0).Microseconds())/n)
		}
		bs.Close()
	}
	median := func(x []float64) float64 {
		s := slices.Clone(x)
		slices.Sort(s)
		return s[len(s)/2]
	}
	b.ReportMetric(median(res[0][0]), "floor-cpu-µs/call")
	b.ReportMetric(median(res[1][0]), "fast-batch-cpu-µs/call")
	b.ReportMetric(median(res[0][1]), "ackall-cpu-µs/call")
	b.ReportMetric(median(res[1][1]), "both-cpu-µs/call")
}
