package memory

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolstream/toolstream/internal/lang"
)

// valueKind is one kind of value said of a thing of the user's (a price, a
// date, a length of time, a place): its names in the slot, English and
// Chinese, and the words that say it.
type valueKind struct {
	en, zh string
	words  map[string]bool // English words, and symbols such as £
	zhUnit []string        // Chinese terms said after a number (or, for a place, first)
}

// plainValueKinds are the kinds in the order they are asked: a price said
// per year is a price, a date said with its year a date.
var plainValueKinds = func() []valueKind {
	var ks []valueKind
	for _, name := range []string{"value_money", "value_date", "value_span", "value_place"} {
		ws := wordList("plain", name)
		k := valueKind{en: ws[0], zh: ws[1], words: map[string]bool{}}
		for _, w := range ws[2:] {
			if r, _ := utf8.DecodeRuneInString(w); lang.IsCJK(r) {
				k.zhUnit = append(k.zhUnit, w)
				continue
			}
			k.words[w] = true
		}
		ks = append(ks, k)
	}
	return ks
}()

// Indexes of plainValueKinds.
const (
	kindMoney = iota
	kindDate
	kindSpan
	kindPlace
)

// valueRate and valueWhen are the words of [plain] value_rate and
// value_when, English (a set) and Chinese (terms).
var valueRate, valueWhen = splitTerms(wordList("plain", "value_rate")), splitTerms(wordList("plain", "value_when"))

// terms holds a table's English words and its Chinese terms.
type terms struct {
	en map[string]bool
	zh []string
}

func splitTerms(ws []string) terms {
	t := terms{en: map[string]bool{}}
	for _, w := range ws {
		if r, _ := utf8.DecodeRuneInString(w); lang.IsCJK(r) {
			t.zh = append(t.zh, w)
			continue
		}
		t.en[w] = true
	}
	return t
}

// plainKindEN names the kind of what rest (the words after the verb) says,
// or "" when it cannot tell: "costs 900 pounds a year" a price, "expires in
// May 2031" a date, "takes 40 minutes" a length of time, "stays in the boot"
// a place.
func plainKindEN(rest []word) string {
	money, date, span, place := plainValueKinds[kindMoney], plainValueKinds[kindDate], plainValueKinds[kindSpan], plainValueKinds[kindPlace]
	number := func(i int) bool { // a number said in digits or words ("18", "two"; not "a")
		return i >= 0 && i < len(rest) && rest[i].low != "a" && (isNumber(rest[i].low) || numberWords[rest[i].low])
	}
	has := func(k valueKind) bool {
		for i, x := range rest {
			switch {
			case k.en == date.en:
				// a month named as one (May, not "may"), or a year
				if k.words[x.low] && x.orig != x.low || len(x.low) == 4 && isDigitByte(x.low[0]) &&
					(strings.HasPrefix(x.low, "19") || strings.HasPrefix(x.low, "20")) {
					return true
				}
			case k.en == span.en:
				if k.words[x.low] && number(i-1) {
					return true
				}
			case k.en == place.en:
				// "in the boot", not "in two months", "at 7pm" or "at night"
				j := 1
				if j < len(rest) && rest[j].low == "the" {
					j++
				}
				if i == 0 && k.words[x.low] && !(j < len(rest) && (timeOfDay(rest[j].low) || valueWhen.en[rest[j].low])) {
					return true
				}
			default:
				// a currency's word, or a bare number said per a length of
				// time: "costs 900 a year"
				if k.words[x.low] || isNumber(x.low) && i+2 < len(rest) && valueRate.en[rest[i+1].low] && span.words[rest[i+2].low] {
					return true
				}
			}
		}
		return false
	}
	for _, k := range []valueKind{money, date, span, place} {
		if has(k) {
			return k.en
		}
	}
	return ""
}

// plainKindZH names the kind of what a Chinese value says (每月交两千元 a
// price, 还剩十二年 a length of time, 2031年到期 a date, 在杭州缴纳 a
// place), or "".
func plainKindZH(value string) string {
	afterNumber := func(t string) bool {
		for i := strings.Index(value, t); i >= 0; {
			if r, _ := utf8.DecodeLastRuneInString(value[:i]); i > 0 && strings.ContainsRune(zhNumerals+"百千万亿", r) {
				return true
			}
			j := strings.Index(value[i+len(t):], t)
			if j < 0 {
				break
			}
			i += len(t) + j
		}
		return false
	}
	if zhRate(value) {
		return plainValueKinds[kindMoney].zh
	}
	for _, k := range plainValueKinds {
		for _, t := range k.zhUnit {
			switch {
			case k.en == plainValueKinds[kindPlace].en:
				if r, ok := strings.CutPrefix(zhDropAdverbs(value), t); ok && !zhTimeFirst(r) &&
					!slices.ContainsFunc(valueWhen.zh, afterNumber) {
					return k.zh
				}
			case t == "年" && zhWholeYear(value):
				return plainValueKinds[kindDate].zh // a year said whole is a date
			case afterNumber(t):
				return k.zh
			}
		}
	}
	return ""
}

// zhTimeFirst reports whether rest, what follows a place's lead 在, opens
// with a time (下个月, 周末, 下午, 周三, a clock time 6:30), so it says no
// place.
func zhTimeFirst(rest string) bool {
	opens := func(t string) bool { return strings.HasPrefix(rest, t) }
	if r := strings.TrimLeft(rest, "0123456789"); len(r) < len(rest) && (strings.HasPrefix(r, ":") || strings.HasPrefix(r, "：")) {
		return true
	}
	return slices.ContainsFunc(zhWhen, opens) || slices.ContainsFunc(valueWhen.zh, opens)
}

// zhRate reports whether value says a price as a number per a length of
// time without a currency: 一年九百, 每年3900, 每月交两千 (a rate's lead, a
// length of time, at most two words, and a number that ends the value).
func zhRate(value string) bool {
	rs := []rune(value)
	numeral := func(r rune) bool { return strings.ContainsRune(zhNumerals+"百千万亿", r) }
	for i := range rs {
		if !slices.ContainsFunc(valueRate.zh, func(t string) bool { return strings.HasPrefix(string(rs[i:]), t) }) {
			continue
		}
		rest := string(rs[i+1:])
		var unit string
		for _, k := range []valueKind{plainValueKinds[kindSpan], plainValueKinds[kindDate]} {
			for _, t := range k.zhUnit {
				if strings.HasPrefix(rest, t) && len(t) > len(unit) {
					unit = t
				}
			}
		}
		if unit == "" {
			continue
		}
		tail := []rune(strings.TrimPrefix(rest, unit))
		j := 0
		for j < len(tail) && j < 2 && !numeral(tail[j]) {
			j++
		}
		if j == len(tail) || !numeral(tail[j]) {
			continue
		}
		for j < len(tail) && numeral(tail[j]) {
			j++
		}
		if j == len(tail) {
			return true
		}
	}
	return false
}

// valueKindsApart reports whether two values' kinds are both told and
// differ, a date and a length of time being one kind (both say when).
func valueKindsApart(a, b string) bool {
	class := func(v string) int {
		k := valueKindOf(v)
		for i, vk := range plainValueKinds {
			if k != "" && (k == vk.en || k == vk.zh) {
				if i == kindSpan {
					return kindDate
				}
				return i
			}
		}
		return -1
	}
	ca, cb := class(a), class(b)
	return ca >= 0 && cb >= 0 && ca != cb
}

// zhWholeYear reports whether value holds a year of four digits (2031年).
func zhWholeYear(value string) bool {
	i := strings.Index(value, "年")
	if i < 4 {
		return false
	}
	for _, c := range value[i-4 : i] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// valueKindOf names the kind of a record's value (price, date, length of
// time, place), or "" when it cannot tell.
func valueKindOf(value string) string {
	if strings.IndexFunc(value, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0 {
		return plainKindZH(value)
	}
	for w := range plainValueKinds[kindMoney].words {
		if !isWordEN(w) && strings.Contains(value, w) {
			return plainValueKinds[kindMoney].en // a currency's sign: £45 a month
		}
	}
	ws := words(value)
	if len(ws) > 1 && isWordEN(ws[0].low) && !plainValueKinds[kindPlace].words[ws[0].low] {
		ws = ws[1:] // the verb of "stays in the boot", "costs 900 pounds"
	}
	return plainKindEN(ws)
}
