package viewdump_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/viewdump"
	"github.com/toolstream/toolstream/projector"
)

// texts keeps the text of every text delta by its item: a view with a row
// per item.
type texts struct{}

func (texts) Name() string       { return "texts" }
func (texts) Subjects() []string { return []string{events.AllModel} }

func (texts) Apply(tx *projector.Tx, m *projector.Msg) error {
	ev, err := m.Event()
	if err != nil {
		return err
	}
	td, ok := events.As[*events.TextDelta](ev)
	if !ok {
		return fmt.Errorf("%w: texts wants text deltas, got %s", events.ErrBadInput, ev.Kind)
	}
	k, err := projector.TenantKey(ev.Tenant, "item", ev.Item)
	if err != nil {
		return err
	}
	return tx.Set(k, []byte(td.Text))
}

// startView runs the texts projection over n text deltas on a real
// embedded server until it has applied them all.
func startView(t *testing.T, ctx context.Context, b *bus.Bus, n int) *projector.Runner {
	t.Helper()
	var last uint64
	for i := range n {
		item := fmt.Sprintf("i%02d", i)
		subj, err := events.ModelSubject("acme", "r1", item)
		if err != nil {
			t.Fatal(err)
		}
		ack, err := b.Publish(ctx, subj, &events.Event{ID: events.ModelEventID("acme", "r1", uint64(i+1), 0), Tenant: "acme", Response: "r1", Item: item,
			At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano(), Body: &events.TextDelta{Text: strings.Repeat("x", i+1)}})
		if err != nil {
			t.Fatal(err)
		}
		last = ack.Sequence
	}
	r, err := projector.New(projector.Config{JS: b.JS, Keys: b.Keys, Dir: t.TempDir()}, texts{})
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(rctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		r.Close()
	})
	if err := r.WaitFor(ctx, last); err != nil {
		t.Fatal(err)
	}
	return r
}

// serve offers the digest and dumps of r on b's server, pageRows rows a
// page.
func serve(t *testing.T, b *bus.Bus, r *projector.Runner, pageRows int) (*viewdump.Service, micro.Service) {
	t.Helper()
	name := (texts{}).Name()
	return serveViews(t, b, func(n string) (*projector.Runner, bool) { return r, n == name }, viewdump.Views{Names: []string{name}}, pageRows)
}

// serveViews offers the digests and dumps of views, found by runners.
func serveViews(t *testing.T, b *bus.Bus, runners viewdump.Lookup, views viewdump.Views, pageRows int) (*viewdump.Service, micro.Service) {
	t.Helper()
	svc, err := micro.AddService(b.Conn, micro.Config{Name: "viewdump-test", Version: "0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	dumps, err := viewdump.AddEndpoints(svc, runners, views, pageRows)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop(); dumps.Close() })
	if err := b.Conn.Flush(); err != nil {
		t.Fatal(err)
	}
	return dumps, svc
}

func rows(t *testing.T, p viewdump.Pager) []string {
	t.Helper()
	var out []string
	it := viewdump.NewIter(p)
	for {
		k, v, ok, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		out = append(out, fmt.Sprintf("%q=%s", k, v))
	}
}

func TestDumpPagesTheWholeView(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := bustest.Start(t)
	r := startView(t, ctx, b, 7)
	v := r.View()
	defer v.Close()
	want := rows(t, viewdump.ViewPager(v, 0))
	if len(want) != 7 {
		t.Fatalf("view has %d rows, want 7", len(want))
	}

	for _, pageRows := range []int{1, 2, 3, 7, 100} {
		t.Run(fmt.Sprintf("pages of %d", pageRows), func(t *testing.T) {
			if got := rows(t, viewdump.ViewPager(v, pageRows)); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("local pages\n got %v\nwant %v", got, want)
			}
			_, svc := serve(t, b, r, pageRows)
			defer svc.Stop()
			seq, page, err := viewdump.Open(ctx, b.Conn, "texts")
			if err != nil {
				t.Fatal(err)
			}
			if seq != v.Seq() {
				t.Errorf("dump at seq %d, view at %d", seq, v.Seq())
			}
			first, done, err := page(nil)
			if err != nil || len(first) != min(pageRows, 7) || done != (pageRows >= 7) {
				t.Errorf("first page: %d rows, done %v, %v", len(first), done, err)
			}
			_, page, err = viewdump.Open(ctx, b.Conn, "texts")
			if err != nil {
				t.Fatal(err)
			}
			if got := rows(t, page); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("remote pages\n got %v\nwant %v", got, want)
			}
		})
	}
}

func TestDumpRefusals(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := bustest.Start(t)
	r := startView(t, ctx, b, 3)

	if _, _, err := viewdump.Open(ctx, b.Conn, "texts"); !errors.Is(err, nats.ErrNoResponders) {
		t.Errorf("a dump with no service: %v, want nats.ErrNoResponders", err)
	}
	dumps, _ := serve(t, b, r, 2)
	// A projection no process runs is no answer, not an empty view.
	sctx, scancel := context.WithTimeout(ctx, time.Second)
	defer scancel()
	if _, _, err := viewdump.Open(sctx, b.Conn, "nope"); !viewdump.NotServed(err) {
		t.Errorf("dump of an unknown projection: %v", err)
	}
	// A session open when the service closes: later pages are refused.
	_, page, err := viewdump.Open(ctx, b.Conn, "texts")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := page(nil); err != nil {
		t.Fatal(err)
	}
	dumps.Close()
	var re *viewdump.RemoteError
	if _, _, err := page([]byte("x")); !errors.Is(err, viewdump.ErrRemote) || !errors.As(err, &re) || re.Code != "503" {
		t.Errorf("page after Close: %v, want a 503 RemoteError", err)
	}
}
