package check

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// Bind, then judge: a number binds only a field of its own kind. What the
// number is (a count of things, a rate per a unit, a rate named by its
// noun) is read from the claim's words; what the field is, from its key
// and unit. A field of another kind is not about the claim, whatever
// words they share: it neither supports nor contradicts it, and when no
// field of the kind is left the claim is unsupported. Nothing here names
// a domain: the rules read the claim's form and the structure of keys.

// claimedKind is what a claimed number is, read once per number: its facts
// decide which fields it may bind (fitsKind).
type claimedKind struct {
	// things: a whole number said of a plural noun that is no unit
	// ("1,516 patients", "18,500 prizes"): a count, which no field
	// measured in a unit of time, money, weight … holds.
	things bool
	// perDim is the dimension a rate is per ("4毛 每公里": length), or
	// DimNone: a field measured in it holds what the rate is per, not
	// the rate.
	perDim evidence.Dimension
	// rateQual is the qualifier of the rate noun the claim names the
	// number by (次品 of 次品率, defect of "defect rate"), or "": a field
	// whose key names another rate (出勤率_pct) is another measure.
	rateQual string
}

// kindOf reads what claimed number m is.
func (cx *claim) kindOf(m *evidence.NumMention) claimedKind {
	var k claimedKind
	k.things = countsThings(m)
	if m.Unit == nil || m.Unit.Dim != evidence.DimPercent {
		if r := cx.claimRate(m); r.is && r.per != nil && r.per.Dim != evidence.DimNone && r.per.Dim != evidence.DimCount &&
			(m.Unit == nil || m.Unit.Dim != r.per.Dim) {
			k.perDim = r.per.Dim
		}
	}
	k.rateQual = cx.rateQualifier(m)
	return k
}

// fractionNouns are plurals of a part of a whole (words.txt [fraction
// nouns]): "three quarters" counts no things.
var fractionNouns = evidence.LangData.Set("fraction nouns")

// countsThings reports a whole number said of a plural noun of Latin
// letters that is no unit ("1,516 patients are waiting"): a count of
// things. A fraction ("two thirds", "three quarters") is none.
func countsThings(m *evidence.NumMention) bool {
	if m.Unit != nil || m.MaybeUnit != nil || m.V < 0 || m.V != math.Trunc(m.V) || m.Decimals > 0 || len(m.Head) == 0 {
		return false
	}
	w := strings.ToLower(m.HeadWord)
	if len(w) < 4 || !strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ss") || evidence.UnitOfValue(w) != nil || fractionNouns[w] {
		return false
	}
	if _, ok := evidence.LangData.Ordinal(strings.TrimSuffix(w, "s")); ok {
		return false // "two thirds": a fraction
	}
	for _, r := range w {
		if r > unicode.MaxASCII || !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// fitsKind reports whether field lf may hold a number of kind k.
func (k claimedKind) fitsKind(lf *evidence.Leaf) bool {
	d := leafDim(lf)
	if u := lf.Unit(); k.things && u != nil && u.Dim != evidence.DimNone && u.Dim != evidence.DimCount {
		return false // a count of things is no duration, sum of money, weight (a field in a unit of one)
	}
	if k.perDim != evidence.DimNone && d == k.perDim {
		return false // the distance a rate is per is not the rate
	}
	if k.rateQual != "" {
		if q := keyRateQualifier(evidence.LastToken(lf.Ptr())); q != "" && !sameQualifier(q, k.rateQual) {
			return false // 出勤率 is not 次品率
		}
	}
	return true
}

// rateNouns are the words that name a rate by what it is the rate of (率,
// rate, ratio): words.txt [rate nouns].
var rateNouns = evidence.LangData.Set("rate nouns")

// rateQualifier returns the qualifier of the rate noun right before m in
// the claim (次品 of "次品率约1.1%", defect of "the defect rate is 1.1%"),
// or "". Chinese is read by runes (a rate noun within four runes before
// the number, its qualifier the ideographs before it back to 的 or a
// letter, at most four); English by words (the word before a rate noun
// among the four words before the number).
func (cx *claim) rateQualifier(m *evidence.NumMention) string {
	r := cx.norm
	if m.Start <= len(r) {
		for i := m.Start - 1; i >= 0 && i >= m.Start-4; i-- {
			if !lang.IsCJK(r[i]) && !unicode.IsSpace(r[i]) {
				break
			}
			if !rateNouns[string(r[i])] {
				continue
			}
			j := i
			for j > 0 && i-j < 4 && lang.IsCJK(r[j-1]) && r[j-1] != '的' {
				j--
			}
			if i-j >= 2 {
				return string(r[j:i])
			}
			return ""
		}
	}
	var before []string
	for i := range cx.words {
		if w := &cx.words[i]; w.End <= m.Start && !w.Cjk {
			before = append(before, strings.ToLower(w.S))
		}
	}
	for i := len(before) - 1; i >= 1 && i >= len(before)-4; i-- {
		if rateNouns[before[i]] {
			return before[i-1]
		}
	}
	return ""
}

// cjkRateQualifier returns what Chinese word w is the rate of when it
// ends in a rate noun after two or more ideographs (次品率: 次品), or "".
func cjkRateQualifier(w string) string {
	r := []rune(w)
	for n := 1; n <= 2 && n < len(r); n++ {
		if rateNouns[string(r[len(r)-n:])] && len(r)-n >= 2 && lang.IsCJK(r[0]) {
			return string(r[:len(r)-n])
		}
	}
	return ""
}

// keyRateQualifier returns the qualifier of the rate a key names
// (出勤率_pct: 出勤; defect_rate_pct: defect), or "" when it names none
// or a rate of nothing in particular (rate_pct).
func keyRateQualifier(key string) string {
	parts := lang.KeyParts(key)
	for i, p := range parts {
		p = strings.ToLower(p)
		if q := cjkRateQualifier(p); q != "" {
			return q
		}
		if rateNouns[p] && i > 0 && !lang.IsCJK([]rune(parts[i-1])[0]) {
			return strings.ToLower(parts[i-1])
		}
	}
	return ""
}

// sameQualifier reports whether two rate qualifiers may name one thing:
// equal, one holding the other (合格 and 产品合格), one stem or concept,
// or written in two scripts (好评 beside positive_rate: only the lexicon
// could tell, and what it does not say is not known to differ).
func sameQualifier(a, b string) bool {
	if lang.IsCJK([]rune(a)[0]) != lang.IsCJK([]rune(b)[0]) {
		return true
	}
	if a == b || strings.Contains(a, b) || strings.Contains(b, a) {
		return true
	}
	if lang.Stem(a) == lang.Stem(b) {
		return true
	}
	ca, cb := evidence.WordConcepts(a), evidence.WordConcepts(b)
	return slices.ContainsFunc(ca, func(c string) bool { return slices.Contains(cb, c) })
}
