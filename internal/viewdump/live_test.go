package viewdump_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/viewdump"
	"github.com/toolstream/toolstream/projector"
)

// TestLiveViewIsTheServedOrTheDirectory: the live view of a projection is
// what a running serve answers, else its directory when no process serves
// it (replay --verify and --diff compare a rebuild with either), and
// neither is ErrNoLiveView or an error naming the missing directory.
func TestLiveViewIsTheServedOrTheDirectory(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := bustest.Start(t)
	served := startView(t, ctx, b, 5) // publishes the log the directory's runner reads too

	// A view directory no process serves: the texts view up to the same
	// sequence, then closed.
	dir := filepath.Join(t.TempDir(), "texts")
	r, err := projector.New(projector.Config{JS: b.JS, Keys: b.Keys, Dir: dir}, texts{})
	if err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(rctx) }()
	want, err := served.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WaitFor(ctx, want.Seq); err != nil {
		t.Fatal(err)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}

	// No serve runs: the directory.
	if got, err := viewdump.DirDigest(dir); err != nil || got != want {
		t.Errorf("DirDigest: %+v, %v; want %+v", got, err, want)
	}
	if got, err := viewdump.LiveDigest(ctx, b.Conn, "texts", dir); err != nil || got != want {
		t.Errorf("LiveDigest without a serve: %+v, %v; want %+v", got, err, want)
	}
	live, err := viewdump.OpenLive(ctx, b.Conn, "texts", dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	if live.Dir != dir || live.Seq != want.Seq {
		t.Errorf("OpenLive without a serve: dir %q at %d; want %q at %d", live.Dir, live.Seq, dir, want.Seq)
	}
	fromDir := rows(t, live.Page)
	live.Close()
	if len(fromDir) != 5 {
		t.Errorf("the directory's view has %d rows, want 5", len(fromDir))
	}
	missing := filepath.Join(t.TempDir(), "nope")
	if _, err := viewdump.LiveDigest(ctx, b.Conn, "texts", missing); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("LiveDigest of a missing directory: %v", err)
	}
	if _, err := viewdump.OpenLive(ctx, b.Conn, "texts", filepath.Join(dir, "LOCK"), 2); !errors.Is(err, viewdump.ErrNoLiveView) {
		t.Errorf("OpenLive of a directory that cannot be opened: %v, want ErrNoLiveView", err)
	}

	// A serve runs: its view, not the directory.
	serve(t, b, served, 2)
	live, err = viewdump.OpenLive(ctx, b.Conn, "texts", dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if live.Dir != "" || live.Seq != want.Seq {
		t.Errorf("OpenLive with a serve: dir %q at %d; want the serve's at %d", live.Dir, live.Seq, want.Seq)
	}
	if got := rows(t, live.Page); strings.Join(got, " ") != strings.Join(fromDir, " ") {
		t.Errorf("the served view %v differs from the directory's %v", got, fromDir)
	}
}
