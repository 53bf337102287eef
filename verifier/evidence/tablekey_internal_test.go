package evidence

import (
	"fmt"
	"strings"
	"testing"
)

// TestTableKeysMakeNoStringToLookUp: numbering a concept list or category
// list the tables have already makes no string (the key is looked up from
// a buffer), a new one is numbered as tableKey numbers it, and a category
// list's key tells rank and negation apart as fmt.Sprint wrote them.
func TestTableKeysMakeNoStringToLookUp(t *testing.T) {
	tb := newTables(16)
	a := []string{"price", "cost"}
	b := []string{"price", "cost"} // the same list elsewhere in memory
	c := []string{"pricecost"}
	ida, idb, idc := tb.list(a), tb.list(b), tb.list(c)
	if ida != idb || ida == idc || ida == 0 {
		t.Fatalf("list numbers %d %d %d: want the first two equal, the third other, none 0", ida, idb, idc)
	}
	if id, ok := tb.listIDs[tableKey(a...)]; !ok || id != ida {
		t.Fatalf("list %v is not keyed by tableKey: %d %v", a, id, ok)
	}
	cats := [][]CatValue{
		{{Class: "status", Value: "shipped", rank: 1}},
		{{Class: "status", Value: "shipped", rank: 1, Neg: true}},
		{{Class: "status", Value: "shipped", rank: 11}},
		{{Class: "status", Value: "shipped", rank: -1}},
		{{Class: "状态", Value: "已发货", rank: 2}, {Class: "status", Value: "shipped", rank: 1}},
	}
	ids := map[uint32]int{}
	for i, cs := range cats {
		id := tb.catList(cs)
		if j, ok := ids[id]; ok {
			t.Fatalf("category lists %d and %d share number %d", j, i, id)
		}
		ids[id] = i
		var parts []string
		for _, cv := range cs {
			parts = append(parts, cv.Class, cv.Value, fmt.Sprint(cv.rank, cv.Neg))
		}
		if got, ok := tb.catIDs[tableKey(parts...)]; !ok || got != id {
			t.Fatalf("category list %d is not keyed as before: %d %v", i, got, ok)
		}
		if again := tb.catList(append([]CatValue(nil), cs...)); again != id {
			t.Fatalf("category list %d numbered again: %d, want %d", i, again, id)
		}
	}
	if n := testing.AllocsPerRun(100, func() { tb.list(b); tb.catList(cats[4]) }); n != 0 {
		t.Fatalf("numbering lists the tables have makes %v allocations, want 0", n)
	}
}

// TestAWholeValueIsLookedUpInItsWholeForm: the form a whole value is looked
// up by is strings.Join(strings.Fields(s with '_' and '-' as spaces), " "),
// English and Chinese, invalid bytes as strings.Map writes them; and the
// lookup makes no string.
func TestAWholeValueIsLookedUpInItsWholeForm(t *testing.T) {
	ref := func(s string) string {
		return strings.Join(strings.Fields(strings.Map(func(c rune) rune {
			if c == '_' || c == '-' {
				return ' '
			}
			return c
		}, s)), " ")
	}
	for _, s := range []string{
		"", " ", "in_transit", "IN-TRANSIT", "in transit", " in  transit ", "in\ttransit", "a_-_b",
		"_", "-x-", "已发货", "已 发货", "已_发货", "未\u3000发货", "shipped\n", "x\xffy", "\xff_a", "a\u00a0b",
	} {
		got := string(appendCatWhole(nil, s))
		if want := ref(s); got != want {
			t.Errorf("%q: whole form %q, want %q", s, got, want)
		}
		if catWholeAlready(s) && ref(s) != s {
			t.Errorf("%q: taken as in its whole form, which is %q", s, ref(s))
		}
		cs, ok := wholeCategoriesOf(s)
		ws, wok := wholeCategories(ref(s))
		if ok != wok || fmt.Sprint(cs) != fmt.Sprint(ws) {
			t.Errorf("%q: categories %v %v, want %v %v", s, cs, ok, ws, wok)
		}
	}
	if n := testing.AllocsPerRun(100, func() { wholeCategoriesOf("in_transit"); wholeCategoriesOf(" 已 发货 ") }); n != 0 {
		t.Fatalf("looking a whole value up makes %v allocations, want 0", n)
	}
}
