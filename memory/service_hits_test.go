package memory

import (
	"context"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestServiceRecordsRecallHits: recall hits are gathered by the service
// and recorded in batches (events.MemoryRecalled), applied by the
// projection as uses: the record's use count and last use move.
func TestServiceRecordsRecallHits(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := serve(ctx, t, &Service{HitBatch: 3})
	e, r := s.Engine, s.Runner
	n := 0
	say := func(text string) { // a write waits for its own apply, so for every event before it
		t.Helper()
		n++
		if _, err := s.message(ctx, &Op{Tenant: "acme", User: "u1", ID: "m" + string(rune('0'+n)), Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	recall := func(q string) {
		t.Helper()
		if _, err := s.recall(ctx, &Op{Tenant: "acme", User: "u1", Query: q}); err != nil {
			t.Fatal(err)
		}
	}
	uses := func(id string) (int, int64) {
		t.Helper()
		v := r.View()
		defer v.Close()
		rec, err := e.Get(v, "acme", "u1", id)
		if err != nil {
			t.Fatal(err)
		}
		return rec.UseCount, rec.UsedAt
	}
	say("I love sushi")
	recall("sushi")
	recall("sushi")
	say("The weather is nice today")
	if u, at := uses("m1"); u != 1 || at != 0 {
		t.Fatalf("before a batch is full: use %d, used at %d; want 1 and never", u, at)
	}
	recall("sushi") // the third hit fills the batch
	say("I walked the dog")
	if u, at := uses("m1"); u != 4 || at == 0 {
		t.Fatalf("after a full batch: use %d, used at %d; want 4 and a time", u, at)
	}
	recall("sushi")
	if err := s.FlushHits(ctx); err != nil {
		t.Fatal(err)
	}
	say("Nothing else")
	if u, _ := uses("m1"); u != 5 {
		t.Fatalf("after FlushHits: use %d, want 5", u)
	}
	// a hit of a version that is not current, or of an unknown record, is
	// ignored; a batch without hits is refused
	store := newMapStore()
	ev := &events.Event{ID: "h", Tenant: "acme", User: "u1", At: 1, Body: &events.MemoryRecalled{}, Kind: events.KindMemoryRecalled}
	if err := store.apply(e, ev); err == nil {
		t.Error("an empty batch of hits was accepted")
	}
	ev.Body = &events.MemoryRecalled{Hits: []events.MemoryHit{{ID: "nobody", Version: 1, N: 2}}}
	if err := store.apply(e, ev); err != nil {
		t.Errorf("a hit of an unknown record: %v, want it ignored", err)
	}
}
