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
// and a part cut there would lose what it says of the part before.

var (
	clauseJoiners  = wordList("clauses", "joiner")
	clauseSubjects = wordList("clauses", "subject")
)

// statementSentences splits text into sentences (lang.Sentences: initials,
// abbreviations and decimals end none) and each sentence at its clause
// joiners. Each part keeps its sentence's question mark and its offsets in
// text (the joiner and the comma before it are in no part).
func statementSentences(text string) []lang.Sentence {
	var out []lang.Sentence
	for _, s := range lang.Sentences(text) {
		out = append(out, splitClauses(s)...)
	}
	return out
}

// splitClauses cuts one sentence at each comma followed by a joiner.
func splitClauses(s lang.Sentence) []lang.Sentence {
	var out []lang.Sentence
	start := 0 // in s.Text
	t := s.Text
	for i := 0; i < len(t); {
		r, n := utf8.DecodeRuneInString(t[i:])
		if r != ',' && r != '，' {
			i += n
			continue
		}
		after := i + n
		j := joinerAt(t, after)
		if j == 0 {
			i = after
			continue
		}
		if part := strings.TrimSpace(t[start:i]); part != "" {
			out = append(out, lang.Sentence{Text: part, Start: s.Start + start + strings.Index(t[start:i], part),
				End: s.Start + i, Question: s.Question})
		}
		start = after + j
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
		return []lang.Sentence{s}
	}
	if part := strings.TrimSpace(t[start:]); part != "" {
		off := start + strings.Index(t[start:], part)
		out = append(out, lang.Sentence{Text: part, Start: s.Start + off, End: s.Start + off + len(part), Question: s.Question})
	}
	return out
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
		next = strings.ReplaceAll(next, "’", "'")
		for _, s := range clauseSubjects {
			if phraseLen(next, s) > 0 {
				return lead + n
			}
		}
	}
	return 0
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
