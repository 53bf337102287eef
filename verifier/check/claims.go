package check

import (
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Claim is one atomic statement of an answer. Start and End are rune
// offsets into the answer, [Start, End), and Text is exactly those runes.
type Claim struct {
	Text       string
	Start, End int
}

// SplitClaims splits an answer into atomic claims: lines and list items,
// then sentences, then clauses joined by a conjunction or a comma when both
// sides read as clauses of their own. Chinese clauses split at 。！？；，
// and at 但是, 而且, 并且 (和 only between two clauses). Decimals (3.5),
// thousands separators (1,234) and abbreviations (e.g., Dr., U.S.) do not
// split. Claims keep their sentence-final punctuation; separators and the
// conjunctions themselves belong to no claim. Claims with no letter, digit
// or ideograph are dropped.
func SplitClaims(answer string) []Claim {
	r := []rune(answer)
	var out []Claim
	lineStart := 0
	for i := 0; i <= len(r); i++ {
		if i == len(r) || r[i] == '\n' {
			out = splitLine(r, lineStart, i, out)
			lineStart = i + 1
		}
	}
	textsOfClaims(answer, r, out)
	return out
}

// textsOfClaims gives each claim of answer (runes r, claims in order, apart)
// its text: a slice of answer when it is valid UTF-8, else its runes as a
// string (as string(r) writes an invalid byte: U+FFFD).
func textsOfClaims(answer string, r []rune, out []Claim) {
	valid := utf8.ValidString(answer)
	ri, bi := 0, 0 // rune ri of answer starts at byte bi
	advance := func(to int) {
		for ; ri < to; ri++ {
			_, n := utf8.DecodeRuneInString(answer[bi:])
			bi += n
		}
	}
	for i := range out {
		c := &out[i]
		if !valid || c.Start < ri {
			c.Text = string(r[c.Start:c.End])
			continue
		}
		advance(c.Start)
		from := bi
		advance(c.End)
		c.Text = answer[from:bi]
	}
}

// splitLine splits one line [s, e) of r.
func splitLine(r []rune, s, e int, out []Claim) []Claim {
	s = skipSpace(r, s, e)
	s = skipListMarker(r, s, e)
	start := s
	for i := s; i < e; i++ {
		end, ok := sentenceEnd(r, i, e)
		if !ok {
			continue
		}
		out = splitClauses(r, start, end, out)
		start = end
		i = end - 1
	}
	return splitClauses(r, start, e, out)
}

func skipSpace(r []rune, s, e int) int {
	for s < e && unicode.IsSpace(r[s]) {
		s++
	}
	return s
}

// skipListMarker skips a bullet, a number or letter label ("1.", "2)",
// "a)", "（3）"), a markdown heading or quote marker at the start of a line.
func skipListMarker(r []rune, s, e int) int {
	if s >= e {
		return s
	}
	switch r[s] {
	case '-', '*', '•', '·', '+', '>', '#', '–', '—', '▪', '◦':
		i := s
		for i < e && (r[i] == r[s] || r[i] == '#') {
			i++
		}
		if i < e && unicode.IsSpace(r[i]) {
			return skipSpace(r, i, e)
		}
		return s
	case '(', '（':
		i := s + 1
		for i < e && unicode.IsDigit(r[i]) {
			i++
		}
		if i > s+1 && i < e && (r[i] == ')' || r[i] == '）') {
			return skipSpace(r, i+1, e)
		}
		return s
	}
	i := s
	for i < e && i-s < 3 && unicode.IsDigit(r[i]) {
		i++
	}
	if i == s && i+1 < e && unicode.IsLower(r[i]) && r[i+1] == ')' {
		i++
	}
	if i > s && i < e && (r[i] == '.' || r[i] == ')' || r[i] == '、' || r[i] == '．') {
		if i+1 == e || unicode.IsSpace(r[i+1]) || (r[i] != '.' && r[i] != '．') {
			// "3.5 kg" is a decimal, not a label: a label's dot is followed by space.
			return skipSpace(r, i+1, e)
		}
	}
	return s
}

// abbreviations never end a sentence ("e.g.", "Dr.", "U.S.").
var abbreviations = evidence.LangData.Set("claim abbreviations")

// sentenceEnd reports whether a sentence ends at r[i] and where the next
// one starts (after trailing quotes and brackets).
func sentenceEnd(r []rune, i, e int) (int, bool) {
	c := r[i]
	switch c {
	case '。', '！', '？', '；', ';', '!', '?', '…':
	case '.', '．':
		if !periodEnds(r, i, e) {
			return 0, false
		}
	default:
		return 0, false
	}
	j := i + 1
	for j < e && strings.ContainsRune(".!?。！？…", r[j]) {
		j++
	}
	for j < e && strings.ContainsRune("\"')]}”’）】」』", r[j]) {
		j++
	}
	if c == '!' || c == '?' || c == ';' || c == '…' {
		if j < e && !unicode.IsSpace(r[j]) && !lang.IsCJK(r[j]) {
			return 0, false
		}
	}
	return j, true
}

// periodEnds decides whether the ASCII or full-width period at r[i] ends a
// sentence.
func periodEnds(r []rune, i, e int) bool {
	if i+1 < e && unicode.IsDigit(r[i+1]) {
		return false // 3.5, v1.2
	}
	// What follows: end of line, or space then a capital, digit, ideograph
	// or quote. A lower-case word after the period means an abbreviation.
	j := i + 1
	for j < e && strings.ContainsRune("\"')]}”’）", r[j]) {
		j++
	}
	lowerNext := false
	if j < e {
		if !unicode.IsSpace(r[j]) && !lang.IsCJK(r[j]) {
			return false
		}
		k := skipSpace(r, j, e)
		lowerNext = k < e && unicode.IsLower(r[k])
	}
	// The word before the period.
	w := i
	for w > 0 && (unicode.IsLetter(r[w-1]) || r[w-1] == '.') && !lang.IsCJK(r[w-1]) {
		w--
	}
	if lowerNext {
		// A lower-case word after the period: an abbreviation ("approx.
		// 3"), unless the period ends a plain word of three letters or more
		// ("on test. w/o pretraining …").
		word := strings.ToLower(string(r[w:i]))
		if len([]rune(word)) < 3 || strings.Contains(word, ".") || abbreviations[word] {
			return false
		}
	}
	word := strings.ToLower(string(r[w:i]))
	if word == "" {
		return true
	}
	if abbreviations[word] || abbreviations[strings.Trim(word, ".")] {
		// "12 ms. Ours …", "5 min. Then …": a unit after a number ends
		// the sentence; "Ms. Lee" does not.
		if b := w - 1; b > 0 && r[b] == ' ' && unicode.IsDigit(r[b-1]) || w > 0 && unicode.IsDigit(r[w-1]) {
			if _, ok := evidence.UnitWords[word]; ok {
				return true
			}
		}
		switch word {
		case "etc":
			return true
		case "no", "min", "hr", "hrs", "qty", "pcs", "est", "approx":
			// "No. 5", "approx. 20": an abbreviation before a number.
			k := skipSpace(r, i+1, e)
			return k >= e || !unicode.IsDigit(r[k])
		}
		return false
	}
	// "J. R. Smith": an initial followed by another initial.
	if len([]rune(word)) == 1 && unicode.IsUpper(r[w]) {
		k := skipSpace(r, i+1, e)
		if k+1 < e && unicode.IsUpper(r[k]) && r[k+1] == '.' {
			return false
		}
		return initialEnds(r, w, i, k, e)
	}
	return true
}

// initialEnds decides the full stop at r[i] after the capital letter r[w]
// with the next word at r[k], as lang.Sentences reads an initial: a letter
// joined to what is before it ("8.7 mg/L.") ends the sentence; so does
// one before a sentence opener ("in Terminal C. The gate", "blood type O.
// She"), or, after a lower-case word, before a number ("grade B. 28
// students"); otherwise the letter is an initial of the name that follows
// ("written by J. Lind.", "Ursula K. Le Guin").
func initialEnds(r []rune, w, i, k, e int) bool {
	if k >= e {
		return true
	}
	if w > 0 && !unicode.IsSpace(r[w-1]) && !lang.IsCJK(r[w-1]) && !unicode.In(r[w-1], unicode.Ps, unicode.Pi) && r[w-1] != '"' {
		return true
	}
	p := w
	for p > 0 && unicode.IsSpace(r[p-1]) {
		p--
	}
	q := p
	for q > 0 && unicode.IsLetter(r[q-1]) && !lang.IsCJK(r[q-1]) {
		q--
	}
	if lang.OpensSentence(string(r[i+1:e]), 0) {
		return true
	}
	return q < p && unicode.IsLower(r[q]) && unicode.IsDigit(r[k])
}

// splitCand is a place where a sentence may split into two clauses.
type splitCand struct {
	pos, next int // the left clause ends at pos, the right starts at next
	kind      int
}

const (
	splitHard  = iota // always: ， and ;
	splitComma        // English comma: both sides must be clauses
	splitAnd          // and, 和: both sides must be clauses
	splitBut          // but, 但是: the right side must be a clause
)

// splitClauses splits the sentence [s, e) into clauses and appends them.
func splitClauses(r []rune, s, e int, out []Claim) []Claim {
	cands := clauseCandidates(r, s, e)
	start := s
	for k, c := range cands {
		if c.pos <= start {
			continue
		}
		rightEnd := e
		for _, n := range cands[k+1:] {
			if n.pos > c.next {
				rightEnd = n.pos
				break
			}
		}
		split := false
		switch c.kind {
		case splitHard:
			// "除了 HZ-302，其他房源都靠近地铁": the exception is part of the
			// claim that follows it.
			split = !zhExceptLead(r, start, c.pos)
		case splitComma, splitAnd:
			split = clauseLike(r, start, c.pos) && clauseLike(r, c.next, rightEnd)
		case splitBut:
			split = hasContent(r, start, c.pos) && clauseLike(r, c.next, rightEnd)
		}
		if split {
			out = appendClaim(r, start, c.pos, out)
			start = c.next
		}
	}
	return appendClaim(r, start, e, out)
}

// isBut reports the English conjunctions that join a contrast ("and" is
// the other that joins clauses).
func isBut(w string) bool {
	switch w {
	case "but", "while", "whereas", "although", "though", "however":
		return true
	}
	return false
}

// clauseCandidates lists the split points of [s, e) in order.
func clauseCandidates(r []rune, s, e int) []splitCand {
	var out []splitCand
	for i := s; i < e; i++ {
		c := r[i]
		switch {
		case c == '，' || c == ';' || c == '；':
			next := skipSpace(r, i+1, e)
			if n, _, ok := zhConjunctionAt(r, next, e); ok {
				next = skipSpace(r, n, e)
			}
			out = append(out, splitCand{i, next, splitHard})
		case c == ',' && !(i > s && i+1 < e && unicode.IsDigit(r[i-1]) && unicode.IsDigit(r[i+1])) && !yearAfterDay(r, s, i, e):
			next := skipSpace(r, i+1, e)
			kind := splitComma
			if w, n := wordAt(r, next, e); w == "and" || isBut(w) {
				next = skipSpace(r, n, e)
				if isBut(w) {
					kind = splitBut
				}
			}
			out = append(out, splitCand{i, next, kind})
			i = next - 1
		case c == ' ' && i+1 < e && unicode.IsLetter(r[i+1]):
			w, n := wordAt(r, i+1, e)
			if w == "but" && exceptBut(r, s, i) {
				continue // "all but one", "nothing but": an exception, not a clause
			}
			if (w == "and" && !betweenGuard(r, s, i)) || isBut(w) {
				kind := splitAnd
				if isBut(w) {
					kind = splitBut
				}
				if n < e && unicode.IsSpace(r[n]) {
					out = append(out, splitCand{i, skipSpace(r, n, e), kind})
					i = n - 1
				}
			}
		case lang.IsCJK(c):
			if n, but, ok := zhConjunctionAt(r, i, e); ok && i > s {
				if !but && (digitNear(r, i-1, s, -1) && digitNear(r, n, e, 1)) {
					continue
				}
				kind := splitAnd
				if but {
					kind = splitBut
				}
				out = append(out, splitCand{i, skipSpace(r, n, e), kind})
				i = n - 1
			}
		}
	}
	return out
}

// yearAfterDay reports whether the comma at r[i] is the one of a date
// between its day and its year ("February 12, 2026 rates …"): a digit
// before it and a year of four digits after it, which is no clause of its
// own.
func yearAfterDay(r []rune, s, i, e int) bool {
	if i == s || !unicode.IsDigit(r[i-1]) {
		return false
	}
	k := skipSpace(r, i+1, e)
	n := 0
	for k+n < e && unicode.IsDigit(r[k+n]) {
		n++
	}
	return n == 4 && (r[k] == '1' || r[k] == '2')
}

// exceptBut reports whether the "but" after r[i] follows a quantifier
// ("all but one", "everyone but Sam", "nothing but").
func exceptBut(r []rune, s, i int) bool {
	j := i
	for j > s && unicode.IsLetter(r[j-1]) {
		j--
	}
	switch strings.ToLower(string(r[j:i])) {
	case "all", "every", "everything", "everyone", "everybody", "none", "nothing", "nobody", "anyone", "anything":
		return true
	}
	return false
}

// zhExceptLead reports whether [s, e) is an exception lead-in (除了 X, 除 X
// 外, 除 X 以外) with no predicate of its own.
func zhExceptLead(r []rune, s, e int) bool {
	s = skipSpace(r, s, e)
	if s >= e || r[s] != '除' {
		return false
	}
	t := strings.TrimSpace(string(r[s:e]))
	return utf8.RuneCountInString(t) <= 24 && !strings.ContainsAny(t, "都是有为")
}

// wordAt returns the lower-case ASCII word starting at i and its end.
//
// Callers only ask whether the word is "and" or one isBut reports: any
// other word comes back as "" (with its end), which no caller tells apart.
func wordAt(r []rune, i, e int) (string, int) {
	j := i
	for j < e && j-i < 12 && (r[j] < 128 && unicode.IsLetter(r[j])) {
		j++
	}
	if j < e && j-i < 12 && unicode.IsLetter(r[j]) {
		return "", i
	}
	var buf [12]byte
	for k := i; k < j; k++ {
		c := byte(r[k])
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[k-i] = c
	}
	switch w := string(buf[:j-i]); w { // NB: compared without a string made
	case "and":
		return "and", j
	case "but", "while", "whereas", "although", "though", "however":
		return conjunctionOf(w), j
	}
	return "", j
}

// conjunctionOf returns isBut's word w as a constant (w is on the stack).
func conjunctionOf(w string) string {
	for _, c := range []string{"but", "while", "whereas", "although", "though", "however"} {
		if w == c {
			return c
		}
	}
	return ""
}

// betweenGuard reports a range in progress ("between 3 and 5").
func betweenGuard(r []rune, s, i int) bool {
	lo := max(s, i-24)
	t := strings.ToLower(string(r[lo:i]))
	return strings.Contains(t, "between ") || strings.Contains(t, "from ")
}

// digitNear reports whether the first non-space rune from i in direction
// dir (bounded by lim) is a digit.
func digitNear(r []rune, i, lim, dir int) bool {
	for ; i >= 0 && i < len(r) && (dir < 0 && i >= lim || dir > 0 && i < lim); i += dir {
		if r[i] == ' ' {
			continue
		}
		return unicode.IsDigit(r[i])
	}
	return false
}

// clauseVerbs mark an English clause.
var clauseVerbs = evidence.LangData.Set("clause verbs")

// clauseLike reports whether [s, e) reads as a clause of its own: it has
// a number, or a verb (English) or a predicate character (Chinese).
func clauseLike(r []rune, s, e int) bool {
	words, cjk, nums := 0, 0, 0
	verb := false
	for i := s; i < e; {
		c := r[i]
		switch {
		case unicode.IsDigit(c):
			// A number makes a clause ("costs $5", "3 到 5 天"), but not a
			// lone one: "December 31, 2024" stays whole.
			nums++
			for i < e && (unicode.IsDigit(r[i]) || r[i] == '.' || r[i] == ',') {
				i++
			}
		case lang.IsCJK(c):
			cjk++
			if strings.ContainsRune(zhPredicateRunes, c) {
				verb = true
			}
			if evidence.ZhNumeralRune(c) && i+1 < e && evidence.ZhMeasureRune(r[i+1]) {
				return true
			}
			i++
		case unicode.IsLetter(c) || c == '\'':
			j := i
			for j < e && (unicode.IsLetter(r[j]) || r[j] == '\'') && !lang.IsCJK(r[j]) {
				j++
			}
			w := strings.ToLower(string(r[i:j]))
			words++
			if clauseVerbs[w] || (len(w) > 4 && strings.HasSuffix(w, "ed")) || strings.HasSuffix(w, "n't") || strings.HasSuffix(w, "'s") {
				verb = true
			}
			i = j
		default:
			i++
		}
	}
	if nums > 0 && words+cjk+nums >= 2 {
		return true
	}
	return verb && (words >= 2 || cjk >= 2 || words+cjk >= 2)
}

// hasContent reports whether [s, e) has a letter, digit or ideograph.
func hasContent(r []rune, s, e int) bool {
	for i := s; i < e; i++ {
		if unicode.IsLetter(r[i]) || unicode.IsDigit(r[i]) {
			return true
		}
	}
	return false
}

// appendClaim trims [s, e) and appends it as a claim if it has content.
func appendClaim(r []rune, s, e int, out []Claim) []Claim {
	for s < e && (unicode.IsSpace(r[s]) || strings.ContainsRune(",，;；:：、-–—*", r[s])) {
		s++
	}
	for e > s && (unicode.IsSpace(r[e-1]) || strings.ContainsRune(",，;；:：、*", r[e-1])) {
		e--
	}
	if s >= e || !hasContent(r, s, e) {
		return out
	}
	return append(out, Claim{Start: s, End: e}) // Text: textsOfClaims
}
