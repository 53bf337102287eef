package memory

import (
	"strings"
	"unicode"

	"github.com/toolstream/toolstream/internal/lang"
)

// Questions about time. "When did she go camping?" is answered by the
// turn that says when — "two weekends ago", "last Friday", "in May" —
// which shares the question's words no more than a turn that only
// mentions camping. In recall by meaning (Query.Matcher), a query that
// asks when (asksWhen) weighs a record that is about it and whose text
// says a time (saysWhen) timeWeight more. On LoCoMo (turns as episodes,
// development data) 0.3 and 0.6 were tried: recall_any@10 0.735 -> 0.740
// and 0.742, temporal questions 235 -> 245 and 246 of 321.
const timeWeight = 0.6

// Which questions ask about time is data/recall.txt's [time questions]:
// the phrases that ask it wherever they are said (askWhenAnywhere: "how
// long", "what year", 什么时候), and "when", which asks it only in a
// question that no other question word opens (askWhenOpeners): "How did
// you feel when you moved?" asks how, and its "when" names the time
// it means; weighing the records that say a time for it would rank
// "we moved last May" over "I felt lost for weeks".
var (
	askWhenAnywhere = wordList("time questions", "anywhere")
	askWhenWord     = wordSet("time questions", "when")
	askWhenOpeners  = wordSet("time questions", "openers")
)

// asksWhen reports whether query asks about time.
func asksWhen(query string) bool {
	q := strings.ToLower(query)
	words := strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' })
	padded := " " + strings.Join(words, " ") + " "
	for _, w := range askWhenAnywhere {
		if lang.IsCJK([]rune(w)[0]) {
			if strings.Contains(q, w) {
				return true
			}
		} else if strings.Contains(padded, " "+w+" ") {
			return true
		}
	}
	for _, w := range words {
		if askWhenOpeners[w] {
			return false // another question word came first: a "when" after it opens a clause
		}
		if askWhenWord[w] {
			return true
		}
	}
	return false
}

// timeWords are the English words that say a time, relative or absolute,
// all from the shared language data (internal/lang data/time.txt): the
// months (full names: "mar", "sat", "wed" are words of their own too),
// weekdays, relative days, and the section of time words (a span, an order
// in time, a part of the day, a season).
var timeWords = func() map[string]bool {
	m := map[string]bool{}
	d := lang.Default()
	for _, l := range d.Lines("time words") {
		for _, w := range l.Words {
			if !lang.IsCJK([]rune(w)[0]) {
				m[w] = true
			}
		}
	}
	for _, l := range d.Lines("months") {
		full := ""
		for _, w := range l.Words {
			if len(w) > len(full) {
				full = w
			}
		}
		m[full] = true
	}
	for _, sec := range []string{"weekdays", "relative days"} {
		for _, l := range d.Lines(sec) {
			for _, w := range l.Words {
				if !lang.IsCJK([]rune(w)[0]) && !strings.ContainsAny(w, "_ ") {
					m[w] = true
				}
			}
		}
	}
	return m
}()

// ambiguousTimeWords are time words that are words of their own too.
var ambiguousTimeWords = map[string]bool{"may": true}

// placers are the words before a month's name that make it one.
var placers = map[string]bool{"in": true, "on": true, "last": true, "next": true, "this": true, "since": true,
	"until": true, "early": true, "late": true, "mid": true, "of": true, "by": true}

// placed reports whether fs[i] stands beside a number or after a placer.
func placed(fs []string, i int) bool {
	digit := func(s string) bool { return s != "" && unicode.IsDigit(rune(s[0])) }
	return i > 0 && (placers[fs[i-1]] || digit(fs[i-1])) || i+1 < len(fs) && digit(fs[i+1])
}

// zhTimeWords say a time in Chinese: the Chinese words of the language
// data's time words, found inside a text.
var zhTimeWords = func() []string {
	var out []string
	for _, l := range lang.Default().Lines("time words") {
		for _, w := range l.Words {
			if lang.IsCJK([]rune(w)[0]) {
				out = append(out, w)
			}
		}
	}
	return out
}()

// saysWhen reports whether text says a time: a time word, or a year (a
// number of four digits from 1900 to 2099: "5000 steps" says none). A
// month's name that is also a word of its own ("may") says a time only
// beside a number or after a word that places it ("in May", "May 5",
// "last May"): "I may go" says none.
func saysWhen(text string) bool {
	fs := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, f := range fs {
		if timeWords[f] && (!ambiguousTimeWords[f] || placed(fs, i)) {
			return true
		}
		if len(f) == 4 && strings.IndexFunc(f, func(r rune) bool { return !unicode.IsDigit(r) }) < 0 && f >= "1900" && f <= "2099" {
			return true
		}
	}
	for _, w := range zhTimeWords {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// saidWhen reports, by hit, whether its record says a time (saysWhen) or
// another record of its message does. The writer splits a message into
// statements (MessageEvents), and the sentence that says when is often
// not the one that says what: "We went camping by the lake with the kids.
// That was two weekends ago." The time is that of what the message tells,
// so for a question that asks when, each of its records about the query
// is one that says it. A record with no message is its own source, and
// only its own text counts.
func saidWhen(hits []Hit) []bool {
	about := map[string]bool{} // the sources of the hits about the query: only theirs are read
	for i := range hits {
		if hits[i].Score > 0 {
			about[source(&hits[i].Record)] = true
		}
	}
	bySource := map[string]bool{}
	for i := range hits {
		if src := source(&hits[i].Record); about[src] && !bySource[src] && saysWhen(hits[i].Record.Text) {
			bySource[src] = true
		}
	}
	out := make([]bool, len(hits))
	for i := range hits {
		out[i] = bySource[source(&hits[i].Record)]
	}
	return out
}
