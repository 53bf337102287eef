package executor

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	long := strings.Repeat("é", 1000)
	var wide []string
	for i := range 100 {
		wide = append(wide, fmt.Sprintf(`"k%03d%s":1`, i, strings.Repeat("x", 100)))
	}
	hopeless := "{" + strings.Join(wide, ",") + "}"
	rows := make([]string, 50)
	for i := range rows {
		rows[i] = fmt.Sprintf(`{"id":%d,"name":"n%d"}`, i, i)
	}
	table := "[" + strings.Join(rows, ",") + "]"
	cases := []struct {
		name, result, ref string
		want              string // exact, or "~substring"
	}{
		{"small stays whole", `{"a":1,"b":[1,2,3]}`, "", `{"a":1,"b":[1,2,3]}`},
		{"ten rows stay whole", `[1,2,3,4,5,6,7,8,9,10]`, "", `[1,2,3,4,5,6,7,8,9,10]`},
		{"large array", `{"rows":` + table + `}`, "", `{"rows":{"count":50,"fields":["id","name"],"outliers":[{"index":49,"is":"max id","row":{"id":49,"name":"n49"}}],"ref":"the result field of this event","sample":[{"id":0,"name":"n0"},{"id":1,"name":"n1"},{"id":2,"name":"n2"}],"stats":{"id":{"max":49,"mean":24.5,"min":0,"n":50,"p25":12,"p50":24,"p75":37}}}}`},
		{"large array by reference", table, "ts_results/k", `~"ref":"ts_results/k"`},
		{"long string cut", `{"text":"` + long + `","more":"` + long + `"}`, "", `~…(1000 chars)`},
		{"nested arrays", `[` + table + `,` + table + `]`, "", `~"count":50`},
		{"hopeless", hopeless, "ts_results/k", fmt.Sprintf(`{"bytes":%d,"ref":"ts_results/k","truncated":true}`, len(hopeless))},
		{"not json", strings.Repeat("x", 3000), "", `{"bytes":3000,"truncated":true}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := summarize([]byte(c.result), c.ref, 2048)
			if len(got) > 2048 {
				t.Fatalf("summary of %d bytes", len(got))
			}
			if want, ok := strings.CutPrefix(c.want, "~"); ok {
				if !strings.Contains(got, want) {
					t.Fatalf("summary %s lacks %s", got, want)
				}
			} else if got != c.want {
				t.Fatalf("summary\n got %s\nwant %s", got, c.want)
			}
			if !json.Valid([]byte(got)) {
				t.Fatalf("summary is not JSON: %s", got)
			}
		})
	}
}

func TestRecordKeyIsAValidBucketKey(t *testing.T) {
	for _, key := range []string{"acme/run.1/step 2/call_é", "acme/-/-/c", "acme/a/b/c.d*>~"} {
		k := recordKey("acme", key)
		if !strings.HasPrefix(k, "c.acme.") || strings.Count(k, ".") != 2 {
			t.Fatalf("recordKey(%q) = %q", key, k)
		}
		for _, c := range k {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-/_=.", c)) {
				t.Fatalf("recordKey(%q) = %q has %q", key, k, c)
			}
		}
	}
	if recordKey("acme", "acme/a/b/c") == recordKey("globex", "acme/a/b/c") {
		t.Fatal("tenants share a record key")
	}
}

func TestBreakerTrialLapses(t *testing.T) {
	now := int64(0)
	clock := func() time.Time { return time.Unix(0, now) }
	b := newBreaker(2, time.Second, clock)
	b.record("a", "t", "tool_error")
	b.record("a", "t", "tool_error")
	if ok, _ := b.allow("a", "t"); ok {
		t.Fatal("open circuit allowed a call")
	}
	now += int64(time.Second)
	if ok, _ := b.allow("a", "t"); !ok {
		t.Fatal("no trial after the cool-down")
	}
	if ok, _ := b.allow("a", "t"); ok {
		t.Fatal("two trials at once")
	}
	now += int64(time.Second) // the trial never reported: it lapses
	if ok, _ := b.allow("a", "t"); !ok {
		t.Fatal("a lost trial keeps the circuit open forever")
	}
	b.record("a", "t", "")
	if ok, _ := b.allow("a", "t"); !ok || len(b.m) != 0 {
		t.Fatal("success does not close the circuit")
	}
}

// hasLargeArray (a scan of the bytes) answers as hasLargeArrayTokens (the
// JSON tokenizer) on random valid JSON, compacted or not, with arrays
// around the limit, strings holding brackets, commas and escapes, and
// nesting beyond the scan's depth.
func TestHasLargeArrayParity(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	var gen func(depth int) any
	gen = func(depth int) any {
		switch k := rnd.IntN(8); {
		case depth > 0 && k < 2:
			n := rnd.IntN(14)
			a := make([]any, n)
			for i := range a {
				a[i] = gen(depth - 1)
			}
			return a
		case depth > 0 && k < 4:
			m := map[string]any{}
			for i := range rnd.IntN(14) {
				m[fmt.Sprintf(`k%d,[\"]{`, i)] = gen(depth - 1)
			}
			return m
		case k < 5:
			return []string{`a,b`, `[1,2]`, `"q\"`, `\\`, `}{`, "é\n\t", ``}[rnd.IntN(7)]
		case k < 6:
			return rnd.NormFloat64() * 1e6
		case k < 7:
			return []any{true, false, nil}[rnd.IntN(3)]
		}
		return rnd.IntN(100)
	}
	for i := range 20000 {
		v := gen(1 + rnd.IntN(5))
		var data []byte
		if rnd.IntN(2) == 0 {
			data, _ = json.Marshal(v)
		} else {
			data, _ = json.MarshalIndent(v, " ", "  ")
		}
		if got, want := hasLargeArray(data), hasLargeArrayTokens(data); got != want {
			t.Fatalf("case %d: hasLargeArray %v, tokenizer %v on %s", i, got, want, data)
		}
	}
	for _, n := range []int{10, 11, 70, 200} {
		for _, wrap := range []string{"[%s]", `{"a":%s}`} {
			inner := "1"
			for range n {
				inner = fmt.Sprintf(wrap, inner)
			}
			for _, tail := range []string{"", ",2,3,4,5,6,7,8,9,10,11"} {
				data := []byte("[" + inner + tail + "]")
				if got, want := hasLargeArray(data), hasLargeArrayTokens(data); got != want {
					t.Fatalf("depth %d %s%s: hasLargeArray %v, tokenizer %v", n, wrap, tail, got, want)
				}
			}
		}
	}
}

// TestSummaryCountsOfCutValues: two string values that read the same once
// cut to the level's length are one key of the counts; its count is both
// values' rows, every time (the map's order once decided which count won).
func TestSummaryCountsOfCutValues(t *testing.T) {
	prefix := strings.Repeat("p", 300)
	rows := make([]any, 40)
	for i := range rows {
		rows[i] = map[string]any{"k": prefix + string(rune('a'+i%4))}
	}
	lv := shrinkLevels[0]
	var first []byte
	for range 50 {
		out := map[string]any{}
		describe(out, rows, lv, "ref", 0)
		counts, _ := out["counts"].(map[string]any)
		k, _ := counts["k"].(map[string]any)
		if len(k) != 1 || k[cut(prefix, lv.runes)] != 40 {
			t.Fatalf("counts of k: %v, want the cut value counted 40 times", k)
		}
		b, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = b
		} else if string(b) != string(first) {
			t.Fatalf("describe gave\n%s\nthen\n%s", first, b)
		}
	}
}
