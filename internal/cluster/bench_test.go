package cluster_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/cluster"
	"github.com/toolstream/toolstream/internal/clustertest"
)

// benchCalls is the workload of one round of BenchmarkPipelineOnCluster.
const benchCalls = 2000

// rawRate publishes n messages of size bytes to a fresh R3 stream and
// consumes them with a durable pull consumer (AckAll on the last of each
// batch, as a projection does), concurrently, and returns messages per
// second from the first publish to the last message consumed: raw
// JetStream publish+consume on this cluster.
func rawRate(b *testing.B, c *clustertest.Cluster, n, size int) float64 {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bs := c.Open(b, bus.Config{Name: "raw"})
	defer bs.Close()
	s, err := bs.JS.CreateStream(ctx, jetstream.StreamConfig{Name: "RAW", Subjects: []string{"raw.>"}, Replicas: 3, Storage: jetstream.FileStorage})
	if err != nil {
		b.Fatal(err)
	}
	cons, err := s.CreateConsumer(ctx, jetstream.ConsumerConfig{Durable: "raw", AckPolicy: jetstream.AckAllPolicy, MaxAckPending: 4096})
	if err != nil {
		b.Fatal(err)
	}
	var got atomic.Int64
	done := make(chan struct{})
	start := time.Now()
	cc, err := cons.Consume(func(m jetstream.Msg) {
		if got.Add(1)%256 == 0 || got.Load() == int64(n) {
			m.Ack()
		}
		if got.Load() == int64(n) {
			close(done)
		}
	}, jetstream.PullMaxMessages(512))
	if err != nil {
		b.Fatal(err)
	}
	defer cc.Stop()
	data := make([]byte, size)
	for i := 0; i < n; i++ {
		if _, err := bs.JS.PublishAsync(fmt.Sprintf("raw.s%d", i%1000), data); err != nil {
			b.Fatal(err)
		}
	}
	select {
	case <-bs.JS.PublishAsyncComplete():
	case <-ctx.Done():
		b.Fatal("raw publish did not complete")
	}
	select {
	case <-done:
	case <-ctx.Done():
		b.Fatalf("raw consume got %d of %d", got.Load(), n)
	}
	return float64(n) / time.Since(start).Seconds()
}

// pipelineRate runs the whole path on the cluster, model subjects in
// partitions: ingest and the partition assemblers (one process, leases as
// in production) and two executors with a no-op tool, then publishes calls
// provider streams and returns raw input events per second from the first
// publish to the last CallSucceeded in the log.
func pipelineRate(b *testing.B, c *clustertest.Cluster, partitions, calls int) float64 {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	admin := c.Open(b, bus.Config{Name: "admin", Partitions: partitions})
	defer admin.Close()
	pb := c.Open(b, bus.Config{Name: "processor"})
	defer pb.Close()
	x, err := cluster.NewExclusive(cluster.ExclusiveConfig{Bus: pb,
		Dir: filepath.Join(b.TempDir(), "views"), Projections: partitionedProjections(partitions), Holder: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	xctx, stop := context.WithCancel(ctx)
	xdone := make(chan error, 1)
	go func() { xdone <- x.Run(xctx) }()
	defer func() { stop(); <-xdone }()
	if !poll(ctx, func() bool { return len(x.Held()) == partitions+1 }) {
		b.Fatalf("processor holds %v", x.Held())
	}
	execs := startExecutors(b, c, 2, &tally{n: map[string]int{}})
	defer execs.stop()

	prodBus := c.Open(b, bus.Config{Name: "producer"})
	defer prodBus.Close()
	prod := &producer{js: prodBus.JS}
	prod.limit.Store(int64(calls))
	start := time.Now()
	if err := prod.run(ctx, calls, 16); err != nil {
		b.Fatal(err)
	}
	if !poll(ctx, func() bool { return resultCount(ctx, admin) >= calls }) {
		b.Fatalf("%d of %d calls have an outcome", resultCount(ctx, admin), calls)
	}
	return float64(calls*rawEventsPerCall) / time.Since(start).Seconds()
}

// BenchmarkPipelineOnCluster measures the whole path (provider deltas in →
// ingest → partition assemblers → CallCompleted → executors running a
// no-op tool → CallSucceeded) on a 3-server loopback cluster with 1 and 4
// model partitions, each as a ratio to raw JetStream publish+consume of as
// many messages on the same cluster. Each figure is the median of 3
// rounds, each on a fresh cluster. Everything runs in this one process.
//
//	go test -run '^$' -bench PipelineOnCluster -benchtime 1x ./cluster/
func BenchmarkPipelineOnCluster(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	for _, partitions := range []int{1, 4} {
		b.Run(fmt.Sprintf("partitions=%d", partitions), func(b *testing.B) {
			var raws, pipes, ratios []float64
			for i := 0; i < b.N; i++ {
				for round := 0; round < 3; round++ {
					c := clustertest.Start(b, clustertest.Config{})
					raw := rawRate(b, c, benchCalls*rawEventsPerCall, 200)
					pipe := pipelineRate(b, c, partitions, benchCalls)
					c.Shutdown()
					raws, pipes, ratios = append(raws, raw), append(pipes, pipe), append(ratios, pipe/raw)
				}
			}
			b.ReportMetric(median(raws), "raw-msgs/s")
			b.ReportMetric(median(pipes), "pipeline-events/s")
			b.ReportMetric(median(pipes)/rawEventsPerCall, "calls/s")
			b.ReportMetric(median(ratios), "ratio")
			b.Logf("rounds: raw %v msgs/s, pipeline %v events/s, ratios %v", round0(raws), round0(pipes), ratios)
		})
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func round0(xs []float64) []int {
	var out []int
	for _, x := range xs {
		out = append(out, int(x))
	}
	return out
}
