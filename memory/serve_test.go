package memory

import (
	"context"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/projector"
)

// serve runs s on a real embedded server: it fills s.Engine (a fresh
// engine), s.Runner (the memory projection on real Pebble, running until
// ctx ends or the test does) and s.Publish (sealed under the event's
// scope, as serve publishes); the caller's other fields (Embedder,
// Matcher, HitBatch, ...) are kept. It returns s.
func serve(ctx context.Context, t *testing.T, s *Service) *Service {
	t.Helper()
	b := bustest.Start(t)
	s.Engine = NewEngine(Config{}, nil)
	r, err := projector.New(projector.Config{JS: b.JS, Keys: b.Keys, Dir: t.TempDir()}, NewProjection(s.Engine))
	if err != nil {
		t.Fatal(err)
	}
	rctx, rcancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(rctx) }()
	t.Cleanup(func() {
		rcancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		r.Close()
	})
	s.Runner = r
	s.Publish = func(ctx context.Context, subj string, ev *events.Event, scope string) (uint64, error) {
		ack, err := b.PublishSealed(ctx, subj, ev, scope)
		if err != nil {
			return 0, err
		}
		return ack.Sequence, nil
	}
	return s
}
