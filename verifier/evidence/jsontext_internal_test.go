package evidence

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestJSONTextIsTheEncoders: jsonText's shortcut for plain strings writes
// what encoding/json (HTML escaping off) writes, for plain strings and for
// every kind it leaves to the encoder.
func TestJSONTextIsTheEncoders(t *testing.T) {
	for _, s := range []string{
		"", "Widget 12", "SKU-0001", "Ships in 2-4 business days.", `say "hi"`, `a\b`, "tab\there",
		"<b>&</b>", "库存", "caf\u00e9", "line\u2028sep", "\x7f", "\xff bad", strings.Repeat("x", 300),
	} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got, want := JsonText(s), strings.TrimSuffix(b.String(), "\n"); got != want {
			t.Errorf("jsonText(%q) = %s, the encoder writes %s", s, got, want)
		}
	}
}
