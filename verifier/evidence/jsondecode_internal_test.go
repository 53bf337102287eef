package evidence

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// stdDecode is what decodeJSON must agree with: json.Decoder with
// UseNumber, reading the first value.
func stdDecode(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

var decodeSeeds = []string{
	`[{"b":1,"a":2},{"b":3,"a":4},{"b":5,"b":6,"a":7},{"b":8,"a":9},{"a":1,"b":2,"a":3},{"a":1,"c":{"y":1,"x":2}},{"a":1,"c":{"x":1,"y":2}}]`,
	``, ` `, `{}`, `[]`, `null`, `true`, `false`, `nul`, `tru`, `truex`, `0`, `-0`, `01`, `-`, `-x`, `1.`, `1.x`, `1.5`, `1e5`, `1E+5`, `1e-`, `1ex`,
	`12ab`, `"ab"cd`, `{}x`, `[1,]`, `[,1]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `{"a":1 "b":2}`, `{"a":1,"a":2}`, `[1 2]`, `[01]`, `[-]`,
	`"\u00e9\n\t\"\\\/\b\f\r"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00"`, `"\ud83dx"`, `"\ud83d\u0041"`, `"\ud83d\uZZZZ"`, `"\u12"`, `"\x"`,
	"\"a\x01b\"", "\"\xff\xfe\"", "\"ok\xffok\"", "\"\xed\xa0\x80\"", "{\"\xff\":1}", `"unterminated`, `{"a":`, `[`, `{`, "\ufeff{}",
	` {"items":[{"name":"Alpha","stock":12,"price":5.5,"tags":["a","b"],"n":null,"ok":true}], "total": -1.25e3 } `,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000), strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 10000) + `1` + strings.Repeat("}", 10000), strings.Repeat(`{"a":`, 10001) + `1` + strings.Repeat("}", 10001),
}

// TestDecodeJSONAsEncodingJSON: every seed decodes to what json.Decoder
// gives, or both refuse it.
func TestDecodeJSONAsEncodingJSON(t *testing.T) {
	for _, s := range decodeSeeds {
		sameAsStd(t, []byte(s))
	}
}

// FuzzDecodeJSON: decodeJSON and json.Decoder (UseNumber) agree on every
// input: the same tree, or both refuse it.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range decodeSeeds {
		if len(s) < 1000 {
			f.Add([]byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) { sameAsStd(t, raw) })
}

func sameAsStd(t *testing.T, raw []byte) {
	t.Helper()
	want, werr := stdDecode(raw)
	got, n, gerr := decodeJSONCounted(raw)
	short := string(raw)
	if len(short) > 80 {
		short = short[:80] + "…"
	}
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%q: encoding/json error %v, decodeJSON error %v", short, werr, gerr)
	}
	if werr == nil && !reflect.DeepEqual(stdOf(got), want) {
		t.Fatalf("%q: decodeJSON %#v, encoding/json %#v", short, got, want)
	}
	if werr == nil {
		var c jsonCounts
		countScalars(want, &c)
		// Every scalar read is counted, those a repeated key replaced too.
		if n.scalars < c.scalars || n.strings < c.strings || n.strings > n.scalars || n.scalars > len(raw) {
			t.Fatalf("%q: counted %+v, the tree has %+v", short, n, c)
		}
	}
}

// countScalars counts the scalar values of a decoded tree, and its strings.
func countScalars(v any, c *jsonCounts) {
	switch t := v.(type) {
	case map[string]any:
		for _, x := range t {
			countScalars(x, c)
		}
	case []any:
		for _, x := range t {
			countScalars(x, c)
		}
	case string:
		c.scalars++
		c.strings++
	default:
		c.scalars++
	}
}

// stdOf is a decoded tree as json.Decoder gives it: an object a map. An
// object's fields must be sorted by key, each key once.
func stdOf(v any) any {
	switch t := v.(type) {
	case jsonObject:
		m := make(map[string]any, len(t))
		for i, f := range t {
			if i > 0 && t[i-1].k >= f.k {
				panic("decodeJSON: an object's keys out of order or repeated")
			}
			m[f.k] = stdOf(f.v)
		}
		return m
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = stdOf(x)
		}
		return out
	}
	return v
}
