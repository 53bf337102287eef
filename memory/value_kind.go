package memory

import (
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

// plainKindEN names the kind of what rest (the words after the verb) says,
// or "" when it cannot tell: "costs 900 pounds a year" a price, "expires in
// May 2031" a date, "takes 40 minutes" a length of time, "stays in the boot"
// a place.
func plainKindEN(rest []word) string {
	money, date, span, place := plainValueKinds[0], plainValueKinds[1], plainValueKinds[2], plainValueKinds[3]
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
				if k.words[x.low] && i > 0 && rest[i-1].low != "" && isDigitByte(rest[i-1].low[0]) {
					return true
				}
			case k.en == place.en:
				if i == 0 && k.words[x.low] {
					return true
				}
			default:
				if k.words[x.low] {
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
	for _, k := range plainValueKinds {
		for _, t := range k.zhUnit {
			switch {
			case k.en == plainValueKinds[3].en:
				if strings.HasPrefix(zhDropAdverbs(value), t) {
					return k.zh
				}
			case t == "年" && zhWholeYear(value):
				return plainValueKinds[1].zh // a year said whole is a date
			case afterNumber(t):
				return k.zh
			}
		}
	}
	return ""
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
	for w := range plainValueKinds[0].words {
		if !isWordEN(w) && strings.Contains(value, w) {
			return plainValueKinds[0].en // a currency's sign: £45 a month
		}
	}
	ws := words(value)
	if len(ws) > 1 && isWordEN(ws[0].low) && !plainValueKinds[3].words[ws[0].low] {
		ws = ws[1:] // the verb of "stays in the boot", "costs 900 pounds"
	}
	return plainKindEN(ws)
}
