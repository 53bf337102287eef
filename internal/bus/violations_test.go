package bus_test

import (
	"context"
	"log/slog"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/logtest"
)

// TestAttackViolationFloodIsNotLoggedLineByLine: a tenant's producer that
// publishes where it may not, as fast as it can, gets its permissions
// violations refused as before, but serve's log holds a few of them a
// window, and the next one written says how many were left out. Before,
// nats-server's error line for each one reached the log: 20,000 denied
// publishes of one nats.go connection with acme's producer creds (on
// ts.model.globex.x.y) took 0.8 s and wrote 5.8 MB of ERROR lines.
func TestAttackViolationFloodIsNotLoggedLineByLine(t *testing.T) {
	var logged logtest.Buffer
	ctx := context.Background()
	// The window is the bus's own (Config.ViolationsEvery), shorter here
	// than serve's 10s so the test need not wait one out.
	const every = 500 * time.Millisecond
	b, err := bus.Open(ctx, bus.Config{DataDir: t.TempDir(), Listen: "127.0.0.1:-1", Name: "test",
		Logger: slog.New(slog.NewTextHandler(&logged, nil)), ViolationsEvery: every})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	opts, err := b.UserOptions(auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(b.ClientURL(), append(opts, nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))...)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	const flood = 2000
	start := time.Now()
	for i := 0; i < flood; i++ {
		if err := nc.Publish("ts.model.globex.r.i", []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	// The server handles a connection's messages in order: once the flush
	// is answered, every violation before it was logged or left out.
	if err := nc.FlushTimeout(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	windows := int(time.Since(start)/every) + 1
	got := logged.Lines("Publish Violation")
	if len(got) == 0 || len(got) > bus.ViolationsMax*windows {
		t.Fatalf("%d violation lines for %d denied publishes over %d window(s) of %v; want 1 to %d", len(got), flood, windows, every, bus.ViolationsMax*windows)
	}
	// A violation in a later window is logged, with how many were left
	// out: every one of the flood is either a line or counted.
	time.Sleep(every)
	if err := nc.Publish("ts.model.globex.r.i", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := nc.FlushTimeout(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	all := logged.Lines("Publish Violation")
	if len(all) != len(got)+1 {
		t.Fatalf("%d lines after one more violation, want %d", len(all), len(got)+1)
	}
	leftOut := 0
	for _, line := range all {
		if m := regexp.MustCompile(`violations_left_out=(\d+)`).FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			leftOut += n
		}
	}
	if len(got)+leftOut != flood {
		t.Fatalf("%d lines and %d counted as left out for %d violations", len(got), leftOut, flood)
	}
	// The producer was refused throughout: nothing of it is on globex's
	// subjects.
	if n, err := b.LastSeq(ctx, events.StreamModel); err != nil || n != 0 {
		t.Fatalf("TS_MODEL last seq %d (%v): a denied publish was stored", n, err)
	}
}
