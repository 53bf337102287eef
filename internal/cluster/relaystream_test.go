package cluster_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/clustertest"
	"github.com/toolstream/toolstream/projector"
)

// across emits, for every source event on TS_MODEL, one event on each of
// TS_OUT and TS_MODEL: one relay round writes two streams.
type across struct{}

func (across) Name() string       { return "across" }
func (across) Subjects() []string { return []string{"ts.ctl.acme.src"} }
func (across) Apply(tx *projector.Tx, m *projector.Msg) error {
	for _, subj := range []string{"ts.result.acme.across", "ts.ctl.acme.across"} {
		ev := &events.Event{ID: fmt.Sprintf("across:%s:%d", subj, m.Seq), Tenant: "acme", Body: &events.Tick{}}
		if err := tx.Emit(subj, ev); err != nil {
			return err
		}
	}
	return nil
}

// TestRelayBatchesByTheStreamItWrites: the relay chooses atomic batches
// by the stream each event is written to, not the one its projection
// reads (docs/security.md, "Known holes", C). The projection reads
// TS_MODEL, replicated with atomic batches, and writes TS_MODEL and
// TS_OUT, whose atomic batches the admin turned off: every event reaches
// both streams (a batch to TS_OUT would be refused, and retried without
// end).
func TestRelayBatchesByTheStreamItWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster")
	}
	c := clustertest.Start(t, clustertest.Config{})
	b := c.Open(t, bus.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*phaseMax)
	defer cancel()
	s, err := b.JS.Stream(ctx, events.StreamOut)
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.CachedInfo().Config
	cfg.AllowAtomicPublish = false
	if _, err := b.JS.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	const sources = 40
	for i := range sources {
		if _, err := b.Publish(ctx, "ts.ctl.acme.src", &events.Event{ID: fmt.Sprint("src:", i), Tenant: "acme", Body: &events.Tick{}}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := projector.New(projector.Config{JS: b.JS, Dir: filepath.Join(t.TempDir(), "across"), BatchMax: 16}, across{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(rctx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	count := func(subj string) int { return len(logIDs(ctx, t, b, subj)) }
	if !poll(ctx, func() bool {
		return count("ts.result.acme.across") == sources && count("ts.ctl.acme.across") == sources
	}) {
		t.Fatalf("after %s: TS_OUT holds %d events, TS_MODEL %d, want %d each; relay %+v", phaseMax,
			count("ts.result.acme.across"), count("ts.ctl.acme.across"), sources, r.Stats())
	}
}
