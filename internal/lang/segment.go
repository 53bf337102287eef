package lang

import (
	"slices"
	"unicode/utf8"
)

// Segmentation of text written without spaces (IsCJK): a Lexicon's words
// are read out of a run of CJK characters by forward longest match, the
// reading a dictionary gives when it holds the longer word (火锅店 is read
// as 火锅 and 店 only if 火锅店 is no word of it; 普洱茶 is 普洱茶 when both
// 普洱 and 普洱茶 are). What the lexicon does not hold is stepped over one
// character at a time.

// Lexicon is a set of words for Segment. It is built once and never
// changed, so it is safe to share.
type Lexicon struct {
	words map[string]bool
	max   int // the longest word's runes
}

// NewLexicon returns the lexicon of words (empty ones dropped).
func NewLexicon(words []string) *Lexicon {
	l := &Lexicon{words: map[string]bool{}}
	for _, w := range words {
		if n := utf8.RuneCountInString(w); n > 0 {
			l.words[w] = true
			l.max = max(l.max, n)
		}
	}
	return l
}

// Longest returns the longest word of l that starts at r[i] and its
// length in runes, or "", 0.
func (l *Lexicon) Longest(r []rune, i int) (string, int) {
	for n := min(l.max, len(r)-i); n > 0; n-- {
		if w := string(r[i : i+n]); l.words[w] {
			return w, n
		}
	}
	return "", 0
}

// Match is a word of a Lexicon found in text: the word and the rune
// offset it starts at.
type Match struct {
	Word  string
	Start int // in runes
}

// Segment returns the words of l in the CJK runs of r, in text order, by
// forward longest match: at each CJK character the longest word starting
// there is taken and reading goes on after it; a character that starts
// none is stepped over. Words are matched only inside one run (a word of
// l holding a non-CJK character is never found).
func (l *Lexicon) Segment(r []rune) []Match {
	var out []Match
	for i := 0; i < len(r); {
		if !IsCJK(r[i]) {
			i++
			continue
		}
		j := i
		for j < len(r) && IsCJK(r[j]) {
			j++
		}
		run := r[:j]
		for i < j {
			if w, n := l.Longest(run, i); n > 0 {
				out = append(out, Match{Word: w, Start: i})
				i += n
				continue
			}
			i++
		}
	}
	return slices.Clip(out)
}
