package memory

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/memory/embed"
	"github.com/toolstream/toolstream/memory/embed/embedtest"
)

// TestHybridRecall: vectors recorded as events, tagged with the version
// they were computed from, ranked with the words after the hard filters;
// a late vector is ignored and a forgotten record's vector goes with it.
// The embeddings service is a local one whose vectors are hashed
// character trigrams (embedtest), so a misspelt query that shares no
// index term with a record still finds it by its vector.
func TestHybridRecall(t *testing.T) {
	ctx := context.Background()
	srv := embedtest.Start(t, "")
	emb, err := embed.NewHTTP(embed.Config{URL: srv.URL, Model: "ngrams"})
	if err != nil {
		t.Fatal(err)
	}
	e := NewEngine(Config{}, nil)
	store := newMapStore()
	const tenant, user = "acme", "u1"
	at := time.Date(2025, 4, 1, 9, 0, 0, 0, time.UTC).UnixNano()
	n := 0
	apply := func(ev *events.Event) {
		t.Helper()
		ev.Kind = ev.Body.Kind()
		if ev.ID == "" {
			n++
			ev.ID = "ev" + string(rune('a'+n))
		}
		if err := store.apply(e, ev); err != nil {
			t.Fatalf("%s: %v", ev.Kind, err)
		}
	}
	embedAll := func(ids ...string) {
		t.Helper()
		var recs []Record
		for _, id := range ids {
			r, err := e.Get(store, tenant, user, id)
			if err != nil {
				t.Fatal(err)
			}
			recs = append(recs, r)
		}
		evs, err := EmbedEvents(ctx, emb, tenant, user, recs, at)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			if SealScope(ev) != events.RecordScope(user, ev.Body.(*events.MemoryEmbedded).ID) {
				t.Errorf("a vector is not sealed under its record's key")
			}
			apply(ev)
		}
	}
	for i, text := range []string{
		"We adopted a beagle and named him Biscuit.",
		"The quarterly tax report is due on Friday.",
		"My sister lives in Lisbon.",
	} {
		at += int64(time.Minute)
		evs, err := e.MessageEvents(tenant, user, "m"+string(rune('1'+i)), text, at)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			apply(ev)
		}
	}
	apply(&events.Event{Tenant: tenant, User: user, At: at, Body: &events.MemoryObserved{Observation: events.Observation{
		ID: "secret", Kind: "episode", Text: "The beagle's vet is Dr. Biskup", Permission: "health"}}})
	embedAll("m1", "m2", "m3", "secret")

	query := func(text string, vec bool, scopes ...string) []string {
		t.Helper()
		q := Query{Tenant: tenant, User: user, Text: text, Scopes: scopes}
		if vec {
			vs, err := emb.Embed(ctx, []string{text})
			if err != nil {
				t.Fatal(err)
			}
			q.Vector, q.Model = vs[0], emb.Model()
		}
		res, err := e.Recall(store, q)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range res.Records {
			ids = append(ids, h.Record.ID)
		}
		return ids
	}
	// misspelt: no index term in common, so lexical recall finds nothing
	if got := query("beagel biskit", false); len(got) != 0 {
		t.Errorf("lexical recall of a misspelling: %v, want nothing", got)
	}
	if got := query("beagel biskit", true); len(got) == 0 || got[0] != "m1" {
		t.Errorf("hybrid recall of a misspelling: %v, want m1 first", got)
	}
	// the hard filters hold for the vector ranking too
	if got := query("beagel biskit", true); strings.Contains(strings.Join(got, " "), "secret") {
		t.Errorf("a record the caller may not see came back by its vector: %v", got)
	}
	if got := query("beagel biskit", true, "health"); !strings.Contains(strings.Join(got, " "), "secret") {
		t.Errorf("with the scope, the record should be found: %v", got)
	}
	// another model's query vector is not compared with these
	res, err := e.Recall(store, Query{Tenant: tenant, User: user, Text: "beagel", Vector: []float32{1, 2}, Model: "other"})
	if err != nil || len(res.Records) != 0 {
		t.Errorf("another model: %v %v", res.Records, err)
	}

	// a correction: the old version's vector goes; a late vector of it is
	// ignored; the new version's is kept
	old, _ := e.Get(store, tenant, user, "m3")
	at += int64(time.Minute)
	apply(&events.Event{Tenant: tenant, User: user, At: at, Body: &events.MemoryCorrected{ExpectedVersion: old.Version,
		Observation: events.Observation{ID: "m3", Kind: "episode", Text: "My sister moved to Porto."}}})
	if vecOf(t, store, "m3") != nil {
		t.Fatal("the vector of the corrected version is still there")
	}
	late, err := EmbedEvents(ctx, emb, tenant, user, []Record{old}, at)
	if err != nil {
		t.Fatal(err)
	}
	apply(late[0])
	if vecOf(t, store, "m3") != nil {
		t.Fatal("a late vector of an old version was kept")
	}
	embedAll("m3")
	if v := vecOf(t, store, "m3"); v == nil || v.Version != old.Version+1 {
		t.Fatalf("the current version's vector: %+v", v)
	}
	if got := query("sistr porrto", true); len(got) == 0 || got[0] != "m3" {
		t.Errorf("the corrected text by its vector: %v", got)
	}

	// forgetting takes the vector with it
	at += int64(time.Minute)
	apply(&events.Event{Tenant: tenant, User: user, At: at, Body: &events.MemoryForgotten{ID: "m1"}})
	if vecOf(t, store, "m1") != nil {
		t.Fatal("a forgotten record's vector is still there")
	}
	if got := query("beagel biskit", true); strings.Contains(strings.Join(got, " "), "m1") {
		t.Errorf("a forgotten record came back: %v", got)
	}
	// a vector of a forgotten record, redelivered, is ignored
	apply(&events.Event{Tenant: tenant, User: user, At: at, Body: &events.MemoryEmbedded{ID: "m1", Version: 1, Model: "ngrams", Vector: []float32{1}}})
	if vecOf(t, store, "m1") != nil {
		t.Fatal("a redelivered vector brought a forgotten record's vector back")
	}
	// bad vectors are refused
	for _, b := range []*events.MemoryEmbedded{{ID: "m2", Version: 1, Model: "ngrams"}, {ID: "m2", Model: "ngrams", Vector: []float32{1}},
		{ID: "", Version: 1, Model: "ngrams", Vector: []float32{1}}} {
		ev := &events.Event{ID: "bad", Tenant: tenant, User: user, At: at, Body: b, Kind: b.Kind()}
		if err := store.apply(e, ev); err == nil {
			t.Errorf("a bad vector %+v was accepted", b)
		}
	}
}

func vecOf(t *testing.T, s *mapStore, id string) *vector {
	t.Helper()
	b, ok, err := s.Get(keysFor("acme", "u1").vec(id))
	if err != nil || !ok {
		return nil
	}
	var v vector
	if err := decodeInto(b, &v); err != nil {
		t.Fatal(err)
	}
	return &v
}
