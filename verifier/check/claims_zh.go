package check

import (
	"slices"
	"strings"
)

// Chinese: clause conjunctions, numerals and the Chinese half of the
// lexicon. Chinese has no spaces, so words are found by longest match
// against the lexicon; an unknown ideograph is a word of its own.

// zhConjunctions split clauses. The "but" kind splits whenever the right
// side is a clause; the "and" kind only between two clauses, so 商品 A 和
// 商品 B 都有货 stays whole.
var zhConjunctions = []struct {
	s   []rune
	but bool
}{
	{[]rune("但是"), true}, {[]rune("而且"), true}, {[]rune("并且"), true}, {[]rune("不过"), true}, {[]rune("然而"), true},
	{[]rune("可是"), true}, {[]rune("同时"), true}, {[]rune("另外"), true}, {[]rune("此外"), true},
	{[]rune("以及"), false}, {[]rune("和"), false}, {[]rune("及"), false}, {[]rune("并"), false},
}

// zhConjunctionAt reports a conjunction starting at r[i] and where it ends.
func zhConjunctionAt(r []rune, i, e int) (end int, but, ok bool) {
	for _, c := range zhConjunctions {
		n := len(c.s)
		if i+n <= e && slices.Equal(r[i:i+n], c.s) {
			// 并 is a conjunction only before a verb-like word ("并将", "并已").
			if c.s[0] == '并' && n == 1 && (i+1 >= e || !strings.ContainsRune("且将已会可于在", r[i+1])) {
				continue
			}
			if c.s[0] == '和' && n == 1 && i+1 < e && strings.ContainsRune("平", r[i+1]) {
				continue
			}
			return i + n, c.but, true
		}
	}
	return 0, false, false
}

// zhPredicateRunes mark a Chinese clause (a verb or a predicate).
const zhPredicateRunes = "有是为已会将可能要送发到剩卖售价重需含包提供支显示预计达购订退晴阴雨雪降升涨跌减增超低高贵便免缺"
