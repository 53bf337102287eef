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

func zhNumeralRune(c rune) bool { return langData.IsZhNumeral(c) }

// zhMeasureRune reports a measure word or unit that may follow a numeral.
func zhMeasureRune(c rune) bool {
	return strings.ContainsRune("件个天台箱份双套瓶包盒张本支位人间晚次只辆元块小分周年斤克米度单笔条家款种名倍折成", c)
}

// parseZhNumber parses a Chinese numeral at r[i] (二十五, 两, 一百零五,
// 三千). It returns the value and the end of the numeral.
func parseZhNumber(r []rune, i int) (float64, int, bool) { return langData.ParseZhNumber(r, i) }
