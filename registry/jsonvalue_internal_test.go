package registry

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// readJSON and appendCanonical agree with the schema library's decoder and
// encoding/json's encoder on every input: the same values, the same errors
// (the library's own), the same canonical bytes.
func FuzzReadJSONParity(f *testing.F) {
	for _, s := range []string{
		`{}`, ` {"b":1,"a":[true,false,null,"x"]} `, `{"a":1,"a":2}`, `[1.5e3,-0,0.1E-2]`, `"\u00e9\ud83d\ude00"`,
		`"\ud800"`, `"\udc00\ud800x"`, `"\ud800\u0041"`, "\"\xff\xfe\"", `"\u2028\u2029<>&"`, `"\b\f\n\r\t\u0001\u001f\u007f\\\/\""`,
		"\"caf\xc3\xa9\"", `{"k\"ey":{"":[]}}`, `1 2`, `{`, ``, `  `, `nul`, `{"a":}`, `[1,]`, "\"\x01\"", `"\ud834\udd1e"`,
		`{"z":1,"Z":2,"é":3,"e":4}`, `123456789012345678901234567890`, `-1.0e+10`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, werr := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		got, gerr := readJSON(data)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("%q: error %v, the library's %v", data, gerr, werr)
		}
		if werr != nil {
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: %#v, the library's %#v", data, got, want)
		}
		wantOut, err := canonicalJSON(want)
		if err != nil {
			t.Fatal(err)
		}
		gotOut, ok := appendCanonical(nil, got)
		if !ok || !bytes.Equal(gotOut, wantOut) {
			t.Fatalf("%q: canonical %q, encoding/json's %q", data, gotOut, wantOut)
		}
	})
}

func BenchmarkReadJSON(b *testing.B) {
	args := []byte(`{"city":"Paris","days":3,"units":"metric","tags":["a","b"],"nested":{"x":1.5,"y":null,"ok":true}}`)
	b.Run("library", func(b *testing.B) {
		for b.Loop() {
			v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(args))
			canonicalJSON(v)
		}
	})
	b.Run("readJSON", func(b *testing.B) {
		for b.Loop() {
			v, _ := readJSON(args)
			appendCanonical(nil, v)
		}
	})
}
