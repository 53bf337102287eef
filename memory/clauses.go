package memory

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolstream/toolstream/internal/lang"
)

// A sentence of a message may hold several statements joined after a
// comma ("I'm learning Portuguese every evening, and my car's tyres should
// be at 35 psi"; 我的车每五千公里换一次机油，另外我最近在学吉他). Each is a
// statement of its own: read alone, kept as its own record, forgotten
// alone. The joiners and the speaker's words are data (data/statements.txt
// [clauses]); the rule is here, one for every joiner and language: a joiner
// right after a comma starts a new statement only when the speaker (my, I,
// 我, …) follows it. A joiner alone also joins the parts of one statement
// ("I love figs, plus dates", 我喜欢苹果，还有香蕉, 我每天跑步，并且游泳),
// and a part cut there would lose what it says of the part before. The
// speaker right after a comma starts a statement too ("My new flat is in
// Leeds, my door code is 4471"), when the part before has a subject of its
// own and opens with no subordinating word ("If I'm late, I call ahead" is
// one statement).

var (
	clauseJoiners       = wordList("clauses", "joiner")
	clauseSubjects      = wordList("clauses", "subject")
	clauseSubordinators = wordList("clauses", "subordinator")
	clauseContrasts     = wordList("clauses", "contrast")
)

// statementSentences splits text into sentences (lang.Sentences: initials,
// abbreviations and decimals end none) and each sentence at its clause
// joiners. Each part keeps its sentence's question mark and its offsets in
// text (the joiner and the comma before it are in no part).
func statementSentences(text string) []lang.Sentence {
	out, _ := statementParts(text)
	return out
}

// statementParts is statementSentences, and for each part whether it is a
// thing of the speaker's said without a subject after a comma (zhThingAt):
// its reader takes the speaker as its subject.
func statementParts(text string) ([]lang.Sentence, []bool) {
	var out []lang.Sentence
	var things []bool
	for _, s := range lang.Sentences(text) {
		ps, ts := splitClausesMarked(s)
		out, things = append(out, ps...), append(things, ts...)
	}
	return out, things
}

// splitClauses cuts one sentence at each comma followed by a joiner, or
// by the speaker after a clause of its own (ownClause), or, after a clause
// of the speaker's, by a Chinese clause stating another thing of theirs
// without a subject (我新家在文三路88号，单元门密码是6092: zhThingAt).
func splitClauses(s lang.Sentence) []lang.Sentence {
	out, _ := splitClausesMarked(s)
	return out
}

// splitClausesMarked is splitClauses, and for each part whether it was cut
// as a subjectless thing of the speaker's.
func splitClausesMarked(s lang.Sentence) ([]lang.Sentence, []bool) {
	var out []lang.Sentence
	var things []bool
	start := 0     // in s.Text
	thing := false // the part from start is a subjectless thing
	t := s.Text
	for i := 0; i < len(t); {
		r, n := utf8.DecodeRuneInString(t[i:])
		if r != ',' && r != '，' {
			i += n
			continue
		}
		after := i + n
		j := joinerAt(t, after)
		next := false
		switch {
		case j != 0:
		case subjectOpensAt(t, after) && ownClause(t[start:i]):
			j = -1 // the subject stays in the new part
		case contrastAt(t, after) > 0:
			j = contrastAt(t, after) // "…, but figs make me gag": the word of contrast dropped
		case zhTasteAt(t, after) && ownClause(t[start:i]):
			j = -1 // 我爱用钢笔，圆珠笔我用不惯
		case zhThingAt(t, after) && ownClause(t[:i]):
			j, next = -1, true
		}
		if j == 0 {
			i = after
			continue
		}
		if part := strings.TrimSpace(t[start:i]); part != "" {
			out = append(out, lang.Sentence{Text: part, Start: s.Start + start + strings.Index(t[start:i], part),
				End: s.Start + i, Question: s.Question})
			things = append(things, thing)
		}
		thing = next
		start = after + max(j, 0)
		for start < len(t) {
			r, n := utf8.DecodeRuneInString(t[start:])
			if !unicode.IsSpace(r) && r != ',' && r != '，' {
				break
			}
			start += n
		}
		i = start
	}
	if start == 0 {
		return []lang.Sentence{s}, []bool{false}
	}
	if part := strings.TrimSpace(t[start:]); part != "" {
		off := start + strings.Index(t[start:], part)
		out = append(out, lang.Sentence{Text: part, Start: s.Start + off, End: s.Start + off + len(part), Question: s.Question})
		things = append(things, thing)
	}
	return out, things
}

var (
	zhPlaceEnds = wordList("zh words", "place_end")
	zhNotThing  = wordList("zh words", "not_thing")
)

// zhThingAt reports whether t[i:] (after spaces) opens a Chinese clause
// that states a thing without a subject: zhThing reads it.
func zhThingAt(t string, i int) bool {
	c := strings.TrimLeftFunc(t[i:], unicode.IsSpace)
	if k := strings.IndexAny(c, ",，"); k >= 0 {
		c = c[:k]
	}
	_, _, ok := zhThing(c)
	return ok
}

// zhThing reads a Chinese clause "X是Y" or "X在<a place>" (the place ends
// in a word of place_end: 路, 号, 区, …) as the thing X and what or where
// it is, Y: X of one to six characters, ideographs, letters or digits, no
// word of not_thing (a time, a degree, a person: 现在是, 也是, 特别是) and
// no speaker of its own; Y not negated. 车位号是B2-117 is (车位号, B2-117);
// 是去年买的 and 今天在家 are nothing.
func zhThing(c string) (x, y string, ok bool) {
	c = strings.TrimRight(strings.TrimSpace(c), "。！!.；; ")
	i, cop := -1, ""
	for _, k := range []string{"是", "在"} {
		if j := strings.Index(c, k); j >= 0 && (i < 0 || j < i) {
			i, cop = j, k
		}
	}
	if i <= 0 {
		return "", "", false
	}
	x, y = c[:i], c[i+len(cop):]
	n := utf8.RuneCountInString(x)
	if n > 6 || y == "" || strings.HasPrefix(y, "不") || strings.HasPrefix(y, "没") ||
		strings.ContainsFunc(x, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) ||
		!lang.IsCJK([]rune(x)[0]) || strings.Contains(x, "我") || containsAny(c[:i+len(cop)], zhNotThing) {
		return "", "", false
	}
	if cop == "在" && !hasAnySuffix(y, zhPlaceEnds) {
		return "", "", false
	}
	return x, y, true
}

// contrastAt returns the length of the word of contrast (data: contrast)
// that opens t[i:] (after spaces), spaces before it included, when the
// clause after it, to its comma or its end, is a taste of a thing read
// alone (tasteClause); or 0.
func contrastAt(t string, i int) int {
	rest := strings.TrimLeftFunc(t[i:], unicode.IsSpace)
	lead := len(t[i:]) - len(rest)
	low := strings.ToLower(rest)
	n := 0 // the longest word of contrast: 可是, not 可
	for _, c := range clauseContrasts {
		n = max(n, phraseLen(low, c))
	}
	if n == 0 || !tasteClause(rest[n:]) {
		return 0
	}
	return lead + n
}

// zhTasteAt reports whether t[i:] opens a Chinese clause that is a taste
// of a thing said first (zhTopicTaste: 圆珠笔我用不惯, 细面就不要了).
func zhTasteAt(t string, i int) bool {
	c := strings.TrimLeftFunc(t[i:], unicode.IsSpace)
	if c == "" || !lang.IsCJK([]rune(c)[0]) {
		return false
	}
	return tasteClause(c)
}

// tasteClause reports whether c, to its first comma, says how a thing
// other than the speaker tastes to them: what it does to them ("figs make
// me gag", "dairy upsets my stomach": [effects] distaste, harm) or, in
// Chinese, the thing said first and then liked or declined
// (zhTopicTaste).
func tasteClause(c string) bool {
	c = strings.TrimLeftFunc(c, func(r rune) bool { return unicode.IsSpace(r) || r == ',' || r == '，' })
	if k := strings.IndexAny(c, ",，"); k >= 0 {
		c = c[:k]
	}
	c = strings.TrimRight(strings.TrimSpace(c), "。！!.；;？?的啦呢吧啊呀")
	if c == "" || subjectOpensAt(c, 0) {
		return false
	}
	if hasHan(c) {
		_, ok := zhTopicTaste(c)
		return ok
	}
	ws := words(c)
	_, harm := matchHarmEN(ws)
	_, distaste := matchDistasteEN(ws)
	return harm || distaste
}

// joinerAt returns the length of the joiner that opens t[i:] (after spaces),
// spaces before it included, when the speaker follows it (after spaces and
// a comma), or 0 if none does.
func joinerAt(t string, i int) int {
	rest := strings.TrimLeftFunc(t[i:], unicode.IsSpace)
	lead := len(t[i:]) - len(rest)
	low := strings.ToLower(rest)
	for _, j := range clauseJoiners {
		n := phraseLen(low, j)
		if n == 0 {
			continue
		}
		next := strings.TrimLeftFunc(low[n:], func(r rune) bool { return unicode.IsSpace(r) || r == ',' || r == '，' })
		if subjectOpensAt(next, 0) {
			return lead + n
		}
	}
	return 0
}

// subjectOpensAt reports whether the speaker (data: subject) opens t[i:]
// after spaces.
func subjectOpensAt(t string, i int) bool {
	low := strings.ToLower(strings.ReplaceAll(strings.TrimLeftFunc(t[i:], unicode.IsSpace), "’", "'"))
	for _, w := range clauseSubjects {
		if phraseLen(low, w) > 0 {
			return true
		}
	}
	return false
}

// ownClause reports whether part, the text before a comma, is a clause a
// new statement may follow: it holds a subject of its own (a word of
// subject; in Chinese, the speaker anywhere in it) and opens with no
// subordinating word (if, when, 如果, …), whose clause the next part
// completes.
func ownClause(part string) bool {
	low := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(part), "’", "'"))
	for _, w := range clauseSubordinators {
		if phraseLen(low, w) > 0 {
			return false
		}
	}
	prev := ' '
	for k, r := range low {
		// a word starts at k, or a Chinese character (words are not spaced)
		start := !(unicode.IsLetter(prev) || unicode.IsDigit(prev) || prev == '\'') || lang.IsCJK(r)
		prev = r
		if !start {
			continue
		}
		for _, w := range clauseSubjects {
			if phraseLen(low[k:], w) > 0 {
				return true
			}
		}
	}
	return false
}

// phraseLen returns the length of phrase p (words joined by one space, or
// Chinese) at the start of s when it ends there as a word, else 0.
func phraseLen(s, p string) int {
	if !strings.HasPrefix(s, p) {
		return 0
	}
	if r, _ := utf8.DecodeRuneInString(p); lang.IsCJK(r) {
		return len(p)
	}
	if len(s) > len(p) {
		if r, _ := utf8.DecodeRuneInString(s[len(p):]); unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' {
			return 0
		}
	}
	return len(p)
}
