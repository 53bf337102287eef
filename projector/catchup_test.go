package projector_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/projector"
)

// TestAViewReadsByDirectGetsOnlyWhatItsDurableWillNotDeliver: a fresh
// view on a fresh durable over a stored log reads it once, through the
// durable, and sends no direct get; a fresh view on a durable that has
// already delivered and acknowledged the whole log (a view directory
// restored or lost) reads that log by direct gets, since the durable
// delivers none of it again, and reaches the log's end with nothing more
// published. Direct gets are counted by a core subscriber on the
// stream's direct get subject (it sees each request the server answers).
func TestAViewReadsByDirectGetsOnlyWhatItsDurableWillNotDeliver(t *testing.T) {
	b := bustest.Start(t)
	var gets atomic.Int64
	sub, err := b.Conn.Subscribe("$JS.API.DIRECT.GET."+events.StreamModel, func(*nats.Msg) { gets.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	var last uint64
	for i := 1; i <= 300; i++ {
		last = publishText(t, b, "acme", fmt.Sprint(i%7), i, "x")
	}
	if err := b.Conn.Flush(); err != nil {
		t.Fatal(err)
	}

	durable := func(c *projector.Config) { c.Durable = "ts-catchup" }
	r, stop := startRunner(t, b, t.TempDir(), tally{}, durable)
	waitFor(t, r, last)
	stop()
	if err := b.Conn.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := gets.Load(); n != 0 {
		t.Fatalf("a fresh view on a fresh durable sent %d direct gets; the durable delivers the whole log", n)
	}

	// The durable has acknowledged everything: a new directory behind it
	// reads the log itself.
	r, stop = startRunner(t, b, t.TempDir(), tally{}, durable)
	defer stop()
	waitFor(t, r, last)
	if err := b.Conn.Flush(); err != nil {
		t.Fatal(err)
	}
	if gets.Load() == 0 {
		t.Fatal("a view behind its durable's acknowledgements reached the log's end without reading it")
	}
	v := r.View()
	defer v.Close()
	if n, sum := tallyState(v, "acme"); n != 300 || sum != 300*301/2 {
		t.Fatalf("view behind its durable: %d events, sum %d", n, sum)
	}
}
