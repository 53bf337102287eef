package executor

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
)

// leaves returns every scalar of v by its pointer, and every array's
// length by its pointer.
func leaves(v any, ptr string, vals map[string]any, lens map[string]int) {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			leaves(c, ptr+"/"+pointerEscaper.Replace(k), vals, lens)
		}
	case []any:
		lens[ptr] = len(t)
		for i, c := range t {
			leaves(c, ptr+"/"+strconv.Itoa(i), vals, lens)
		}
	default:
		vals[ptr] = v
	}
}

func decodeNumbers(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	d := json.NewDecoder(strings.NewReader(string(data)))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%v: %.200s", err, data)
	}
	return v
}

// randomResult builds a result of orders, nested lists, long notes and
// keys that need escaping in a pointer.
func randomResult(rng *rand.Rand, n int) []byte {
	orders := make([]any, n)
	for i := range orders {
		o := map[string]any{"id": fmt.Sprintf("ORD-%05d", i), "amount": rng.IntN(100000), "status": []string{"shipped", "pending"}[rng.IntN(2)],
			"a/b~c": rng.Float64(), "lines": make([]any, rng.IntN(4))}
		if rng.IntN(5) == 0 {
			o["note"] = strings.Repeat("x<&>", rng.IntN(600))
		}
		for k := range o["lines"].([]any) {
			o["lines"].([]any)[k] = map[string]any{"sku": fmt.Sprint("K-", rng.IntN(99)), "qty": rng.IntN(9), "ok": rng.IntN(2) == 0, "gift": nil}
		}
		orders[i] = o
	}
	b, _ := json.Marshal(map[string]any{"orders": orders, "page": 1, "empty": []any{}, "meta": map[string]any{"source": "crm"}})
	return b
}

// An excerpt is JSON within its bound (its cuts included); each of its
// values is the whole result's value at the same pointer; each array is
// the whole one's or a cut says how long the whole one is and how many
// elements were kept; a result within the bound is its own excerpt.
func TestExcerpt(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 2))
	for _, tc := range []struct {
		n, max int
	}{{3, 1 << 20}, {40, 4 << 10}, {1000, 64 << 10}, {1000, 300}, {3000, 64 << 10}, {200, 40}} {
		t.Run(fmt.Sprintf("%d orders in %d bytes", tc.n, tc.max), func(t *testing.T) {
			whole := randomResult(rng, tc.n)
			ex, cuts := excerpt(whole, tc.max)
			size := len(ex)
			for _, c := range cuts {
				size += len(c.Pointer) + cutBytes
			}
			if size > tc.max {
				t.Fatalf("excerpt of %d bytes with its cuts, over %d", size, tc.max)
			}
			if len(ex) == 0 {
				if tc.max >= 64 {
					t.Fatalf("no excerpt")
				}
				return
			}
			wv, wl := map[string]any{}, map[string]int{}
			leaves(decodeNumbers(t, whole), "", wv, wl)
			xv, xl := map[string]any{}, map[string]int{}
			leaves(decodeNumbers(t, ex), "", xv, xl)
			for p, v := range xv {
				if !reflect.DeepEqual(wv[p], v) {
					t.Fatalf("%s: %v in the excerpt, %v in the whole", p, v, wv[p])
				}
			}
			cut := map[string]events.ArrayCut{}
			for _, c := range cuts {
				cut[c.Pointer] = c
			}
			for p, n := range xl {
				c, ok := cut[p]
				switch {
				case !ok && n != wl[p]:
					t.Fatalf("%s: %d elements of %d and no cut", p, n, wl[p])
				case ok && (c.Kept != n || c.Len != wl[p] || n >= c.Len):
					t.Fatalf("%s: cut %+v, %d elements of %d", p, c, n, wl[p])
				}
			}
			if len(whole) <= tc.max && (len(cuts) > 0 || !reflect.DeepEqual(decodeNumbers(t, whole), decodeNumbers(t, ex))) {
				t.Fatalf("a result within the bound is not its own excerpt")
			}
			if len(whole) > tc.max && len(xv) == 0 && tc.max >= 4<<10 {
				t.Fatalf("nothing kept of %d bytes in %d", len(whole), tc.max)
			}
			if len(whole) > tc.max && tc.max >= 4<<10 && len(ex) < tc.max/2 {
				t.Fatalf("excerpt of %d bytes uses under half its bound %d", len(ex), tc.max)
			}
		})
	}
	for _, bad := range []string{"", "{", "not json"} {
		if ex, cuts := excerpt([]byte(bad), 1<<10); ex != nil || cuts != nil {
			t.Errorf("excerpt(%q) = %s %v", bad, ex, cuts)
		}
	}
}
