package memory

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/memory/embed"
	"github.com/toolstream/toolstream/memory/embed/local"
	"github.com/toolstream/toolstream/projector"
)

// TestServiceLocalEmbedderKeepsTenantsApart runs the memory service on a
// real embedded server with the shipped word vectors as its embedder (as
// serve does without --embed-url): a paraphrased question finds its
// user's record by meaning, and never a record of another tenant or
// another user of the same tenant, though those say the very thing asked
// about and the asker's own records do not; so too a Chinese question,
// found by the word classes. The writes record no vectors
// (a Matcher reads the texts at the query).
func TestServiceLocalEmbedderKeepsTenantsApart(t *testing.T) {
	emb, err := local.New()
	if err != nil {
		t.Fatal(err)
	}
	_, r := serveTenantsApart(t, emb, nil)
	v := r.View()
	defer v.Close()
	if err := v.Scan(keysFor("acme", "u1").vecs(), func(key, _ []byte) error {
		t.Errorf("a vector was recorded (%q): the word vectors need none", key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// serveTenantsApart runs the memory service on a real embedded server
// with emb as its embedder and m as its matcher, writes the records of two
// tenants' users, and checks that a paraphrased question (English, and
// Chinese by the word classes) finds its user's record first and that no
// question returns a record of another owner. It returns the engine and
// the runner, whose view the caller reads for what the writes recorded.
func serveTenantsApart(t *testing.T, emb embed.Embedder, m Matcher) (*Engine, *projector.Runner) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := serve(ctx, t, &Service{Embedder: emb, Matcher: m})
	e, r := s.Engine, s.Runner
	for i, m := range []struct{ tenant, user, id, text string }{
		{"acme", "u1", "acme-u1-car", "I drive a Subaru."},
		{"acme", "u1", "acme-u1-sister", "My sister lives in Lisbon."},
		{"acme", "u2", "acme-u2-car", "I drive a Volvo."},
		{"globex", "u1", "globex-u1-tax", "The quarterly tax report is due on Friday."},
		{"globex", "u1", "globex-u1-cello", "I started taking cello lessons."},
		{"globex", "u1", "globex-u1-zh-car", "我开的是斯巴鲁。"},
		{"acme", "u2", "acme-u2-zh-city", "我搬到杭州了。"},
	} {
		out, err := s.message(ctx, &Op{Tenant: m.tenant, User: m.user, ID: m.id, Text: m.text,
			Time: time.Date(2025, 4, 1, 9, i, 0, 0, time.UTC).Format(time.RFC3339)})
		if err != nil {
			t.Fatal(err)
		}
		if w := out.(WriteReply); !w.Applied || w.EmbedError != "" {
			t.Fatalf("message %s: %+v", m.id, w)
		}
	}
	recall := func(tenant, user, q string) []string {
		t.Helper()
		a, err := s.recall(ctx, &Op{Tenant: tenant, User: user, Query: q})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range a.(RecallOut).Results {
			ids = append(ids, h.ID)
		}
		return ids
	}
	const q = "What vehicle do I own?"
	if got := recall("acme", "u1", q); len(got) == 0 || got[0] != "acme-u1-car" {
		t.Fatalf("acme/u1 %q: %v, want acme-u1-car first", q, got)
	}
	// Chinese by the word classes: the asker's own record, never another's
	if got := recall("globex", "u1", "我的车是什么牌子？"); len(got) == 0 || got[0] != "globex-u1-zh-car" {
		t.Fatalf("globex/u1 我的车是什么牌子？: %v, want globex-u1-zh-car first", got)
	}
	for _, c := range []struct{ tenant, user, own string }{{"acme", "u1", "acme-u1-"}, {"acme", "u2", "acme-u2-"}, {"globex", "u1", "globex-u1-"}} {
		for _, ask := range []string{q, "I drive a Subaru.", "Which car does she drive?", "Volvo Subaru Lisbon tax cello",
			"我的车是什么牌子？", "我住在哪个城市？", "我开的是斯巴鲁。"} {
			for _, id := range recall(c.tenant, c.user, ask) {
				if !strings.HasPrefix(id, c.own) {
					t.Errorf("%s/%s asked %q and got %s, another owner's record", c.tenant, c.user, ask, id)
				}
			}
		}
	}
	return e, r
}
