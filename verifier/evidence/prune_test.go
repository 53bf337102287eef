package evidence

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// SameLower says what comparing strings.ToLower of both says, for mixed
// case, non-ASCII and invalid UTF-8.
func TestSameLowerIsToLowerEquality(t *testing.T) {
	pieces := []string{"a", "A", "é", "É", "Σ", "σ", "ς", "K", "\u212a", "k", "ǅ", "ǆ", "İ", "i", "\xff", "\ufffd", "商", " ", ""}
	rng := rand.New(rand.NewPCG(5, 6))
	word := func() string {
		var b strings.Builder
		for range rng.IntN(4) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	for range 50000 {
		a, b := word(), word()
		if got, want := SameLower(a, b), strings.ToLower(a) == strings.ToLower(b); got != want {
			t.Fatalf("sameLower(%q, %q) = %v, want %v", a, b, got, want)
		}
	}
}
