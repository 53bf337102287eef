package use

import (
	"strings"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"
)

// separator is SentencePiece's word boundary: the tokeniser writes it for
// every space and before the text.
const separator = '\u2581'

// reservedPieces are the first ids of the vocabulary (unknown, <s>, </s>
// and three extra ids), which no text is split into: id 0 stands for any
// character the vocabulary lacks.
const reservedPieces = 6

// piece is one entry of the vocabulary.
type piece struct {
	text  string
	score float64 // log probability; the Viterbi maximises their sum
	units int     // the text's length in UTF-16 code units (see encode)
}

// tokenizer splits a text into the vocabulary's pieces as the TFJS
// Universal Sentence Encoder's tokenizer does (@energetic-ai/embeddings
// 0.2.0, lib/tokenizer.ts, after @tensorflow-models/universal-sentence-
// encoder): NFKC, spaces to separators, then the most likely split by
// Viterbi over the pieces' scores, with that code's tie breaking and
// back-tracking, so that the ids are the reference's own.
type tokenizer struct {
	pieces []piece
	// trie: node 0 is the root; a node's child by rune is next[node<<21|rune]
	next map[uint64]int32
	end  []int32 // per node: the id of the piece ending there, or -1
}

func newTokenizer(pieces []piece) *tokenizer {
	t := &tokenizer{pieces: pieces, next: map[uint64]int32{}, end: []int32{-1}}
	for id := reservedPieces; id < len(pieces); id++ {
		node := int32(0)
		for _, r := range pieces[id].text {
			k := uint64(node)<<21 | uint64(r)
			child, ok := t.next[k]
			if !ok {
				child = int32(len(t.end))
				t.end = append(t.end, -1)
				t.next[k] = child
			}
			node = child
		}
		if node != 0 {
			t.end[node] = int32(id) // a later duplicate wins, as in the JS trie
		}
	}
	return t
}

// edge is a piece of the lattice: its id and its length in runes.
type edge struct {
	id, runes int
}

// encode returns the ids of text's pieces. An empty text has none.
//
// NB: three quirks of the reference are kept on purpose, because they
// decide ids: a position's best score of exactly 0 counts as "not yet
// reached" (so a later candidate always replaces it); of equal scores the
// later candidate wins; and back-tracking steps back by a piece's length
// in UTF-16 code units (JavaScript's string length) while the lattice
// counts code points. No piece holds a character outside the Basic
// Multilingual Plane, so the two agree but for the unknown piece, whose
// text (U+FFFD) is one unit long whatever character it stands for.
func (t *tokenizer) encode(text string) []int {
	s := norm.NFKC.String(text)
	if s == "" {
		return nil
	}
	s = string(separator) + strings.ReplaceAll(s, " ", string(separator))
	syms := []rune(s)
	n := len(syms)
	// ending[e] are the pieces that end at e, by start ascending.
	ending := make([][]edge, n+1)
	for i := 0; i < n; i++ {
		found := false
		node := int32(0)
		for j := i; j < n; j++ {
			child, ok := t.next[uint64(node)<<21|uint64(syms[j])]
			if !ok {
				break
			}
			node = child
			if id := t.end[node]; id >= 0 {
				ending[j+1] = append(ending[j+1], edge{int(id), j + 1 - i})
				found = true
			}
		}
		if !found {
			ending[i+1] = append(ending[i+1], edge{0, 1}) // unknown, score 0
		}
	}
	best := make([]float64, n+1)
	words := make([]int, n+1)
	for e := 0; e <= n; e++ {
		// the JS walks starts in ascending order: ending[e] was filled so
		for _, ed := range ending[e] {
			score := best[e-ed.runes]
			if ed.id != 0 {
				score += t.pieces[ed.id].score
			}
			if best[e] == 0 || score >= best[e] {
				best[e] = score
				words[e] = ed.id
			}
		}
	}
	var rev []int
	for it := n; it > 0; {
		id := words[it]
		rev = append(rev, id)
		it -= t.pieces[id].units
	}
	out := make([]int, 0, len(rev))
	prevUnk := false
	for i := len(rev) - 1; i >= 0; i-- {
		// the JS merges runs of unknowns while walking backwards; a run
		// keeps one id 0 either way
		id := rev[i]
		if !(prevUnk && id == 0) {
			out = append(out, id)
		}
		prevUnk = id == 0
	}
	return out
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
