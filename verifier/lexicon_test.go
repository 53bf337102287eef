package verifier

import (
	"github.com/toolstream/toolstream/internal/lang"

	"strings"
	"testing"
)

// The lexicon of the language data loads and holds what the rules need;
// internal/lang's tests refuse a malformed file.
func TestLexiconFile(t *testing.T) {
	if len(enLex) < 500 || len(zhLex) < 500 || !lexConcepts["stock"] {
		t.Fatalf("lexicon too small: %d English, %d Chinese words", len(enLex), len(zhLex))
	}
	if l := enLex["out of stock"]; l == nil || l.cues&cueNegLex == 0 || !strings.Contains(strings.Join(l.concepts, " "), "stock") {
		t.Fatalf("out_of_stock: %+v", l)
	}
	if _, err := parseLexicon(lang.Default()); err != nil {
		t.Fatal(err)
	}
}
