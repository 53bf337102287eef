package evidence

import (
	"slices"
	"testing"
	"time"
)

// KeysNaming finds the nodes keyed by a day's word and the fields whose
// key has it as a part, in both languages, and answers a second claim
// naming the same words from what it kept: without the kept list, every
// dated claim split every key of the evidence again.
func TestKeysNaming(t *testing.T) {
	now := time.Date(2024, 5, 3, 10, 0, 0, 0, time.UTC)
	ev := []Evidence{{CallID: "a", Name: "report", Result: []byte(`{
		"today": {"max_c": 19},
		"Tomorrow": {"max_c": 21},
		"cut_today": 1240,
		"visitorsYesterday": 88,
		"todays_total": 7,
		"今天": {"销量": 30},
		"昨天_访客": 12,
		"今天销量": 5,
		"yesterday_note": "closed"}`)}}
	ix := BuildIndex(ev, now)
	ptrs := func(ls []int32, ptr func(int32) string) []string {
		var out []string
		for _, l := range ls {
			out = append(out, ptr(l))
		}
		slices.Sort(out)
		return out
	}
	nodePtr := func(n int32) string { return ix.Nodes[n].Ptr }
	leafPtr := func(l int32) string { return ix.Leaves[l].Ptr() }
	for _, tc := range []struct {
		name          string
		words         []string
		nodes, leaves []string
	}{
		{"en-today", []string{"today", "今天", "今日"}, []string{"/today", "/今天"}, []string{"/cut_today"}},
		{"en-tomorrow-any-case", []string{"tomorrow", "明天", "明日"}, []string{"/Tomorrow"}, nil},
		{"en-camel-case-part", []string{"yesterday", "昨天", "昨日"}, nil, []string{"/visitorsYesterday", "/yesterday_note", "/昨天_访客"}},
		{"zh-today-node", []string{"今天"}, []string{"/今天"}, nil},
		{"zh-part", []string{"昨天"}, nil, []string{"/昨天_访客"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes, leaves := ix.KeysNaming(tc.words)
			if got := ptrs(nodes, nodePtr); !slices.Equal(got, tc.nodes) {
				t.Errorf("nodes %q, want %q", got, tc.nodes)
			}
			if got := ptrs(leaves, leafPtr); !slices.Equal(got, tc.leaves) {
				t.Errorf("leaves %q, want %q", got, tc.leaves)
			}
			again, againLeaves := ix.KeysNaming(tc.words)
			if len(leaves) > 0 && &againLeaves[0] != &leaves[0] || len(nodes) > 0 && &again[0] != &nodes[0] {
				t.Errorf("the keys naming %q were looked for again, not kept", tc.words)
			}
		})
	}
}

// TestKeysNamingReadsEachKeyOnce: the rows of an array repeat their keys,
// and whether a key names a word is worked out once per distinct key, not
// once per field: looking for a word among 300 rows of three fields costs
// a handful of allocations, not several per field.
func TestKeysNamingReadsEachKeyOnce(t *testing.T) {
	raw := []byte(`{"rows": [`)
	for i := range 300 {
		if i > 0 {
			raw = append(raw, ',')
		}
		raw = append(raw, `{"sold_today": 3, "visitorsYesterday": 9, "今天销量": 5}`...)
	}
	raw = append(raw, "]}"...)
	ix := BuildIndex([]Evidence{{CallID: "a", Name: "report", Result: raw}}, time.Date(2024, 5, 3, 10, 0, 0, 0, time.UTC))
	for _, tc := range []struct {
		words  []string
		leaves int
	}{{[]string{"today", "今天", "今日"}, 300}, {[]string{"yesterday", "昨天", "昨日"}, 300}, {[]string{"今天"}, 0}} {
		_, leaves := ix.KeysNaming(tc.words)
		if len(leaves) != tc.leaves {
			t.Fatalf("%q: %d leaves, want %d", tc.words, len(leaves), tc.leaves)
		}
		allocs := testing.AllocsPerRun(20, func() {
			ix.keyWords = nil // NB: not kept between runs
			ix.KeysNaming(tc.words)
		})
		if allocs > 40 {
			t.Errorf("%q: %v allocations for 900 fields of 3 keys: each field's key read again", tc.words, allocs)
		}
	}
}
