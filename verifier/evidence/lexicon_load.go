package evidence

import (
	"github.com/toolstream/toolstream/internal/lang"

	"fmt"
	"slices"
	"strconv"
	"strings"
)

// lexicon is the vocabulary of internal/lang's lexicon.txt: what each
// English word or phrase and each Chinese word means.
type lexicon struct {
	concepts map[string]bool     // every concept name
	en       map[string]*lexInfo // English words and phrases ("out of stock")
	phrases  map[string][]phrase // first word -> phrases, longest first
	zh       map[string]*lexInfo
	zhMaxLen int // runes of the longest Chinese word
}

// phrase is an English lexicon entry of several words.
type phrase struct {
	words []string
	text  string // the words joined by spaces: its key in the lexicon
}

// mustLexicon reads the lexicon of the language data; one the verifier
// cannot read (a cue it does not know) is a bug caught by any test of the
// package.
func mustLexicon(d *lang.Data) *lexicon {
	lx, err := ParseLexicon(d)
	if err != nil {
		panic(err)
	}
	return lx
}

// ParseLexicon reads the lexicon sections of d (lang.Load has checked
// them against the schema). It refuses a cue the verifier does not know.
func ParseLexicon(d *lang.Data) (*lexicon, error) {
	lx := &lexicon{
		concepts: map[string]bool{},
		en:       map[string]*lexInfo{},
		phrases:  map[string][]phrase{},
		zh:       map[string]*lexInfo{},
		zhMaxLen: 1,
	}
	type line struct {
		no    int
		name  string
		words []string
	}
	sections := map[string][]line{}
	for _, sec := range []string{"concepts", "cues", "categories", "unit concepts"} {
		for _, l := range d.Lines(sec) {
			sections[sec] = append(sections[sec], line{no: l.No, name: l.Name, words: l.Words})
		}
	}
	for _, l := range sections["concepts"] {
		lx.concepts[l.name] = true
		for _, w := range l.words {
			li := lx.add(w)
			li.Concepts = append(li.Concepts, l.name)
		}
	}
	for _, l := range sections["cues"] {
		c, ok := cueNames[l.name]
		if !ok {
			return nil, fmt.Errorf("verifier: lexicon line %d: unknown cue %q", l.no, l.name)
		}
		for _, w := range l.words {
			lx.add(w).Cues |= c
		}
	}
	for _, l := range sections["categories"] {
		parts := strings.Split(l.name, "/")
		if len(parts) != 3 {
			return nil, fmt.Errorf("verifier: lexicon line %d: want class/value/rank", l.no)
		}
		rank, err := strconv.Atoi(parts[2])
		if err != nil {
			return nil, fmt.Errorf("verifier: lexicon line %d: rank: %v", l.no, err)
		}
		for _, w := range l.words {
			neg := strings.HasPrefix(w, "!")
			li := lx.add(strings.TrimPrefix(w, "!"))
			li.Cats = append(li.Cats, CatValue{Class: parts[0], Value: parts[1], rank: rank, Neg: neg})
		}
	}
	// Chinese unit words name what they measure (每公斤 is about kg).
	for w, u := range UnitWords {
		if r := []rune(w); len(r) >= 2 && lang.IsCJK(r[0]) {
			for _, c := range UnitConceptNames(u) {
				li := lx.add(w)
				li.Concepts = Dedupe(append(li.Concepts, c))
			}
		}
	}
	for _, l := range sections["unit concepts"] {
		for _, w := range l.words {
			li := lx.add(w)
			li.Concepts = append(li.Concepts, l.name)
		}
	}
	for k, ps := range lx.phrases {
		slices.SortStableFunc(ps, func(a, b phrase) int { return len(b.words) - len(a.words) })
		lx.phrases[k] = ps
	}
	return lx, nil
}

// add returns the entry of word ("_" read as a space), made on first use.
func (lx *lexicon) add(word string) *lexInfo {
	word = strings.ReplaceAll(word, "_", " ")
	if lang.IsCJK([]rune(word)[0]) {
		l := lx.zh[word]
		if l == nil {
			l = &lexInfo{}
			lx.zh[word] = l
		}
		lx.zhMaxLen = max(lx.zhMaxLen, len([]rune(word)))
		return l
	}
	l := lx.en[word]
	if l == nil {
		l = &lexInfo{}
		lx.en[word] = l
		if ws := strings.Fields(word); len(ws) > 1 {
			lx.phrases[ws[0]] = append(lx.phrases[ws[0]], phrase{words: ws, text: strings.Join(ws, " ")})
		}
	}
	return l
}
