package assembler

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func compact(t testing.TB, b []byte) string {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatalf("compact %q: %v", b, err)
	}
	return out.String()
}

// TestPreviewFieldsUnderAnyChunking feeds objects split at random points and
// checks that the completed top-level fields are exactly the object's.
func TestPreviewFieldsUnderAnyChunking(t *testing.T) {
	docs := []string{
		`{"city":"Paris","days":3,"units":"metric"}`,
		`{ "a" : { "b" : [1, 2, {"c": "x\"y"}] }, "n": -12.5e3, "t": true, "f": false, "z": null }`,
		`{"emoji":"😀 \u00e9","nested":{"deep":{"deeper":[[],[{}]]}},"last":[]}`,
		`{}`,
		`{"a":1}`,
		`{"k\"ey":"v","x":{"y":1}}`,
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, doc := range docs {
		var want []string
		dec := json.NewDecoder(strings.NewReader(doc))
		var m map[string]json.RawMessage
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		// Field order of the document.
		for _, f := range orderedKeys(t, doc) {
			want = append(want, f+"="+compact(t, m[f]))
		}
		for trial := 0; trial < 200; trial++ {
			var p parser
			var got []string
			rest := doc
			for len(rest) > 0 {
				n := 1 + rng.IntN(len(rest))
				if trial%3 == 0 {
					n = 1
				}
				for _, f := range p.feed(rest[:n]) {
					got = append(got, unquoteKey(f.Key)+"="+compact(t, f.Value))
				}
				rest = rest[n:]
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s trial %d:\n got %v\nwant %v", doc, trial, got, want)
			}
			if !p.complete || p.st != lsDone {
				t.Fatalf("%s: not closed (state %d)", doc, p.st)
			}
		}
	}
}

func unquoteKey(k string) string {
	var s string
	if err := json.Unmarshal([]byte(`"`+k+`"`), &s); err != nil {
		return k
	}
	return s
}

func orderedKeys(t testing.TB, doc string) []string {
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.Token()
	var keys []string
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestPreviewPath(t *testing.T) {
	var p parser
	p.feed(`{"order":{"items":[{"sku":"A1"},{"sk`)
	if got := p.path(); got != "/order/items/1" {
		t.Fatalf("path = %q", got)
	}
	p.feed(`u":"B`)
	if got := p.path(); got != "/order/items/1/sku" {
		t.Fatalf("path = %q", got)
	}
}

func TestPreviewStopsOnGarbage(t *testing.T) {
	var p parser
	p.feed(`{"a":1}}`)
	if p.st != lsInvalid {
		t.Fatalf("state %d, want invalid", p.st)
	}
}

// BenchmarkPreview feeds a 1 MiB argument in 16-byte deltas through the
// incremental parser and compares with one json.Unmarshal of the whole.
// Issue target: preview ≤ 5× unmarshal.
func BenchmarkPreview(b *testing.B) {
	doc := bigArgs(1 << 20)
	b.Run("unmarshal", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for i := 0; i < b.N; i++ {
			var v any
			if err := json.Unmarshal(doc, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("incremental-16B", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		s := string(doc)
		for i := 0; i < b.N; i++ {
			var p parser
			for off := 0; off < len(s); off += 16 {
				p.feed(s[off:min(off+16, len(s))])
				_ = p.path()
			}
			if !p.complete {
				b.Fatal("not complete")
			}
		}
	})
}

func bigArgs(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"rows":[`)
	for i := 0; b.Len() < size-200; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"item number %d","price":%d.%02d,"tags":["a","b"],"ok":true}`, i, i, i%1000, i%100)
	}
	b.WriteString(`],"note":"end"}`)
	return b.Bytes()
}
