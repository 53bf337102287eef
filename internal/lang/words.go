package lang

import (
	"strings"
	"unicode"
)

// Words: the normal form of text and keys that the verifier and memory
// compare in, and the crude English lemma both look words up by.

// NormRune folds full-width ASCII to ASCII and upper to lower case; it
// never changes the number of runes, so offsets survive normalisation.
func NormRune(c rune) rune {
	switch {
	case c >= 0xFF01 && c <= 0xFF5E:
		c -= 0xFEE0
	case c == 0x3000:
		c = ' '
	case c == '−' || c == '–' || c == '—':
		c = '-'
	case c == '’' || c == '‘':
		c = '\''
	}
	return unicode.ToLower(c)
}

// Normalize returns the normalised runes of s (same length as []rune(s)).
func Normalize(s string) []rune {
	r := []rune(s)
	for i, c := range r {
		r[i] = NormRune(c)
	}
	return r
}

// KeyParts splits a key into lower-case parts: snake, kebab, camel case,
// digits, and the characters %, ℃.
func KeyParts(key string) []string {
	var parts []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			parts = append(parts, string(cur))
			cur = cur[:0]
		}
	}
	r := []rune(key)
	for i, c := range r {
		c = NormRune(c)
		switch {
		case c == '%' || c == '℃' || c == '$' || c == '€' || c == '£' || c == '¥':
			flush()
			parts = append(parts, string(c))
		case IsCJK(c):
			cur = append(cur, c)
		case c < 128 && (c >= 'a' && c <= 'z' || c >= '0' && c <= '9'):
			if i > 0 && r[i] >= 'A' && r[i] <= 'Z' && r[i-1] >= 'a' && r[i-1] <= 'z' {
				flush()
			}
			if len(cur) > 0 && IsCJK(cur[len(cur)-1]) {
				flush()
			}
			cur = append(cur, c)
		default:
			flush()
		}
	}
	flush()
	return parts
}

// Stem strips English inflections so that "ships", "shipped" and
// "shipping" meet "ship" (lexicon words are looked up first).
func Stem(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 4 && (strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "xes")):
		return w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:n-1]
	case w == "daily":
		return "day"
	case n > 5 && strings.HasSuffix(w, "ly") && !strings.HasSuffix(w, "ily"):
		return w[:n-2]
	case n > 5 && strings.HasSuffix(w, "ing"):
		return undouble(w[:n-3])
	case n > 4 && strings.HasSuffix(w, "ed"):
		return undouble(w[:n-2])
	}
	return w
}

func undouble(w string) string {
	if n := len(w); n > 2 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// TruncStem cuts an unknown word's stem to six letters, a crude lemma that
// lets accurate meet accuracy and operating meet operation.
func TruncStem(s string) string {
	if len(s) > 6 && s[0] < 128 {
		return s[:6]
	}
	return s
}

func IsAllDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
