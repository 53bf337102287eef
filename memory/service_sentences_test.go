package memory

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/memory/embed/local"
	"github.com/toolstream/toolstream/memory/embed/use"
	"github.com/toolstream/toolstream/projector"
)

// TestServiceSentenceEncoderKeepsTenantsApart runs the memory service on
// a real embedded server as serve --embed-sentences does: the shipped
// sentence encoder (memory/embed/use) as its embedder, whose vectors each
// write records, and the shipped word vectors as its matcher. A
// paraphrased question finds its user's record, and never a record of
// another tenant or another user of the same tenant, though those say
// the very thing asked about; each record has one vector, of the
// encoder, for its current version, under its own owner's keys.
func TestServiceSentenceEncoderKeepsTenantsApart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := bustest.Start(t)
	e := NewEngine(Config{}, nil)
	r, err := projector.New(projector.Config{JS: b.JS, Keys: b.Keys, Dir: t.TempDir()}, NewProjection(e))
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
	words, err := local.New()
	if err != nil {
		t.Fatal(err)
	}
	enc, err := use.New()
	if err != nil {
		t.Fatal(err)
	}
	s := &Service{Engine: e, Runner: r, Embedder: enc, Matcher: words,
		Publish: func(ctx context.Context, subj string, ev *events.Event, scope string) (uint64, error) {
			ack, err := b.PublishSealed(ctx, subj, ev, scope)
			if err != nil {
				return 0, err
			}
			return ack.Sequence, nil
		}}
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
	// one vector per record, of the encoder, for its current version,
	// under its own owner's keys
	v := r.View()
	defer v.Close()
	for _, o := range [][2]string{{"acme", "u1"}, {"acme", "u2"}, {"globex", "u1"}} {
		recs, err := e.List(v, o[0], o[1], false)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		if err := v.Scan(keysFor(o[0], o[1]).vecs(), func(key, value []byte) error {
			var x vector
			if err := decodeInto(value, &x); err != nil {
				return err
			}
			id := keysFor(o[0], o[1]).lastComponent(key)
			if x.Model != use.Model || len(x.Vector) != use.Dim || !strings.HasPrefix(id, o[0]+"-"+o[1]+"-") {
				t.Errorf("%s/%s: vector %s of model %s, %d dimensions", o[0], o[1], id, x.Model, len(x.Vector))
			}
			got[id+"@"+strconv.Itoa(x.Version)] = true
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(recs) {
			t.Errorf("%s/%s: %d vectors for %d records", o[0], o[1], len(got), len(recs))
		}
		for _, rec := range recs {
			if !got[rec.ID+"@"+strconv.Itoa(rec.Version)] {
				t.Errorf("%s/%s: no vector for %s v%d", o[0], o[1], rec.ID, rec.Version)
			}
		}
	}
}
