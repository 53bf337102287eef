package bench_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/bench"
	"github.com/toolstream/toolstream/internal/bus"
)

// BenchmarkExecutorRatio is the executor row of `toolstream bench` alone,
// measured b.N times in one process: each iteration publishes 10,000 call
// events to a fresh embedded server and runs the no-op projection and the
// executor over them on that server, in alternating order, each timed to
// its last output stored (ExecutorRatio), and the benchmark reports the
// medians of their ratios. Besides the rate ratio (executor calls/s ÷
// no-op projection events/s, wall clock) it reports the ratio of the
// process CPU time each spent per event (no-op ÷ executor), which moves
// less when other work shares the machine. After both, the floor
// (FloorCalls: one message stored and one acknowledgement per call by a
// plain program, none of the executor's own work) runs over the same
// events, and the benchmark reports its CPU per call and the no-op
// projection's CPU over it (floor-cpu-ratio): the most the executor's row
// could read if its own work cost nothing. Beside it two floors that
// acknowledge less, on consumers of their own (FloorOptions): ackall (one
// AckAll per fetch, the contiguous done prefix) and acknone (no
// acknowledgement: the stored outcomes are the record of what is done),
// reported alike (floor-ackall-cpu-ratio, floor-acknone-cpu-ratio, their
// CPU per call, and each floor's wall-clock ratio, no-op events/s over
// floor calls/s), and onemsg (AckAll, and a fetch's outcomes stored as one
// message, not one a call: what storing outcomes by the window would
// cost); the floors run in turns. Around each side it reads the traffic
// with the log (Traffic: the messages the bus's connection wrote and read,
// and the messages the streams gained) and reports each per call:
// noop-out, noop-in, noop-stored, exec-out, exec-in, exec-stored. Run it with -benchtime=Nx for
// N pairs: go test ./internal/bench -run '^$' -bench ExecutorRatio -benchtime 9x
func BenchmarkExecutorRatio(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	const n = 10_000
	ctx := context.Background()
	dir := b.TempDir()
	log := slog.New(slog.DiscardHandler)
	cpu := bench.ProcessCPU
	measure := func(name string, fn func(b *bus.Bus, dir string) (time.Duration, error)) (wall, used time.Duration) {
		d := filepath.Join(dir, name)
		bs, err := bus.Open(ctx, bus.Config{DataDir: d, Listen: "127.0.0.1:-1", Logger: log, Name: name})
		if err != nil {
			b.Fatal(err)
		}
		defer bs.Close()
		c0 := cpu()
		wall, err = fn(bs, filepath.Join(d, "views"))
		if err != nil {
			b.Fatal(err)
		}
		return wall, cpu() - c0
	}
	var rates, cpus, execRates, execCPU []float64
	msgs := make([][]float64, 6) // per call, each side's messages out, in and stored
	floors := []struct {
		name string
		o    bench.FloorOptions
	}{{"floor", bench.FloorOptions{}}, {"floor-ackall", bench.FloorOptions{AckAll: true}}, {"floor-acknone", bench.FloorOptions{AckNone: true}},
		{"floor-onemsg", bench.FloorOptions{AckAll: true, OneMessage: true}}}
	floorCPU := make([][]float64, len(floors))
	floorCPUs := make([][]float64, len(floors))
	floorRates := make([][]float64, len(floors))
	b.ResetTimer()
	for i := range b.N {
		var nw, nc, ew, ec time.Duration
		var nt, et bench.Traffic
		fw, fc := make([]time.Duration, len(floors)), make([]time.Duration, len(floors))
		measure(fmt.Sprint("pair", i), func(bs *bus.Bus, d string) (time.Duration, error) {
			// Both sides on one server over the same stored events, in
			// alternating order, each side's CPU taken around it.
			last, err := bench.PublishCalls(ctx, bs.JS, "exec", n)
			if err != nil {
				return 0, err
			}
			side := func(fn func() (time.Duration, error)) (wall, used time.Duration) {
				c0 := cpu()
				wall, err := fn()
				if err != nil {
					b.Fatal(err)
				}
				return wall, cpu() - c0
			}
			// Each side's traffic with the log, read around it (not
			// inside its CPU reading).
			traffic := func(run func()) bench.Traffic {
				t0, err := bench.TrafficOf(ctx, bs)
				if err != nil {
					b.Fatal(err)
				}
				run()
				t1, err := bench.TrafficOf(ctx, bs)
				if err != nil {
					b.Fatal(err)
				}
				return t1.Sub(t0)
			}
			noop := func() {
				nt = traffic(func() { nw, nc = side(func() (time.Duration, error) { return bench.NoopCalls(ctx, bs, d, last) }) })
			}
			exec := func() {
				et = traffic(func() { ew, ec = side(func() (time.Duration, error) { return bench.ExecutorCalls(ctx, bs, n) }) })
			}
			if i%2 == 0 {
				noop()
				exec()
			} else {
				exec()
				noop()
			}
			for k := range floors {
				j := (k + i) % len(floors)
				fw[j], fc[j] = side(func() (time.Duration, error) { return bench.FloorCallsWith(ctx, bs, n, floors[j].o) })
			}
			return 0, nil
		})
		rates = append(rates, nw.Seconds()/ew.Seconds())
		cpus = append(cpus, float64(nc)/float64(ec))
		execRates = append(execRates, n/ew.Seconds())
		execCPU = append(execCPU, float64(ec.Microseconds())/n)
		for k, v := range []uint64{nt.Out, nt.In, nt.Stored, et.Out, et.In, et.Stored} {
			msgs[k] = append(msgs[k], float64(v)/n)
		}
		for j := range floors {
			floorCPUs[j] = append(floorCPUs[j], float64(nc)/float64(fc[j]))
			floorCPU[j] = append(floorCPU[j], float64(fc[j].Microseconds())/n)
			floorRates[j] = append(floorRates[j], nw.Seconds()/fw[j].Seconds())
		}
	}
	b.StopTimer()
	median := func(x []float64) float64 {
		s := slices.Clone(x)
		slices.Sort(s)
		return s[len(s)/2]
	}
	b.ReportMetric(median(rates), "ratio")
	b.ReportMetric(median(cpus), "cpu-ratio")
	b.ReportMetric(median(execRates), "calls/s")
	b.ReportMetric(median(execCPU), "cpu-µs/call")
	for k, name := range []string{"noop-out", "noop-in", "noop-stored", "exec-out", "exec-in", "exec-stored"} {
		b.ReportMetric(median(msgs[k]), name+"/call")
	}
	for j, f := range floors {
		b.ReportMetric(median(floorCPUs[j]), f.name+"-cpu-ratio")
		b.ReportMetric(median(floorCPU[j]), f.name+"-cpu-µs/call")
		b.ReportMetric(median(floorRates[j]), f.name+"-ratio")
	}
}
