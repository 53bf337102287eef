package cluster_test

import (
	"context"
	"errors"
	"github.com/toolstream/toolstream/events"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/cluster"
	"github.com/toolstream/toolstream/internal/clustertest"
	"github.com/toolstream/toolstream/projector"
)

// publishCalls publishes calls [from, to) of the workload and returns when
// every one is acknowledged.
func publishCalls(t *testing.T, ctx context.Context, b *bus.Bus, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		s, raw := rawCall(i)
		for attempt := 0; ; attempt++ {
			actx, cancel := context.WithTimeout(ctx, publishAttemptMax)
			_, _, err := publishRaw(actx, b.Conn, s, raw)
			cancel()
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("stream %d: %v", i, err)
			}
		}
	}
}

// completedOnce waits until calls [0, n) are each completed, and fails if
// any was completed more than once in the log.
func completedOnce(t *testing.T, ctx context.Context, b *bus.Bus, n int) {
	t.Helper()
	if !poll(ctx, func() bool { return countSubjects(t, b, "ts.call.>") >= n }) {
		t.Fatalf("%d of %d calls completed", countSubjects(t, b, "ts.call.>"), n)
	}
	completed, rejected, _ := callsInLog(t, b)
	if len(completed) != n || rejected != 0 {
		t.Fatalf("%d calls completed, %d rejected; want %d", len(completed), rejected, n)
	}
	for k, c := range completed {
		if c != 1 {
			t.Fatalf("call %s completed %d times", k, c)
		}
	}
}

// TestPartitionsHaveOneActiveAssemblerAndTakeOver partitions the model
// subjects 4 ways. A processor process holds ingest and the 4 partition
// assemblers; a second (this process) waits for their leases and holds
// none. When the first is SIGKILLed the second takes every partition over
// within the lease TTL, and calls published meanwhile complete once.
func TestPartitionsHaveOneActiveAssemblerAndTakeOver(t *testing.T) {
	const partitions, calls = 4, 200
	c := clustertest.Start(t, clustertest.Config{})
	admin := c.Open(t, bus.Config{Name: "admin", Partitions: partitions})
	if admin.Partitions() != partitions {
		t.Fatalf("partitions = %d", admin.Partitions())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	names := []string{assembler.IngestName}
	for p := 0; p < partitions; p++ {
		names = append(names, assembler.PartitionName(p))
	}
	slices.Sort(names)

	first := startChild(t, c, "exclusive", filepath.Join(t.TempDir(), "first"),
		"TS_PARTITIONS="+strconv.Itoa(partitions))
	// The first holds everything once the lease bucket shows all its keys.
	waitFor(ctx, t, "the first process holding every lease", func() bool {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		kv, err := admin.JS.KeyValue(rctx, "ts_leases")
		if err != nil {
			return false
		}
		keys, err := kv.Keys(rctx)
		slices.Sort(keys)
		return err == nil && slices.Equal(keys, names)
	})
	second, err := cluster.NewExclusive(cluster.ExclusiveConfig{Bus: c.Open(t, bus.Config{Name: "second"}),
		Dir: filepath.Join(t.TempDir(), "second"), Projections: partitionedProjections(partitions),
		Holder: "second", LeaseTTL: partitionLeaseTTL})
	if err != nil {
		t.Fatal(err)
	}
	sctx, stopSecond := context.WithCancel(ctx)
	secondDone := make(chan error, 1)
	go func() { secondDone <- second.Run(sctx) }()
	defer func() { stopSecond(); <-secondDone }()

	publishCalls(t, ctx, admin, 0, calls/2)
	completedOnce(t, ctx, admin, calls/2)
	if held := second.Held(); len(held) != 0 {
		t.Fatalf("the second process runs %v while the first holds every lease", held)
	}

	killedAt := time.Now()
	first.kill(t)
	publishCalls(t, ctx, admin, calls/2, calls)
	takeover := waitFor(ctx, t, "the second process taking every lease over", func() bool {
		return slices.Equal(second.Held(), names)
	})
	takeover = time.Since(killedAt)
	completedOnce(t, ctx, admin, calls)
	done := time.Since(killedAt)

	// Every partition had work, and each partition's view equals a replay.
	perPartition := map[string]int{}
	info, err := admin.Stream(events.StreamModel).Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for p := 0; p < partitions; p++ {
		perPartition[strconv.Itoa(p)] = countSubjects(t, admin, bus.PartitionFilter(p))
	}
	for p, n := range perPartition {
		if n == 0 {
			t.Errorf("partition %s got no model events: %v", p, perPartition)
		}
	}
	for p := 0; p < partitions; p++ {
		name := assembler.PartitionName(p)
		r, ok := second.Runner(name)
		if !ok {
			t.Fatalf("%s not running", name)
		}
		if err := r.WaitFor(ctx, info.State.LastSeq); err != nil {
			t.Fatal(err)
		}
		live, err := r.Digest()
		if err != nil {
			t.Fatal(err)
		}
		fresh := partitionedProjections(partitions)[name]()
		replayed, err := projector.Replay(ctx, projector.Config{JS: admin.JS, Dir: filepath.Join(t.TempDir(), name)}, fresh, live.Seq)
		if err != nil {
			t.Fatal(err)
		}
		if live != replayed {
			t.Errorf("%s: live %s, replay %s", name, live, replayed)
		}
	}
	t.Logf("%d partitions, %d calls: model events per partition %v; first process SIGKILLed, second held all %d leases %s later (lease TTL %s); the %d calls published meanwhile all completed once %s after the kill",
		partitions, calls, perPartition, len(names), takeover.Round(time.Millisecond), partitionLeaseTTL, calls/2, done.Round(time.Millisecond))
	if strings.Join(second.Held(), ",") != strings.Join(names, ",") {
		t.Fatalf("held %v", second.Held())
	}
}

// TestAssemblerPartitionsNeedAPartitionedLog: serve runs the partition
// assemblers only on a partitioned log.
func TestAssemblerPartitionsNeedAPartitionedLog(t *testing.T) {
	b := bustest.Start(t)
	err := cluster.RunAssemblerPartitions(context.Background(), b, t.TempDir(), func() *assembler.Assembler { return assembler.New(assembler.Config{}) }, nil)
	if !errors.Is(err, bus.ErrInvalidConfig) {
		t.Fatalf("unpartitioned log: %v", err)
	}
}
