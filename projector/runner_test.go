package projector_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/projector"
)

func publishText(t testing.TB, b *bus.Bus, tenant, item string, i int, text string) uint64 {
	t.Helper()
	subj, err := events.ModelSubject(tenant, "r1", item)
	if err != nil {
		t.Fatal(err)
	}
	ack, err := b.Publish(context.Background(), subj, &events.Event{
		ID: fmt.Sprintf("in:%s/%d", tenant, i), Tenant: tenant, Response: "r1", Item: item, At: int64(i),
		Body: &events.TextDelta{Index: i, Text: text},
	})
	if err != nil {
		t.Fatal(err)
	}
	return ack.Sequence
}

func startRunner(t testing.TB, b *bus.Bus, dir string, p projector.Projection, mut func(*projector.Config)) (*projector.Runner, func()) {
	t.Helper()
	cfg := projector.Config{JS: b.JS, Keys: b.Keys, Dir: dir, BatchMax: 64}
	if mut != nil {
		mut(&cfg)
	}
	r, err := projector.New(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	stop := func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
		r.Close()
	}
	return r, stop
}

func waitFor(t testing.TB, r *projector.Runner, seq uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.WaitFor(ctx, seq); err != nil {
		t.Fatalf("wait for seq %d (at %d): %v", seq, r.Checkpoint(), err)
	}
	if err := r.WaitRelayed(ctx); err != nil {
		t.Fatalf("relay backlog: %v", err)
	}
}

// emitted returns every event id on subject filter, in stream order.
func emitted(t testing.TB, b *bus.Bus, filter string) []string {
	t.Helper()
	ctx := context.Background()
	c, err := b.JS.OrderedConsumer(ctx, events.StreamModel, jetstream.OrderedConsumerConfig{FilterSubjects: []string{filter}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for {
		batch, err := c.FetchNoWait(500)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for m := range batch.Messages() {
			ev, err := events.DecodeWith(m.Data(), b.Keys)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, ev.ID)
			n++
		}
		if n == 0 {
			return ids
		}
	}
}

func TestPoisonIsRejectedAndProcessingGoesOn(t *testing.T) {
	b := bustest.Start(t)
	publishText(t, b, "acme", "a", 1, "hello")
	garbage, err := b.JS.Publish(context.Background(), "ts.model.acme.r1.b", []byte("\x00garbage"))
	if err != nil {
		t.Fatal(err)
	}
	poison := publishText(t, b, "acme", "c", 2, "poison pill")
	last := publishText(t, b, "acme", "d", 3, "after")

	r, stop := startRunner(t, b, t.TempDir(), tally{}, nil)
	defer stop()
	waitFor(t, r, last)

	v := r.View()
	defer v.Close()
	if n, sum := tallyState(v, "acme"); n != 2 || sum != 4 {
		t.Fatalf("tally = %d events, sum %d; want 2, 4", n, sum)
	}
	rj, err := r.Rejections()
	if err != nil {
		t.Fatal(err)
	}
	if len(rj) != 2 || rj[0].Seq != garbage.Sequence || rj[1].Seq != poison {
		t.Fatalf("rejections = %+v", rj)
	}
	if got := emitted(t, b, "ts.ctl._system.rejected"); len(got) != 2 {
		t.Fatalf("typed rejection events = %v, want 2", got)
	}
}

func TestRestartResumesFromCheckpoint(t *testing.T) {
	b := bustest.Start(t)
	dir := t.TempDir()
	var last uint64
	for i := 1; i <= 50; i++ {
		last = publishText(t, b, "acme", fmt.Sprint(i), i, "x")
	}
	r, stop := startRunner(t, b, dir, tally{}, nil)
	waitFor(t, r, last)
	stop()
	for i := 51; i <= 80; i++ {
		last = publishText(t, b, "acme", fmt.Sprint(i), i, "x")
	}
	r, stop = startRunner(t, b, dir, tally{}, nil)
	defer stop()
	waitFor(t, r, last)
	v := r.View()
	defer v.Close()
	if n, sum := tallyState(v, "acme"); n != 80 || sum != 80*81/2 {
		t.Fatalf("after restart: %d events, sum %d", n, sum)
	}
	if ids := emitted(t, b, "ts.ctl.acme.tally"); len(ids) != 80 {
		t.Fatalf("emitted %d events, want 80", len(ids))
	}
}

func TestReplayEqualsLive(t *testing.T) {
	n := 10_000
	if testing.Short() {
		n = 2_000
	}
	b := bustest.Start(t)
	tenants := []string{"acme", "globex", "initech", "umbrella"}
	ctx := context.Background()
	var futs []jetstream.PubAckFuture
	for i := 1; i <= n; i++ {
		tenant := tenants[i%len(tenants)]
		text := "x"
		if i%997 == 0 {
			text = "poison"
		}
		subj, _ := events.ModelSubject(tenant, "r1", fmt.Sprint(i%37))
		data, err := events.Encode(&events.Event{ID: fmt.Sprintf("in:%d", i), Tenant: tenant, Item: fmt.Sprint(i % 37), At: int64(i),
			Body: &events.TextDelta{Index: i, Text: text}})
		if err != nil {
			t.Fatal(err)
		}
		f, err := b.JS.PublishAsync(subj, data)
		if errors.Is(err, jetstream.ErrTooManyStalledMsgs) {
			// A loaded server acknowledges slower than the burst is
			// written: wait for the acknowledgements, then go on.
			<-b.JS.PublishAsyncComplete()
			f, err = b.JS.PublishAsync(subj, data)
		}
		if err != nil {
			t.Fatal(err)
		}
		futs = append(futs, f)
	}
	<-b.JS.PublishAsyncComplete()
	last := (<-futs[len(futs)-1].Ok()).Sequence

	r, stop := startRunner(t, b, filepath.Join(t.TempDir(), "live"), tally{}, nil)
	waitFor(t, r, last)
	live, err := r.Digest()
	if err != nil {
		t.Fatal(err)
	}
	stop()

	rebuilt, err := projector.Replay(ctx, projector.Config{JS: b.JS, Keys: b.Keys, Dir: filepath.Join(t.TempDir(), "replay")}, tally{}, live.Seq)
	if err != nil {
		t.Fatal(err)
	}
	if live != rebuilt {
		t.Fatalf("replay differs:\n live %v\n replay %v", live, rebuilt)
	}
	if live.Keys < len(tenants)*38 {
		t.Fatalf("suspiciously small view: %v", live)
	}
	// A view that differs must be caught: replay only half the log.
	half, err := projector.Replay(ctx, projector.Config{JS: b.JS, Keys: b.Keys, Dir: filepath.Join(t.TempDir(), "half")}, tally{}, live.Seq/2)
	if err != nil {
		t.Fatal(err)
	}
	if half.Sum == live.Sum {
		t.Fatal("digest does not see a difference")
	}
}

func TestTenantKeyRequiresTenant(t *testing.T) {
	if _, err := projector.TenantKey(""); !errors.Is(err, projector.ErrNoTenant) {
		t.Fatalf("TenantKey without tenant: %v", err)
	}
	a, _ := projector.TenantKey("ab", "c")
	b, _ := projector.TenantKey("a", "bc")
	if string(a) == string(b) {
		t.Fatal("tenant keys collide")
	}
}

// TestRunnerResumesWhenDeliveriesStop: the runner's consumer disappears
// under it (here deleted; in a cluster, deliveries lost at the tail of the
// log, where no later message reveals a gap). An idle runner behind the log
// starts a new consumer at its checkpoint and catches up.
func TestRunnerResumesWhenDeliveriesStop(t *testing.T) {
	b := bustest.Start(t)
	first := publishText(t, b, "acme", "a", 1, "one")
	r, stop := startRunner(t, b, t.TempDir(), tally{}, func(c *projector.Config) { c.Durable = "ts-stall" })
	defer stop()
	waitFor(t, r, first)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.JS.DeleteConsumer(ctx, events.StreamModel, "ts-stall"); err != nil {
		t.Fatal(err)
	}
	last := publishText(t, b, "acme", "a", 2, "two")
	waitFor(t, r, last)
}

// TestAttackTenantMismatch: an event stored on one tenant's subject whose
// envelope names another tenant is refused with a typed reason before any
// projection applies it, in replay as live; the tenant it names is
// untouched.
func TestAttackTenantMismatch(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	publishText(t, b, "acme", "a", 1, "hello")
	forged, err := b.Publish(ctx, "ts.model.beta.r1.x", &events.Event{ID: "forged", Tenant: "acme", Response: "r1", Item: "x",
		Body: &events.TextDelta{Index: 40, Text: "forged"}})
	if err != nil {
		t.Fatal(err)
	}
	last := publishText(t, b, "beta", "b", 2, "honest")
	r, stop := startRunner(t, b, t.TempDir(), tally{}, nil)
	defer stop()
	waitFor(t, r, last)
	v := r.View()
	defer v.Close()
	if n, sum := tallyState(v, "acme"); n != 1 || sum != 1 {
		t.Fatalf("acme tally = %d, %d: the forged event was applied to the tenant it named", n, sum)
	}
	if n, _ := tallyState(v, "beta"); n != 1 {
		t.Fatalf("beta tally = %d, want its one honest event", n)
	}
	rj, err := r.Rejections()
	if err != nil {
		t.Fatal(err)
	}
	if len(rj) != 1 || rj[0].Seq != forged.Sequence || rj[0].Code != events.ReasonTenantMismatch {
		t.Fatalf("rejections = %+v, want the forged event as %s", rj, events.ReasonTenantMismatch)
	}
}

// TestRunStoppedWhileStartingReturnsNil: a runner asked to stop before its
// consumer is set up stops cleanly, as one stopped later does (serve
// stopped during its first second exited 1).
func TestRunStoppedWhileStartingReturnsNil(t *testing.T) {
	b := bustest.Start(t)
	publishText(t, b, "acme", "a", 1, "one")
	r, err := projector.New(projector.Config{JS: b.JS, Keys: b.Keys, Dir: t.TempDir()}, tally{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.Run(ctx); err != nil {
		t.Fatalf("Run stopped before it started = %v, want nil", err)
	}
}
