package cluster_test

import (
	"context"
	"fmt"
	"github.com/toolstream/toolstream/internal/logread"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/clustertest"
	"github.com/toolstream/toolstream/projector"
)

// fan emits fanOut numbered events for every source event: the relay's
// order is visible in the log as the order of their ids.
type fan struct{}

const fanOut = 50

func (fan) Name() string       { return "fan" }
func (fan) Subjects() []string { return []string{"ts.ctl.acme.src"} }
func (fan) Apply(tx *projector.Tx, m *projector.Msg) error {
	for k := range fanOut {
		ev := &events.Event{ID: fanID(m.Seq, k), Tenant: "acme", Body: &events.Tick{}}
		if err := tx.Emit("ts.ctl.acme.fan", ev); err != nil {
			return err
		}
	}
	return nil
}

func fanID(seq uint64, k int) string { return fmt.Sprintf("fan:%08d:%03d", seq, k) }

// logIDs returns the ids of every event on subject, in log order. The
// server asked may have just restarted: a read that fails is tried again.
func logIDs(ctx context.Context, t *testing.T, b *bus.Bus, subject string) []string {
	t.Helper()
	var ids []string
	var err error
	if !poll(ctx, func() bool {
		ids = ids[:0]
		err = b.Read(ctx, logread.Config{Filter: subject}, func(batch []*logread.Msg) error {
			for _, m := range batch {
				ev, err := events.Decode(m.Data)
				if err != nil {
					return err
				}
				ids = append(ids, ev.ID)
			}
			return nil
		})
		return err == nil
	}) {
		t.Fatalf("reading the log: %v", err)
	}
	return ids
}

// TestRelayKeepsOrderThroughLeaderChange: a projection's emitted events
// reach the log in the order it emitted them, each once, although the
// stream leader is killed and restarted while the relay publishes, and
// although one of them was stored before the relay ran (an earlier attempt
// whose ack was lost): a batch holding it falls back to one-by-one.
func TestRelayKeepsOrderThroughLeaderChange(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster")
	}
	c := clustertest.Start(t, clustertest.Config{})
	b := c.Open(t, bus.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*phaseMax)
	defer cancel()

	const sources = 300
	var seqs []uint64
	for i := range sources {
		ack, err := b.Publish(ctx, "ts.ctl.acme.src", &events.Event{ID: fmt.Sprint("src:", i), Tenant: "acme", Body: &events.Tick{}})
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, ack.Sequence)
	}
	early := fanID(seqs[7], 13) // stored before the relay: its batch must not be lost with it
	if _, err := b.JS.Publish(ctx, "ts.ctl.acme.fan", mustEncode(t, &events.Event{ID: early, Tenant: "acme", Body: &events.Tick{}}), jetstream.WithMsgID(early)); err != nil {
		t.Fatal(err)
	}

	// The leader dies while a relay round is publishing (from the hook,
	// without waiting): some of the round's publishes fail, later ones may
	// reach the new leader first.
	leader := c.StreamLeader(events.StreamModel)
	// The relay talks to a follower, so its publishes outlive the leader
	// and meet "no responders" until a new one is elected.
	rb, err := bus.Open(ctx, bus.Config{NATSURL: c.URL((leader + 1) % c.Size()), Options: c.UserOptions(t, bustest.Admin)})
	if err != nil {
		t.Fatal(err)
	}
	defer rb.Close()
	var hooked atomic.Int64
	killed := make(chan struct{})
	hooks := &projector.Hooks{BeforePublish: func(string) {
		if hooked.Add(1) == int64(sources*fanOut/4) {
			go func() { c.Stop(leader); close(killed) }()
		}
	}}
	r, err := projector.New(projector.Config{JS: rb.JS, Dir: filepath.Join(t.TempDir(), "fan"), BatchMax: 16, Hooks: hooks}, fan{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(rctx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	want := sources * fanOut
	select {
	case <-killed:
	case <-ctx.Done():
		t.Fatal("the relay never got a quarter through")
	}
	killedAt := r.Stats().Relayed
	if _, err := c.WaitStreamLeader(ctx, events.StreamModel, leader); err != nil {
		t.Fatal(err)
	}
	if err := c.Restart(ctx, leader); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "every source applied", func() bool { return r.Checkpoint() >= seqs[sources-1] })
	if err := r.WaitRelayed(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("stream leader killed after %d of %d events relayed", killedAt, want)

	got := logIDs(ctx, t, b, "ts.ctl.acme.fan")
	var expect []string
	for _, s := range seqs {
		for k := range fanOut {
			if id := fanID(s, k); id != early {
				expect = append(expect, id)
			}
		}
	}
	expect = append([]string{early}, expect...)
	if len(got) != len(expect) {
		t.Fatalf("log holds %d emitted events, want %d (each once)", len(got), len(expect))
	}
	if i := firstDiff(got, expect); i >= 0 {
		t.Fatalf("log order differs from emission order at %d: %s, want %s", i, got[i], expect[i])
	}
	if !slices.IsSorted(got[1:]) {
		t.Fatal("emitted events out of order")
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

func mustEncode(t *testing.T, ev *events.Event) []byte {
	t.Helper()
	data, err := events.Encode(ev)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
