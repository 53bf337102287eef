package lexical

// Stem returns the stem of a lower-case English word by the Porter
// stemming algorithm (M. F. Porter, "An algorithm for suffix stripping",
// Program 14(3), 1980), written from the paper's description: steps 1a to
// 5b, each suffix rule applied when the measure m of what remains meets
// its condition, the longest matching suffix of a step deciding. A word
// of two letters or fewer, or one with anything but a to z, is returned
// as it is. Stems need not be words: "relational" → "relat",
// "organization" and "organized" → "organ".
func Stem(w string) string {
	if len(w) <= 2 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	b := []byte(w)
	b = step1a(b)
	b = step1b(b)
	b = step1c(b)
	b = step2(b)
	b = step3(b)
	b = step4(b)
	b = step5(b)
	return string(b)
}

// cons reports whether b[i] is a consonant: not a, e, i, o, u, and not a
// y that follows a consonant.
func cons(b []byte, i int) bool {
	switch b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !cons(b, i-1)
	}
	return true
}

// measure is m of b: the number of vowel-consonant sequences in
// [C](VC)^m[V].
func measure(b []byte) int {
	m, i, n := 0, 0, len(b)
	for i < n && cons(b, i) {
		i++
	}
	for i < n {
		for i < n && !cons(b, i) {
			i++
		}
		if i == n {
			break
		}
		for i < n && cons(b, i) {
			i++
		}
		m++
	}
	return m
}

func hasVowel(b []byte) bool {
	for i := range b {
		if !cons(b, i) {
			return true
		}
	}
	return false
}

// doubleCons: b ends with a double consonant (*d).
func doubleCons(b []byte) bool {
	n := len(b)
	return n >= 2 && b[n-1] == b[n-2] && cons(b, n-1)
}

// cvc: b ends consonant-vowel-consonant, the last not w, x or y (*o).
func cvc(b []byte) bool {
	n := len(b)
	if n < 3 || !cons(b, n-3) || cons(b, n-2) || !cons(b, n-1) {
		return false
	}
	c := b[n-1]
	return c != 'w' && c != 'x' && c != 'y'
}

func hasSuffix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[len(b)-len(s):]) == s
}

func step1a(b []byte) []byte {
	switch {
	case hasSuffix(b, "sses"), hasSuffix(b, "ies"):
		return b[:len(b)-2]
	case hasSuffix(b, "ss"):
		return b
	case hasSuffix(b, "s"):
		return b[:len(b)-1]
	}
	return b
}

func step1b(b []byte) []byte {
	if hasSuffix(b, "eed") {
		if measure(b[:len(b)-3]) > 0 {
			return b[:len(b)-1]
		}
		return b
	}
	var stem []byte
	switch {
	case hasSuffix(b, "ed") && hasVowel(b[:len(b)-2]):
		stem = b[:len(b)-2]
	case hasSuffix(b, "ing") && hasVowel(b[:len(b)-3]):
		stem = b[:len(b)-3]
	default:
		return b
	}
	switch {
	case hasSuffix(stem, "at"), hasSuffix(stem, "bl"), hasSuffix(stem, "iz"):
		return append(stem, 'e')
	case doubleCons(stem):
		if c := stem[len(stem)-1]; c != 'l' && c != 's' && c != 'z' {
			return stem[:len(stem)-1]
		}
		return stem
	case measure(stem) == 1 && cvc(stem):
		return append(stem, 'e')
	}
	return stem
}

func step1c(b []byte) []byte {
	if hasSuffix(b, "y") && hasVowel(b[:len(b)-1]) {
		b[len(b)-1] = 'i'
	}
	return b
}

type rule struct{ suffix, repl string }

// replace applies the longest rule whose suffix b ends with, if what
// remains has a measure above min; a matching rule whose condition fails
// ends the step.
func replace(b []byte, rules []rule, min int) []byte {
	best := -1
	for i, r := range rules {
		if hasSuffix(b, r.suffix) && (best < 0 || len(r.suffix) > len(rules[best].suffix)) {
			best = i
		}
	}
	if best < 0 {
		return b
	}
	stem := b[:len(b)-len(rules[best].suffix)]
	if measure(stem) <= min {
		return b
	}
	return append(stem, rules[best].repl...)
}

var step2Rules = []rule{
	{"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"}, {"anci", "ance"}, {"izer", "ize"},
	{"abli", "able"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"},
	{"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"}, {"alism", "al"}, {"iveness", "ive"},
	{"fulness", "ful"}, {"ousness", "ous"}, {"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"},
}

func step2(b []byte) []byte { return replace(b, step2Rules, 0) }

var step3Rules = []rule{
	{"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"}, {"ical", "ic"}, {"ful", ""}, {"ness", ""},
}

func step3(b []byte) []byte { return replace(b, step3Rules, 0) }

var step4Suffixes = []string{"al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
	"ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize"}

func step4(b []byte) []byte {
	best := ""
	for _, s := range step4Suffixes {
		if hasSuffix(b, s) && len(s) > len(best) {
			best = s
		}
	}
	if best == "" {
		return b
	}
	stem := b[:len(b)-len(best)]
	if measure(stem) <= 1 {
		return b
	}
	if best == "ion" && !(hasSuffix(stem, "s") || hasSuffix(stem, "t")) {
		return b
	}
	return stem
}

func step5(b []byte) []byte {
	if hasSuffix(b, "e") {
		stem := b[:len(b)-1]
		if m := measure(stem); m > 1 || m == 1 && !cvc(stem) {
			b = stem
		}
	}
	if measure(b) > 1 && doubleCons(b) && hasSuffix(b, "l") {
		b = b[:len(b)-1]
	}
	return b
}
