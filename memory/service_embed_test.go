package memory

import (
	"context"
	"testing"
	"time"

	"github.com/toolstream/toolstream/memory/embed"
	"github.com/toolstream/toolstream/memory/embed/embedtest"
)

// TestServiceEmbedsWritesAndQueries runs the memory service on a real
// embedded server with an embeddings service standing for the internet:
// a message's records get vectors (events sealed under each record's
// key, applied by the projection), a misspelt recall finds its record by
// vector, and when the embeddings service fails the write is applied all
// the same (embed_error says why) and recall is lexical.
func TestServiceEmbedsWritesAndQueries(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := embedtest.Start(t, "key")
	emb, err := embed.NewHTTP(embed.Config{URL: srv.URL, Model: "ngrams", APIKey: "key"})
	if err != nil {
		t.Fatal(err)
	}
	s := serve(ctx, t, &Service{Embedder: emb})
	r := s.Runner
	out, err := s.message(ctx, &Op{Tenant: "acme", User: "u1", ID: "m1", Text: "We adopted a beagle and named him Biscuit.",
		Time: "2025-04-01T09:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	if w := out.(WriteReply); !w.Applied || w.EmbedError != "" {
		t.Fatalf("message: %+v", w)
	}
	if _, err := s.message(ctx, &Op{Tenant: "acme", User: "u1", ID: "m2", Text: "The quarterly tax report is due on Friday.",
		Time: "2025-04-01T09:01:00Z"}); err != nil {
		t.Fatal(err)
	}
	recall := func(q string) []RecallHit {
		t.Helper()
		a, err := s.recall(ctx, &Op{Tenant: "acme", User: "u1", Query: q}) // the write waited for its vectors
		if err != nil {
			t.Fatal(err)
		}
		return a.(RecallOut).Results
	}
	if got := recall("beagel biskit"); len(got) == 0 || got[0].ID != "m1" {
		t.Fatalf("misspelt recall through the service: %+v", got)
	}
	v := r.View()
	if b, ok, err := v.Get(keysFor("acme", "u1").vec("m2")); err != nil || !ok || len(b) == 0 {
		t.Errorf("m2 has no vector: %v %v", ok, err)
	}
	v.Close()

	srv.Fail.Store(true)
	out, err = s.message(ctx, &Op{Tenant: "acme", User: "u1", ID: "m3", Text: "My sister lives in Lisbon.", Time: "2025-04-01T09:02:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	if w := out.(WriteReply); !w.Applied || w.EmbedError == "" {
		t.Fatalf("a write while the embedder fails: %+v, want applied with embed_error", w)
	}
	if got := recall("sister Lisbon"); len(got) == 0 || got[0].ID != "m3" {
		t.Fatalf("lexical recall while the embedder fails: %+v", got)
	}
}
