package memory

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolstream/toolstream/events"
)

// A thing of the user's has several properties, each a slot of its own:
// "my sofa is from IKEA" (my/sofa from), "my sofa is 210 cm wide" (my/sofa
// width), "my bike is blue" (my/bike colour), beside what the thing is
// ("my bike is a Trek": my/bike). A newer value of one property supersedes
// that property only. The properties and the words that say them are data
// (data/statements.txt [properties]); so are the user's own measures said
// after 我 without 的 (我身高一米六八: my/身高, 我家三口人: my/家), and "I'm
// 1.82 m tall" is my/height.

// selfLine names the line of [properties] that lists the user's own
// measures, not a property.
const selfLine = "self"

var propertyWord, zhSelf = loadProperties()

func loadProperties() (map[string]string, []string) {
	m := map[string]string{}
	var self []string
	for _, l := range memData.Lines("properties") {
		if l.Name == selfLine {
			self = append(self, l.Words...)
			continue
		}
		for _, w := range l.Words {
			m[strings.ToLower(w)] = l.Name
		}
	}
	return m, self
}

// propertyEN names the property that rest, what follows "my <thing> is",
// says, or "" when it says what the thing is: "from IKEA" (from), "blue"
// (colour), "210 cm wide" (width: a number, its unit and an adjective).
func propertyEN(rest []word) string {
	switch {
	case len(rest) == 0:
		return ""
	case len(rest) >= 2 && rest[0].low == "from" && isCapital(rest[1].orig):
		return "from"
	case len(rest) <= 2 && propertyWord[rest[len(rest)-1].low] == "colour":
		return "colour" // "blue", "dark green"
	case len(rest) >= 3 && isNumber(rest[0].low) && isWordEN(rest[1].low):
		if p := propertyWord[rest[2].low]; p != "" && p != "colour" {
			return p
		}
	}
	return ""
}

// selfMeasureEN reads the user's own measure said after "I am": "1.82 m
// tall" (my/height = 1.82 m).
func selfMeasureEN(rest []word, pol Polarity) (events.Observation, bool) {
	rest = clauseOf(rest)
	if len(rest) < 3 || !isNumber(rest[0].low) || !isWordEN(rest[1].low) {
		return events.Observation{}, false
	}
	p := propertyWord[rest[2].low]
	if p == "" || p == "colour" {
		return events.Observation{}, false
	}
	return plainFact(plainMine, p, joinOrig(rest[:2]), pol), true
}

// zhSelfMeasure reads the user's own measure said after 我 without 的:
// 身高一米六八 (my/身高 = 一米六八), 家三口人 (my/家 = 三口人); the value opens
// with a number, after an optional 是 or 有.
func zhSelfMeasure(rest string, pol Polarity) (events.Observation, bool) {
	for _, n := range zhSelf {
		v, ok := strings.CutPrefix(rest, n)
		if !ok {
			continue
		}
		v = strings.TrimPrefix(strings.TrimPrefix(v, "是"), "有")
		if r, _ := utf8.DecodeRuneInString(v); v == "" || !strings.ContainsRune(zhNumerals, r) && !unicode.IsDigit(r) {
			return events.Observation{}, false
		}
		return plainFact(plainMine, n, v, pol), true
	}
	return events.Observation{}, false
}
