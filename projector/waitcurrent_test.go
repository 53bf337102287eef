package projector_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/projector"
)

// TestWaitCurrentAfterACrash: a view restarted on what a crash left of its
// directory (only what was fsynced: its commits are not) is behind what it
// showed before; a read after WaitCurrent sees again all it saw, and more
// of what the log got meanwhile. The tally emits into a subject it does
// not read, the last of the stream: WaitCurrent waits for its own
// subjects' messages, not for the stream's end.
func TestWaitCurrentAfterACrash(t *testing.T) {
	b := bustest.Start(t)
	const dir = "/view"
	fs := vfs.NewCrashableMem()
	var last uint64
	for i := 1; i <= 40; i++ {
		last = publishText(t, b, "acme", fmt.Sprint(i), i, "x")
	}
	r, stop := startRunner(t, b, dir, tally{}, func(c *projector.Config) { c.FS = fs })
	waitFor(t, r, last)
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	stop()
	for i := 41; i <= 50; i++ {
		last = publishText(t, b, "acme", fmt.Sprint(i), i, "x")
	}
	for _, tc := range []struct {
		what string
		fs   vfs.FS
	}{
		{"restarted on what the crash left", crashed},
		{"restarted on a new directory", vfs.NewMem()},
	} {
		t.Run(tc.what, func(t *testing.T) {
			r, stop := startRunner(t, b, dir, tally{}, func(c *projector.Config) { c.FS = tc.fs })
			defer stop()
			if cp := r.Checkpoint(); cp >= last {
				t.Fatalf("the view resumed at %d, not behind the log's %d: nothing to wait for", cp, last)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := r.WaitCurrent(ctx); err != nil {
				t.Fatalf("wait current (at %d): %v", r.Checkpoint(), err)
			}
			v := r.View()
			defer v.Close()
			if n, sum := tallyState(v, "acme"); n != 50 || sum != 50*51/2 {
				t.Fatalf("after WaitCurrent: %d events, sum %d; want 50, %d", n, sum, 50*51/2)
			}
		})
	}
}
