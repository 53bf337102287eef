package assembler

import (
	"encoding/json"
	"testing"
)

// FuzzRepairJSON: repair never panics, is linear in its bounds, and what
// it returns is JSON; JSON given to it comes back as the same value.
func FuzzRepairJSON(f *testing.F) {
	for _, s := range []string{`{'a': 1,}`, "```json {a: True}```", `{"a": "it's"}`, `[None, False,]`, `{'a': "x\"y"}`, `{`, `'`, "```", `{a:}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, changes, err := repairJSON(in)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("repair of %q gave %q, not JSON (%v)", in, out, changes)
		}
		if len(out) > 2*len(in)+32 {
			t.Fatalf("repair of %d bytes gave %d", len(in), len(out))
		}
		if json.Valid(in) {
			var a, b any
			json.Unmarshal(in, &a)
			json.Unmarshal(out, &b)
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if string(ja) != string(jb) {
				t.Fatalf("repair changed JSON %q into %q", in, out)
			}
		}
	})
}
