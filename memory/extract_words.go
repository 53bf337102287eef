package memory

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/toolstream/toolstream/internal/lang"
)

// memData is memory's language data (data/*.txt), read once with lang.Load:
// the extractor's word tables (words.txt) and the cue words of plain
// statements (statements.txt). It is embedded, so malformed data is a bug
// every test of the package catches: loading panics.
var memData = mustMemData()

func mustMemData() *lang.Data {
	sub, err := fs.Sub(cueFiles, "data")
	if err != nil {
		panic(err)
	}
	d, err := lang.Load(sub)
	if err != nil {
		panic(err)
	}
	return d
}

// wordSet is the set of the words under name in section.
func wordSet(section, name string) map[string]bool {
	ws := memData.Words(section, name)
	if len(ws) == 0 {
		panic(fmt.Sprintf("memory: data: no words under %s in [%s]", name, section))
	}
	return set(ws...)
}

// wordList is the words under name in section, in their order (longest
// first where the data says so). Like wordSet it panics when there are
// none: a name misspelt in Go or dropped from the data is a bug every test
// of the package catches, not a reading that silently finds nothing.
func wordList(section, name string) []string {
	ws := memData.Words(section, name)
	if len(ws) == 0 {
		panic(fmt.Sprintf("memory: data: no words under %s in [%s]", name, section))
	}
	return ws
}

// wordMap maps each name of section to its words (contractions: i'm = i am).
func wordMap(section string) map[string][]string {
	m := map[string][]string{}
	for _, l := range memData.Lines(section) {
		m[l.Name] = append(m[l.Name], l.Words...)
	}
	return m
}

// sportsOf maps a sport's verb to its name: run → running.
func sportsOf() map[string]string {
	m := map[string]string{}
	for _, l := range memData.Lines("sports") {
		for _, w := range l.Words {
			m[w] = l.Name
		}
	}
	return m
}

// boundLength reads a bound's name: day, week, month, or a number of them
// (3day).
func boundLength(l lang.Line) int64 {
	n, unit := 1, l.Name
	if i := strings.IndexFunc(l.Name, func(r rune) bool { return r < '0' || r > '9' }); i > 0 {
		n, _ = strconv.Atoi(l.Name[:i])
		unit = l.Name[i:]
	}
	switch unit {
	case "day":
		return int64(n) * day
	case "week":
		return int64(n) * week
	case "month":
		return int64(n) * month
	}
	panic(fmt.Sprintf("memory: data: %s:%d: bound %q is not day, week, month or a number of them", l.File, l.No, l.Name))
}

// boundsOf reads the English bounds, in file order.
func boundsOf(section string) []struct {
	p   []string
	ttl int64
} {
	var out []struct {
		p   []string
		ttl int64
	}
	for _, l := range memData.Lines(section) {
		for _, w := range l.Words {
			out = append(out, struct {
				p   []string
				ttl int64
			}{strings.Fields(w), boundLength(l)})
		}
	}
	return out
}

// zhBoundsOf reads the Chinese bounds, in file order.
func zhBoundsOf() []struct {
	w   string
	ttl int64
} {
	var out []struct {
		w   string
		ttl int64
	}
	for _, l := range memData.Lines("zh bounds") {
		for _, w := range l.Words {
			out = append(out, struct {
				w   string
				ttl int64
			}{w, boundLength(l)})
		}
	}
	return out
}

// zhLexiconOf reads the Chinese lexicon, in file order: subject/english =
// chinese words.
func zhLexiconOf() []zhEntry {
	var out []zhEntry
	for _, l := range memData.Lines("zh lexicon") {
		sub, en, ok := strings.Cut(l.Name, "/")
		if !ok || sub == "" || en == "" {
			panic(fmt.Sprintf("memory: data: %s:%d: want subject/attribute", l.File, l.No))
		}
		for _, w := range l.Words {
			out = append(out, zhEntry{zh: w, en: strings.ReplaceAll(en, "_", " "), subject: sub})
		}
	}
	return out
}

// zhPatternsOf reads the Chinese verb phrases, in file order:
// kind/polarity/hint = prefixes (hint - for none).
func zhPatternsOf() []zhPattern {
	var out []zhPattern
	for _, l := range memData.Lines("zh patterns") {
		parts := strings.Split(l.Name, "/")
		if len(parts) != 3 || !validKind(Kind(parts[0])) || parts[1] != string(Positive) && parts[1] != string(Negative) {
			panic(fmt.Sprintf("memory: data: %s:%d: want kind/polarity/hint", l.File, l.No))
		}
		hint := parts[2]
		if hint == "-" {
			hint = ""
		}
		for _, w := range l.Words {
			out = append(out, zhPattern{prefix: w, kind: Kind(parts[0]), polarity: Polarity(parts[1]), hint: hint})
		}
	}
	return out
}

func validKind(k Kind) bool { return k == KindPreference || k == KindConstraint || k == KindFact }
