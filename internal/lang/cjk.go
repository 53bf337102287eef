package lang

import "unicode"

// IsCJK reports whether r is written without spaces between words: a Han,
// Hiragana, Katakana or Hangul character, or the katakana prolonged sound
// mark (ー, whose script is Common).
func IsCJK(r rune) bool {
	if r < 0x2E80 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r == 'ー'
}
