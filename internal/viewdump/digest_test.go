package viewdump_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/viewapi"
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

	serve(t, b, r, 2)
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
	if _, err := viewdump.Digest(sctx, b.Conn, "nope"); !viewdump.NotServed(err) {
		t.Errorf("digest of a view no process runs: %v, want no answer", err)
	}
}

// TestEachViewOnItsOwnSubject: a process answers each projection it runs
// on that projection's subjects, and the partitions of a partitioned one
// on their wildcard (only those it holds); nothing answers the subjects
// of one projection for another, nor the shared subjects of before.
func TestEachViewOnItsOwnSubject(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := bustest.Start(t)
	r := startView(t, ctx, b, 3)
	held := map[string]bool{"texts": true, "texts-p3": true}
	serveViews(t, b, func(name string) (*projector.Runner, bool) { return r, held[name] },
		viewdump.Views{Names: []string{"texts"}, Partitioned: []string{"texts"}}, 2)
	want, err := r.Digest()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"texts", "texts-p3"} {
		if got, err := viewdump.Digest(ctx, b.Conn, name); err != nil || got != want {
			t.Errorf("digest of %s: %+v, %v; want %+v", name, got, err, want)
		}
		seq, page, err := viewdump.Open(ctx, b.Conn, name)
		if err != nil || seq != want.Seq || len(rows(t, page)) != 3 {
			t.Errorf("dump of %s at %d, %v; want 3 rows at %d", name, seq, err, want.Seq)
		}
	}
	for _, name := range []string{"texts-p4", "other"} { // a partition held elsewhere; a projection run elsewhere
		sctx, scancel := context.WithTimeout(ctx, 500*time.Millisecond)
		if _, err := viewdump.Digest(sctx, b.Conn, name); !viewdump.NotServed(err) {
			t.Errorf("digest of %s, which this process does not run: %v, want no answer", name, err)
		}
		scancel()
	}
	for _, subject := range []string{"tsv.digest", "tsv.dump"} {
		if _, err := b.Conn.Request(subject, []byte("texts"), 500*time.Millisecond); !errors.Is(err, nats.ErrNoResponders) {
			t.Errorf("%s, the subject every view shared: %v, want no responders", subject, err)
		}
	}
	// A dump request naming another projection than its subject's.
	msg, err := b.Conn.Request("tsv.dump.texts", []byte(`{"projection":"memory"}`), 5*time.Second)
	if err != nil || msg.Header.Get(micro.ErrorCodeHeader) != "400" {
		t.Errorf("a dump of memory asked on texts' subject: %v, %v; want a 400", msg, err)
	}
	if _, err := viewdump.Digest(ctx, b.Conn, "a.b"); !errors.Is(err, viewapi.ErrBadName) {
		t.Errorf("digest of a name that is no token: %v, want viewapi.ErrBadName", err)
	}
}
