package cluster_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/clustertest"
)

// TestClusterStreamHasThreeReplicas opens the bus with every URL of a
// 3-server cluster: the log's stream gets 3 replicas without --replicas,
// and a second process opening the bus keeps them.
func TestClusterStreamHasThreeReplicas(t *testing.T) {
	c := clustertest.Start(t, clustertest.Config{})
	b := c.Open(t, bus.Config{Name: "first"})
	if got := b.Replicas(); got != 3 {
		t.Fatalf("replicas = %d, want 3", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	info, err := b.Stream(events.StreamModel).Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Cluster == nil || len(info.Cluster.Replicas) != 2 || info.Cluster.Leader == "" {
		t.Fatalf("stream cluster info = %+v, want a leader and 2 replicas", info.Cluster)
	}
	b2 := c.Open(t, bus.Config{Name: "second"})
	if got := b2.Replicas(); got != 3 {
		t.Fatalf("second open: replicas = %d, want 3", got)
	}
}

// TestEmbeddedStreamHasOneReplica: the embedded server is not a cluster.
func TestEmbeddedStreamHasOneReplica(t *testing.T) {
	b := bustest.Start(t)
	if got := b.Replicas(); got != 1 {
		t.Fatalf("replicas = %d, want 1", got)
	}
}

// TestPartitionsMapModelSubjects: with Partitions set, the stream stores
// model subjects with a partition token that depends on the response only;
// other subjects are stored as published.
func TestPartitionsMapModelSubjects(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b, err := bus.Open(ctx, bus.Config{DataDir: dir, Listen: "127.0.0.1:-1", Partitions: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Partitions() != 4 {
		t.Fatalf("partitions = %d, want 4", b.Partitions())
	}
	seen := map[string]string{} // response -> partition
	parts := map[string]bool{}
	for i := 0; i < 40; i++ {
		resp := "resp_" + string(rune('a'+i%20))
		subj, _ := events.ModelSubject("acme", resp, "item")
		ev := &events.Event{ID: "e" + string(rune('A'+i)), Tenant: "acme", Response: resp, Item: "item", Body: &events.TextDelta{Text: "x"}}
		ack, err := b.Publish(ctx, subj, ev)
		if err != nil {
			t.Fatal(err)
		}
		m, err := b.Stream(events.StreamModel).GetMsg(ctx, ack.Sequence)
		if err != nil {
			t.Fatal(err)
		}
		want := subj + "."
		if len(m.Subject) != len(want)+1 || m.Subject[:len(want)] != want {
			t.Fatalf("stored subject %q, want %s<p>", m.Subject, want)
		}
		p := m.Subject[len(m.Subject)-1:]
		if prev, ok := seen[resp]; ok && prev != p {
			t.Fatalf("response %s in partitions %s and %s", resp, prev, p)
		}
		seen[resp] = p
		parts[p] = true
	}
	if len(parts) < 2 {
		t.Fatalf("20 responses all in partitions %v", parts)
	}
	ctl, _ := events.ControlSubject(events.SystemTenant, "clock")
	ack, err := b.Publish(ctx, ctl, &events.Event{ID: "tick", Tenant: events.SystemTenant, Body: &events.Tick{}})
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := b.Stream(events.StreamModel).GetMsg(ctx, ack.Sequence); m.Subject != ctl {
		t.Fatalf("control subject stored as %q", m.Subject)
	}
	// A process that does not set Partitions keeps the mapping.
	b.Close()
	b, err = bus.Open(ctx, bus.Config{DataDir: dir, Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Partitions() != 4 {
		t.Fatalf("reopened without Partitions: partitions = %d, want 4", b.Partitions())
	}
}

// TestDegradedClusterNeverCreatesR1: with one of three servers down when
// the stream is first created, Open does not fall back to one replica.
// Either JetStream still places three (the meta leader has not yet seen the
// server go) or Open fails saying what to do.
func TestDegradedClusterNeverCreatesR1(t *testing.T) {
	c := clustertest.Start(t, clustertest.Config{})
	c.Stop(2)
	ctx := context.Background()
	// The two left elect a meta leader if the stopped one led (seconds on
	// a loaded machine): without one, every open below only says that
	// JetStream is unavailable.
	waitReady(t, c)
	b, err := bus.Open(ctx, bus.Config{NATSURL: c.URL(0), SetupMax: 2 * time.Second, Options: c.UserOptions(t, bustest.Admin)})
	if err == nil {
		r := b.Replicas()
		b.Close()
		if r != 3 {
			t.Fatalf("open on a degraded cluster created %d replicas", r)
		}
		return
	}
	// Either JetStream said there are not 3 servers for it, or the cluster
	// had no meta leader within SetupMax (the stopped server led it): both
	// leave the stream uncreated.
	t.Logf("open on a degraded cluster: %v", err)
	// An explicit --replicas 1 is the operator's decision.
	waitReady(t, c)
	b, err = bus.Open(ctx, bus.Config{NATSURL: c.URL(0), Replicas: 1, Options: c.UserOptions(t, bustest.Admin)})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Replicas() != 1 {
		t.Fatalf("replicas = %d", b.Replicas())
	}
}

// TestTwoServerClusterNeedsExplicitReplicas: a cluster that cannot place 3
// replicas gets a clear error, not a silent single replica.
func TestTwoServerClusterNeedsExplicitReplicas(t *testing.T) {
	c := clustertest.Start(t, clustertest.Config{Servers: 2})
	_, err := bus.Open(context.Background(), bus.Config{NATSURL: c.URLs(), SetupMax: time.Second, Options: c.UserOptions(t, bustest.Admin)})
	if err == nil || !strings.Contains(err.Error(), "fewer than 3") || !strings.Contains(err.Error(), "--replicas") {
		t.Fatalf("open on a 2-server cluster: %v, want the fewer-than-3 error", err)
	}
	// An explicit --replicas 1 is the operator's decision, and holds.
	b, err := bus.Open(context.Background(), bus.Config{NATSURL: c.URLs(), Replicas: 1, Options: c.UserOptions(t, bustest.Admin)})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Replicas() != 1 {
		t.Fatalf("replicas = %d", b.Replicas())
	}
}

// TestConcurrentOpensAgree opens the bus from several processes at once on
// a fresh cluster, as docker-compose starts its services. NB: nats-server
// 2.15 sometimes answers none of several concurrent creations of the same
// replicated stream (and always none of a replicated key-value bucket's);
// Open's per-attempt timeout and retry get every process through.
func TestConcurrentOpensAgree(t *testing.T) {
	c := clustertest.Start(t, clustertest.Config{})
	const n = 4
	errs := make(chan error, n)
	replicas := make(chan int, n)
	for i := 0; i < n; i++ {
		go func() {
			b, err := bus.Open(context.Background(), bus.Config{NATSURL: c.URLs(), Options: c.UserOptions(t, bustest.Admin)})
			if err != nil {
				errs <- err
				return
			}
			replicas <- b.Replicas()
			errs <- b.Close()
		}()
	}
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < n; i++ {
		if r := <-replicas; r != 3 {
			t.Fatalf("a process saw %d replicas", r)
		}
	}
}

// waitReady waits up to a minute for the running servers to be routed
// and current with a meta leader among them.
func waitReady(t *testing.T, c *clustertest.Cluster) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
}
