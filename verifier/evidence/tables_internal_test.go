package evidence

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestPointersAndValuesShareNumbers: a string value written like a
// pointer, before or after the leaf whose pointer it is, has that
// pointer's number; no string is numbered twice, and the part reads back
// to the bytes it was encoded to.
func TestPointersAndValuesShareNumbers(t *testing.T) {
	for _, raw := range []string{
		`{"b": ["/b/0"]}`,                // the pointer first: the value is its own leaf's pointer
		`{"a": "/b", "b": 1}`,            // the value first, then the leaf at /b
		`{"a": "/c", "b": "/a", "c": 2}`, // both
		`["/0", "/1", "/x"]`,
		`{"a/b": "/a~1b", "t": "~"}`,
		`"/"`,
	} {
		p := IndexResult(Evidence{CallID: "c", Name: "t", Result: json.RawMessage(raw)}, LeavesMax)
		if p.bad {
			t.Fatalf("%s: not indexed", raw)
		}
		tb := p.ix.t
		seen := map[string]int{}
		for i, s := range tb.strs {
			if j, ok := seen[s]; ok {
				t.Fatalf("%s: %q numbered twice (%d and %d)", raw, s, j, i)
			}
			seen[s] = i
		}
		for i := range p.ix.Leaves {
			lf := &p.ix.Leaves[i]
			if lf.Kind == KindStr && !lf.Text && seen[lf.Str()] != int(lf.strID) || seen[lf.Ptr()] != int(lf.ptrID) {
				t.Fatalf("%s: leaf %d (%s, %q) has other numbers than its strings", raw, i, lf.Ptr(), lf.Str())
			}
		}
		b, err := MarshalPart(p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := UnmarshalPart(b, nil)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		b2, err := MarshalPart(q)
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("%s: read back, encodes to other bytes (%v)", raw, err)
		}
	}
}
