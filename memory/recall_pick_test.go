package memory

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/toolstream/toolstream/memory/embed/local"
)

// A recall's K counts messages: the statements of one long message come
// together and do not crowd the other messages out of the first K. The
// records of K messages are those ranked before the first record of a
// K+1th message, in the order of the recall with no such bound.
func TestRecallKCountsMessages(t *testing.T) {
	e := NewEngine(Config{}, nil)
	s := newPebbleStore(t)
	at := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	applyMessage(t, e, s, "u1", "m2", "My neighbour's garden has roses.", at)
	applyMessage(t, e, s, "u1", "m3", "We planted tomatoes in the garden.", at.Add(time.Hour))
	applyMessage(t, e, s, "u1", "m4", "The plumber comes on Thursday.", at.Add(2*time.Hour))
	long := applyMessage(t, e, s, "u1", "m1", "The garden gate is broken. The garden shed leaks in the rain. "+
		"The garden hose is brand new. The garden needs water every evening.", at.Add(3*time.Hour))
	if len(long) != 4 {
		t.Fatalf("m1 wrote %v, want a record per sentence", long)
	}
	words, err := local.New()
	if err != nil {
		t.Fatal(err)
	}
	recall := func(q Query) (ids, sources []string) {
		t.Helper()
		q.Tenant, q.User = "acme", "u1"
		res, err := e.Recall(s.reader(), q)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Records {
			ids = append(ids, h.Record.ID)
			if src := source(&h.Record); !slices.Contains(sources, src) {
				sources = append(sources, src)
			}
		}
		return ids, sources
	}
	for _, mode := range []struct {
		name string
		q    Query
	}{
		{"lexical", Query{Text: "what about the garden?"}},
		{"word vectors", Query{Text: "what about the garden?", Matcher: words}},
		{"no query", Query{}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			q := mode.q
			q.K = KMax
			all, _ := recall(q)
			for k := 1; k <= 3; k++ {
				q.K = k
				ids, sources := recall(q)
				if len(sources) != k {
					t.Errorf("K %d: records %v come from %d messages %v", k, ids, len(sources), sources)
				}
				// the same order, cut before the first record of the K+1th message
				var want []string
				seen := map[string]bool{}
				for _, id := range all {
					msg := id
					if i := len(id) - len("#2"); i > 0 && id[i] == '#' {
						msg = id[:i]
					}
					if !seen[msg] && len(seen) == k {
						break
					}
					seen[msg] = true
					want = append(want, id)
				}
				if fmt.Sprint(ids) != fmt.Sprint(want) {
					t.Errorf("K %d: records %v, want %v (of %v)", k, ids, want, all)
				}
			}
			if q.Text != "" {
				// counting records, m1's first two statements would be all
				q.K = 2
				if ids, sources := recall(q); len(ids) <= 2 || !slices.Contains(sources, "m1") {
					t.Errorf("K 2: records %v of %v: another message is crowded out", ids, sources)
				}
			}
		})
	}
	// The budget still bounds what a recall returns, the first record always.
	res, err := e.Recall(s.reader(), Query{Tenant: "acme", User: "u1", Text: "garden", K: 3, BudgetTokens: 12})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, h := range res.Records {
		n += EstimateTokens(h.Record.Text)
	}
	if len(res.Records) == 0 || len(res.Records) > 1 && n > 12 {
		t.Errorf("budget 12 tokens: %d records of %d tokens", len(res.Records), n)
	}
}
