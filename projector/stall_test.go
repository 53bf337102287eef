package projector

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestPullLost: the probe calls a pull lost only when the durable has
// messages to deliver, no pull request waits on the server, and every
// delivery the server counts has reached the runner; a delivery still on
// its way, or nothing to deliver, is no stall.
func TestPullLost(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	published := 0
	publish := func(n int) {
		for i := 0; i < n; i++ {
			published++
			if _, err := b.Publish(ctx, "ts.model.acme.r.i", &events.Event{ID: fmt.Sprintf("e%d", published), Tenant: "acme", Body: &events.TextDelta{Text: "x"}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	publish(5)
	r, err := New(Config{JS: b.JS, Keys: b.Keys, Dir: filepath.Join(t.TempDir(), "v"), Mode: ModeHold}, echo{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := CreateConsumer(ctx, b.JS, events.StreamModel, r.cfg.Durable); err != nil {
		t.Fatal(err)
	}
	lost := func(want bool, why string) {
		t.Helper()
		got, err := r.pullLost(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: pullLost %v, want %v", why, got, want)
		}
	}
	lost(true, "5 to deliver, no pull")
	// Another pull takes the five: delivered by the server, not seen by
	// the runner's handler.
	cons, err := b.JS.Consumer(ctx, events.StreamModel, r.cfg.Durable)
	if err != nil {
		t.Fatal(err)
	}
	batch, err := cons.FetchNoWait(10)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for range batch.Messages() {
		n++
	}
	if n != 5 {
		t.Fatalf("fetched %d", n)
	}
	lost(false, "nothing to deliver")
	publish(1)
	lost(false, "1 to deliver, 5 deliveries on their way")
	r.noteDelivered(3)
	r.noteDelivered(5)
	r.noteDelivered(4) // out of order: the highest stays
	lost(true, "1 to deliver, every delivery seen, no pull")
}

// TestRepullReadsWhatTheStoppedPullWasDelivered: messages the server
// delivered to a pull the runner is leaving, up to the moment the server
// read its unsubscription, never reach the runner (the server counts them
// delivered and does not deliver them again before AckWait). repull reads
// the log after the old pull is gone, so they are applied before the new
// pull starts, not left to the next stall check; and the new pull
// delivers what comes after.
func TestRepullReadsWhatTheStoppedPullWasDelivered(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	published := 0
	publish := func(n int) uint64 {
		var seq uint64
		for i := 0; i < n; i++ {
			published++
			ack, err := b.Publish(ctx, "ts.model.acme.r.i", &events.Event{ID: fmt.Sprintf("e%d", published), Tenant: "acme", Body: &events.TextDelta{Text: "x"}})
			if err != nil {
				t.Fatal(err)
			}
			seq = ack.Sequence
		}
		return seq
	}
	hooks := &Hooks{}
	r, err := New(Config{JS: b.JS, Keys: b.Keys, Dir: filepath.Join(t.TempDir(), "v"), Mode: ModeHold, Hooks: hooks}, echo{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	old, err := r.consume(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer old.stop()
	var last uint64
	// The window: the runner has decided to pull afresh; its old pull's
	// request still waits on the server, which delivers three messages to
	// it that the runner will never take.
	hooks.BeforeRepull = func() {
		old.drop() // the old pull's handler hands nothing more over
		last = publish(3)
		for {
			c, err := b.JS.Consumer(ctx, events.StreamModel, r.cfg.Durable)
			if err != nil {
				t.Fatal(err)
			}
			if c.CachedInfo().Delivered.Stream >= last {
				return
			}
			select {
			case <-ctx.Done():
				t.Fatal("the old pull was never delivered the three messages")
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	if err := r.catchUp(ctx); err != nil { // the log as it was when the stall was found
		t.Fatal(err)
	}
	next, err := r.repull(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	defer next.stop()
	if cp := r.Checkpoint(); cp != last {
		t.Fatalf("checkpoint %d after the repull, want %d: what the old pull was delivered is left unapplied", cp, last)
	}
	// The new pull may first be handed again what the server could not
	// deliver to the old one (its subscription gone, the server queues the
	// message for redelivery: didNotDeliver in nats-server's consumer.go;
	// CI saw 2 come first). Those are at or below the checkpoint, a no-op
	// for the runner; what comes after must follow, and nothing past the
	// checkpoint may come before it.
	after := publish(1)
	var again []delivery
	for {
		select {
		case d := <-next.msgs:
			seq := d.md.Sequence.Stream
			if seq == after {
				if _, err := r.applyBatch(ctx, append(again, d)); err != nil {
					t.Fatal(err)
				}
				if cp := r.Checkpoint(); cp != after {
					t.Fatalf("checkpoint %d after the new pull's delivery, want %d", cp, after)
				}
				if got := r.Stats().Applied; got != after {
					t.Fatalf("%d messages applied, want %d: a redelivery was applied twice", got, after)
				}
				return
			}
			if seq > last {
				t.Fatalf("the new pull delivered %d before %d: past the checkpoint %d", seq, after, last)
			}
			again = append(again, d)
		case <-ctx.Done():
			t.Fatalf("the new pull never delivered %d", after)
		}
	}
}

// TestRepullGoesOnWhenTheLogIsUnreachable: a stall found while the log
// cannot be reached (a stream without a leader during an election, the
// server out of reach) ends the old pull and reports that no new one could
// be made, which the runner rides out until the next stall check; it is
// not an error that ends the runner (a cluster test saw a runner end on
// "stream TS_MODEL: context deadline exceeded" when its stall check came
// during a leader election).
func TestRepullGoesOnWhenTheLogIsUnreachable(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	js := bustest.RoleJS(t, b, auth.Identity{Role: auth.RoleAdmin})
	hooks := &Hooks{}
	r, err := New(Config{JS: js, Keys: b.Keys, Dir: filepath.Join(t.TempDir(), "v"), Mode: ModeHold, Hooks: hooks, PublishTimeout: time.Second}, echo{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	old, err := r.consume(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hooks.BeforeRepull = func() { js.Conn().Close() } // the log goes out of reach
	next, err := r.repull(ctx, old)
	if next != nil {
		next.stop()
	}
	if !errors.Is(err, errNoPull) {
		t.Fatalf("repull with the log out of reach: %v, want errNoPull (the runner goes on)", err)
	}
}
