package projector_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/projector"
)

// TestAViewRestoredFromAnOlderBackupLosesNothing tries to break the first
// catchUp, which reads by direct gets only up to what the durable had
// delivered or acknowledged when it was bound: a view directory restored
// from a backup taken at 150 events, on a durable that has acknowledged
// 300 and delivered 100 more to a process that crashed holding them
// (fetched, never acknowledged; AckWait is 30 s), must come to hold all
// 400 events exactly once — none of 151-400 skipped, none of 1-150
// counted twice.
func TestAViewRestoredFromAnOlderBackupLosesNothing(t *testing.T) {
	b := bustest.Start(t)
	const durable = "ts-restore"
	withDurable := func(c *projector.Config) { c.Durable = durable }
	var last uint64
	publish := func(from, to int) {
		for i := from; i <= to; i++ {
			last = publishText(t, b, "acme", fmt.Sprint(i%7), i, "x")
		}
	}
	dir := filepath.Join(t.TempDir(), "view")
	publish(1, 150)
	r, stop := startRunner(t, b, dir, tally{}, withDurable)
	waitFor(t, r, last)
	stop()
	backup := filepath.Join(t.TempDir(), "backup")
	if err := os.CopyFS(backup, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}

	publish(151, 300)
	r, stop = startRunner(t, b, dir, tally{}, withDurable)
	waitFor(t, r, last)
	stop()

	// A process bound to the durable is handed 301-400 and crashes.
	publish(301, 400)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cons, err := b.JS.Consumer(ctx, events.StreamModel, durable)
	if err != nil {
		t.Fatal(err)
	}
	before, err := cons.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	acked := before.AckFloor.Stream
	for held := uint64(0); held < last; {
		batch, err := cons.Fetch(100, jetstream.FetchMaxWait(10*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		for m := range batch.Messages() {
			md, err := m.Metadata()
			if err != nil {
				t.Fatal(err)
			}
			held = max(held, md.Sequence.Stream)
		}
		if err := batch.Error(); err != nil {
			t.Fatal(err)
		}
	}
	ci, err := cons.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ci.AckFloor.Stream != acked || ci.Delivered.Stream != last {
		t.Fatalf("durable acknowledged %d and delivered %d, want %d and %d", ci.AckFloor.Stream, ci.Delivered.Stream, acked, last)
	}

	// The view directory is lost and restored from the older backup.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS(backup)); err != nil {
		t.Fatal(err)
	}
	r, stop = startRunner(t, b, dir, tally{}, withDurable)
	defer stop()
	waitFor(t, r, last)
	v := r.View()
	defer v.Close()
	if n, sum := tallyState(v, "acme"); n != 400 || sum != 400*401/2 {
		t.Fatalf("restored view: %d events, sum %d; want 400, %d", n, sum, 400*401/2)
	}
}
