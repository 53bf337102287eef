package check

import (
	"strings"
	"testing"
)

// TestFoldKeyAgreesWithEqualFold: ownNamers finds a name's leaves by
// foldKey where it compared them with strings.EqualFold, so the two must
// agree on every pair, including runes whose case orbit has three members
// (k, K and the Kelvin sign; s, S and ſ; σ, ς and Σ) and invalid bytes.
func TestFoldKeyAgreesWithEqualFold(t *testing.T) {
	words := []string{
		"", "a", "A", "oslo", "OSLO", "Oslo", "osl0", "k", "K", "\u212a", "kelvin", "\u212aelvin",
		"s", "S", "\u017f", "straße", "STRASSE", "STRAßE", "σ", "ς", "Σ", "ΟΔΥΣΣΕΥΣ", "οδυσσευς",
		"İstanbul", "istanbul", "ıstanbul", "ǅ", "ǆ", "Ǆ", "北京", "北京市", "\xff", "\xfe", "\ufffd",
		"a\xffb", "A\xfeB", "T-North", "t-north", "T–North", "ﬁ", "fi",
	}
	for _, a := range words {
		for _, b := range words {
			if got, want := foldKey(a) == foldKey(b), strings.EqualFold(a, b); got != want {
				t.Errorf("%q, %q: foldKey equal %v, EqualFold %v", a, b, got, want)
			}
		}
	}
}
