package projector

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
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
