package evidence

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestANameRepeatedSharesItsKeys: a name repeated across the rows of an
// array (a city, a brand) has its tokens and their subject keys worked out
// once, and every row's subject entry shares them; distinct names keep
// keys of their own, each as keysOfTokens makes them. English and Chinese.
func TestANameRepeatedSharesItsKeys(t *testing.T) {
	type row struct {
		Name  string `json:"name"`
		Store string `json:"store"`
	}
	for _, tc := range []struct{ lang, name, store, key string }{
		{"en", "Trail Runner %d", "North Harbour Depot", "north"},
		{"zh", "登山鞋%d号", "浦东新区仓库", "浦"},
	} {
		var rows []row
		for i := range 50 {
			rows = append(rows, row{Name: fmt.Sprintf(tc.name, i), Store: tc.store})
		}
		raw, _ := json.Marshal(map[string]any{"items": rows})
		p := IndexResult(Evidence{CallID: "c", Name: "store_lookup", Result: raw}, LeavesMax)
		es := p.ix.subjects[tc.key]
		var shared []SubjEntry
		for _, e := range es {
			if e.Exact == tc.store && !e.alias && !e.Partial {
				shared = append(shared, e)
			}
		}
		if len(shared) != 50 {
			t.Fatalf("%s: %d whole entries of %q under %q, want 50 (%v)", tc.lang, len(shared), tc.store, tc.key, es)
		}
		for _, e := range shared {
			if want := keysOfTokens(e.Toks); fmt.Sprint(e.Keys) != fmt.Sprint(want) {
				t.Fatalf("%s: keys %q, want %q", tc.lang, e.Keys, want)
			}
			if &e.Keys[0] != &shared[0].Keys[0] || &e.Toks[0] != &shared[0].Toks[0] {
				t.Fatalf("%s: the rows naming %q do not share its tokens and keys: worked out again per row", tc.lang, tc.store)
			}
		}
	}
}
