package lang

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentence is one sentence of a text.
type Sentence struct {
	Text       string // trimmed of surrounding space, its closing marks included
	Start, End int    // Text is text[Start:End]
	Question   bool   // it ends with a question mark (? or ？)
}

// Sentences cuts text into sentences. A sentence ends at 。！？； (with the
// closing quotes and brackets after them), at ! ? ; and a line break, and
// at a full stop followed by space, the text's end or an ideograph — but
// not at the full stop of:
//
//   - a number (3.5, v1.2) or a word with dots inside (example.com), which
//     space does not follow;
//   - a title or a Latin abbreviation (Dr. Li, e.g. apples, vs. them);
//   - a numbering abbreviation before a number (No. 5, p. 12);
//   - an initial (Ursula K. Le Guin, J. R. R. Tolkien, E. coli), unless a
//     lower-case word comes before it and a sentence opener after it
//     ("vitamin C. It helps"); a letter joined to what is before it is no
//     initial ("8.7 mg/L. E. coli was found" is two sentences);
//   - a terminal abbreviation (etc., Inc., a.m., U.S.) or an ellipsis,
//     unless a sentence opener or an ideograph follows.
//
// The abbreviations and openers are data (sentences.txt). Empty sentences
// are dropped; text without any end is one sentence. Pure and safe for
// concurrent use.
func Sentences(text string) []Sentence {
	var out []Sentence
	start := 0
	emit := func(end int, question bool) {
		s, e := start, end
		for s < e {
			r, n := utf8.DecodeRuneInString(text[s:])
			if !unicode.IsSpace(r) {
				break
			}
			s += n
		}
		for e > s {
			r, n := utf8.DecodeLastRuneInString(text[:e])
			if !unicode.IsSpace(r) {
				break
			}
			e -= n
		}
		if e > s {
			out = append(out, Sentence{Text: text[s:e], Start: s, End: e, Question: question})
		}
		start = end
	}
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n':
			emit(i, false)
			i += n
			start = i
			continue
		case r == '。' || r == '！' || r == '？' || r == '；' || r == '!' || r == '?' || r == ';' || r == '…':
			end, q := endRun(text, i)
			if (r == '!' || r == '?' || r == ';' || r == '…') && !endsHere(text, end) {
				i = end // "Yahoo!Mail", "1;2"
				continue
			}
			if r == '…' && !opensSentence(text, end) {
				i = end
				continue
			}
			emit(end, q)
			i = end
			continue
		case r == '.':
			end, q := endRun(text, i)
			if !endsHere(text, end) || !fullStop(text, i, end) {
				i = end
				continue
			}
			emit(end, q)
			i = end
			continue
		}
		i += n
	}
	emit(len(text), false)
	return out
}

// endRun returns the end of the run of end marks and closing quotes that
// starts at i, and whether a question mark is among them.
func endRun(text string, i int) (int, bool) {
	q := false
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch r {
		case '?', '？':
			q = true
		case '.', '!', '！', '。', ';', '；', '…', '"', '\'', '”', '’', '」', '』', ')', '）', '》', ']':
		default:
			return i, q
		}
		i += n
	}
	return i, q
}

// endsHere reports whether an end mark whose run ends at end can end a
// sentence: the text ends there, or space or an ideograph follows.
func endsHere(text string, end int) bool {
	if end >= len(text) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(text[end:])
	return unicode.IsSpace(r) || IsCJK(r)
}

// fullStop reports whether the full stop at i (its run ending at end, space
// or the text's end after it) ends a sentence.
func fullStop(text string, i, end int) bool {
	if strings.HasPrefix(text[i:end], "..") {
		return opensSentence(text, end) // an ellipsis
	}
	if strings.ContainsAny(text[i:end], "!?！？") {
		return true
	}
	w, before := wordBefore(text, i)
	if w == "" || unicode.IsDigit(rune(w[0])) {
		return true // "it costs 3.5."
	}
	low := strings.ToLower(w)
	switch {
	case sentenceData.title[low]:
		return false
	case sentenceData.numbered[low] && (digitAfter(text, end) || !isInitial(w)):
		// "p. 12" is a page; "P." before a name is an initial (M. P. Shah)
		return !digitAfter(text, end)
	case sentenceData.terminal[low] || strings.Contains(w, "."):
		return opensSentence(text, end)
	case utf8.RuneCountInString(w) == 1 && unicode.IsUpper(rune(w[0])) && w != "I":
		// A letter joined to what is before it ("8.7 mg/L.", "Plan-B.") is
		// the end of a unit or a code, not an initial. An ideograph, an
		// opening bracket or quote before it joins nothing: Chinese puts
		// no space before a Latin name ("作家是J. K. Rowling").
		if r, _ := utf8.DecodeLastRuneInString(text[:before]); before > 0 && !unicode.IsSpace(r) && !IsCJK(r) &&
			!unicode.In(r, unicode.Ps, unicode.Pi) && r != '.' && r != '"' {
			return true
		}
		// an initial: it ends a sentence only after a lower-case word and
		// before an opener ("vitamin C. It helps")
		if p, _ := wordBefore(text, len(strings.TrimRightFunc(text[:before], unicode.IsSpace))); p != "" && unicode.IsLower([]rune(p)[0]) {
			return opensSentence(text, end)
		}
		return false
	}
	return true
}

// isInitial reports whether w is one capital letter, as an initial is
// written (not "I").
func isInitial(w string) bool {
	r, n := utf8.DecodeRuneInString(w)
	return n == len(w) && unicode.IsUpper(r) && w != "I"
}

// wordBefore returns the word that ends at i (letters, digits, apostrophes
// and inner dots) and where it starts.
func wordBefore(text string, i int) (string, int) {
	j := i
	for j > 0 {
		r, n := utf8.DecodeLastRuneInString(text[:j])
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '.' && j-n > 0 && j != i) || IsCJK(r) {
			break
		}
		j -= n
	}
	w := strings.TrimLeft(text[j:i], ".")
	return w, i - len(w)
}

// digitAfter reports whether the first word after end starts with a digit.
func digitAfter(text string, end int) bool {
	rest := strings.TrimLeftFunc(text[end:], unicode.IsSpace)
	r, _ := utf8.DecodeRuneInString(rest)
	return unicode.IsDigit(r) || r == '#'
}

// OpensSentence reports whether what follows byte offset end of text opens
// a sentence: an ideograph, the text's end, or an opener of
// data/sentences.txt written with a capital (or "i"). Splitters that read a
// full stop after an initial or an abbreviation ask it, as Sentences does.
func OpensSentence(text string, end int) bool { return opensSentence(text, end) }

// opensSentence reports whether what follows end opens a sentence: an
// ideograph, the text's end, or an opener written with a capital (or "i").
func opensSentence(text string, end int) bool {
	rest := strings.TrimLeftFunc(text[end:], func(r rune) bool {
		return unicode.IsSpace(r) || r == '"' || r == '“' || r == '\'' || r == '‘' || r == '(' || r == '（'
	})
	if rest == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	if IsCJK(r) {
		return true
	}
	k := strings.IndexFunc(rest, func(r rune) bool { return !(unicode.IsLetter(r) || r == '\'' || r == '’') })
	if k < 0 {
		k = len(rest)
	}
	w := rest[:k]
	if w == "" || !unicode.IsUpper(r) && w != "i" && !strings.HasPrefix(w, "i'") {
		return false
	}
	return sentenceData.opener[strings.ToLower(strings.ReplaceAll(w, "’", "'"))]
}

// sentenceTables are the word sets of data/sentences.txt.
type sentenceTables struct {
	title, numbered, terminal, opener map[string]bool
}

var sentenceData = newSentenceTables(Default())

// newSentenceTables reads the abbreviations and openers of d (Load has
// checked them: lower case, no final full stop, known names).
func newSentenceTables(d *Data) sentenceTables {
	set := func(section, name string) map[string]bool {
		m := map[string]bool{}
		for _, w := range d.Words(section, name) {
			m[w] = true
		}
		return m
	}
	return sentenceTables{title: set("abbreviations", "title"), numbered: set("abbreviations", "numbered"),
		terminal: set("abbreviations", "terminal"), opener: set("openers", "opener")}
}
