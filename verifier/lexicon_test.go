package verifier

import (
	"strings"
	"testing"
)

// The embedded lexicon loads, and a malformed one is refused with the
// line that is wrong.
func TestLexiconFile(t *testing.T) {
	if len(enLex) < 500 || len(zhLex) < 500 || !lexConcepts["stock"] {
		t.Fatalf("lexicon too small: %d English, %d Chinese words", len(enLex), len(zhLex))
	}
	if l := enLex["out of stock"]; l == nil || l.cues&cueNegLex == 0 || !strings.Contains(strings.Join(l.concepts, " "), "stock") {
		t.Fatalf("out_of_stock: %+v", l)
	}
	for _, tc := range []struct{ text, err string }{
		{"[concepts]\nstock = stock stock", `"stock" twice`},
		{"[cues]\nnegg = not", `unknown cue "negg"`},
		{"[colours]\nred = red", `unknown section "colours"`},
		{"stock = stock", "in a section"},
		{"[categories]\norder/shipped = shipped", "class/value/rank"},
	} {
		_, err := parseLexicon(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "line") {
			t.Errorf("%q: got %v, want an error with %q", tc.text, err, tc.err)
		}
	}
}
