package viewdump_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/viewdump"
	"github.com/toolstream/toolstream/projector"
)

// TestDigestEndpoint: a process serving its views answers a view's digest
// (what replay --verify compares a rebuild with) and pages its dump; no
// answer at all is nats.ErrNoResponders, and a view no process runs gets
// no answer rather than an empty digest.
func TestDigestEndpoint(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := bustest.Start(t)
	r := startView(t, ctx, b, 5)
	if _, err := viewdump.Digest(ctx, b.Conn, "texts"); !errors.Is(err, nats.ErrNoResponders) {
		t.Errorf("digest with no service: %v, want nats.ErrNoResponders", err)
	}

	svc, err := micro.AddService(b.Conn, micro.Config{Name: "viewdump-test", Version: "0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	dumps, err := viewdump.AddEndpoints(svc, func(name string) (*projector.Runner, bool) { return r, name == "texts" }, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { svc.Stop(); dumps.Close() }()
	want, err := r.Digest()
	if err != nil {
		t.Fatal(err)
	}
	got, err := viewdump.Digest(ctx, b.Conn, "texts")
	if err != nil || got != want || got.Seq == 0 {
		t.Errorf("digest: %+v, %v; want %+v", got, err, want)
	}
	seq, page, err := viewdump.Open(ctx, b.Conn, "texts")
	if err != nil || seq != want.Seq {
		t.Fatalf("dump at %d, %v; want %d", seq, err, want.Seq)
	}
	if n := len(rows(t, page)); n != 5 {
		t.Errorf("dump has %d rows, want 5", n)
	}
	sctx, scancel := context.WithTimeout(ctx, time.Second)
	defer scancel()
	if _, err := viewdump.Digest(sctx, b.Conn, "nope"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("digest of a view no process runs: %v, want no answer", err)
	}
}
