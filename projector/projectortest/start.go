package projectortest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/projector"
)

// Start runs projection p over b, its view in a temporary directory, until
// t ends (or ctx does), for a test that needs one projection of the
// pipeline without composing a process (package stack's Node does that).
// A runner that stops with an error fails t.
func Start(ctx context.Context, t testing.TB, b *bus.Bus, p projector.Projection) *projector.Runner {
	t.Helper()
	r, err := projector.New(projector.Config{JS: b.JS, Dir: filepath.Join(t.TempDir(), p.Name()), Keys: b.Keys, MsgIDKey: b.MsgIDKey()}, p)
	if err != nil {
		t.Fatalf("projectortest: %v", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := r.Run(ctx); err != nil && ctx.Err() == nil {
			t.Errorf("projectortest: projection %s stopped: %v", p.Name(), err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done; r.Close() })
	return r
}
