package bench

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/internal/stack"
)

// BenchmarkAssemble is toolstream assemble alone (oneShot: its embedded
// server, keys, the edge, the assembler, outcomes read back) on the whole
// path's input, under the one-shot's GOGC, for a CPU profile of where its
// time goes (docs/speed.md's whole-path tables).
func BenchmarkAssemble(b *testing.B) {
	if testing.Short() {
		b.Skip("embedded server")
	}
	input := ProviderStream("oneshot", 500, WholeCalls, WholeDeltas)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	defer debug.SetGCPercent(debug.SetGCPercent(stack.OneShotGOGC))
	b.SetBytes(int64(len(input)))
	for b.Loop() {
		if _, _, err := oneShot(context.Background(), b.TempDir(), input, log); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLive is the whole path's live row (Live: its raw and plain
// baselines first, then a node with every component on) at --quick's
// sizes, on a fresh server per run, for a CPU profile of the whole serve
// and the plain program in one process. It reports the row's ratio and
// when the assembler had relayed the last call and the executor stored
// its last outcome, medians over the runs.
func BenchmarkLive(b *testing.B) {
	if testing.Short() {
		b.Skip("embedded server")
	}
	ctx := context.Background()
	responses := max(wholePathStreams, QuickSizes().AssemblerCalls/2)
	streams := make([][]byte, wholePathStreams)
	for i := range streams {
		streams[i] = ProviderStream("live"+strconv.Itoa(i), responses/wholePathStreams, WholeCalls, WholeDeltas)
	}
	var ratios, relayed, executed []time.Duration
	for b.Loop() {
		dir := b.TempDir()
		bs, err := bus.Open(ctx, bus.Config{DataDir: dir, Listen: "127.0.0.1:-1", Name: "bench-live"})
		if err != nil {
			b.Fatal(err)
		}
		kr, err := keys.Open(ctx, keys.Config{JS: bs.JS, Create: true})
		if err != nil {
			b.Fatal(err)
		}
		bs.Keys = kr
		res, err := Live(ctx, bs, filepath.Join(dir, "views"), streams, nil)
		bs.Close()
		if err != nil {
			b.Fatal(err)
		}
		// ratio as a duration of parts per million, so one sort serves all
		ratios = append(ratios, time.Duration(1e6*res.Plain.Elapsed.Seconds()/res.Live.Seconds()))
		relayed, executed = append(relayed, res.Relayed), append(executed, res.Executed)
	}
	b.ReportMetric(float64(Percentile(ratios, 50))/1e6, "ratio")
	b.ReportMetric(float64(Percentile(relayed, 50).Milliseconds()), "relayed-ms")
	b.ReportMetric(float64(Percentile(executed, 50).Milliseconds()), "executed-ms")
}
