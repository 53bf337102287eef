package check

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// A name given as plain text: "It is held at Peoria" beside {"held_at":
// "Galesburg"}, 导演是李伟 beside {"导演": "陈宇"}. The claim states a
// categorical value (a place, a person, a party) the evidence nowhere
// holds; it is judged only once bound, and bound only when unambiguous:
// the one string field in scope whose key concept the claim names, or,
// for a name after a place word (in, at, 在), the one location field.
// That field holding another value contradicts the claim; several such
// fields leave it unsupported; no such field leaves it to the other
// checks. Negation is read first: "not held at Peoria" says nothing of
// where it is held, so a negated claim is not judged here, and a
// possibility ("may be held at Peoria") is unsupported, as every
// contradiction of a modal claim is (facts).

// placeWords precede a name that is a place; copulas, a name that is the
// value of what precedes them.
var (
	placeWords = evidence.LangData.Set("place words")
	copulas    = evidence.LangData.Set("copulas")
	// copulaOrPlaceRunes are the runes that are a copula or a place word
	// alone: plainName reads every rune of a claim, and a rune's lookup is
	// cheaper than its string's in both sets.
	copulaOrPlaceRunes = oneRuneWords(copulas, placeWords)
	// timeNames are the months and weekdays: capitalised, and no names.
	timeNames = func() map[string]bool {
		m := map[string]bool{}
		for _, sec := range []string{"months", "weekdays"} {
			for _, l := range evidence.LangData.Lines(sec) {
				for _, w := range l.Words {
					m[w] = true
				}
			}
		}
		return m
	}()
)

// plainValueFacts judges the name the claim gives as plain text, if any.
func (cx *claim) plainValueFacts(earlier []fact) []fact {
	if (cx.negs-cx.negLex)%2 == 1 || slices.ContainsFunc(earlier, func(f fact) bool { return f.verdict == events.VerdictContradicted || f.unknown }) {
		return nil
	}
	name, place, ok := cx.plainName()
	if !ok {
		return nil
	}
	ix := cx.ix
	named := slices.Clone(cx.concepts)
	for _, w := range cx.words {
		// A state word names its field too (held, held_at).
		if w.Info != nil {
			named = append(named, w.Info.Concepts...)
		}
		if !w.Cjk {
			named = append(named, w.S, lang.Stem(w.S))
		}
	}
	var cands []int32
	for l := range int32(len(ix.Leaves)) {
		lf := &ix.Leaves[l]
		if lf.Kind != evidence.KindStr || lf.Text || lf.HasDay || !cx.inScope(l) || strings.ContainsFunc(lf.Str(), unicode.IsDigit) {
			continue
		}
		if len(lf.Cat()) > 0 {
			continue // a state (HELD, 已完成): the status checks read it
		}
		if overlap(named, lf.Own()) > 0 || place && slices.Contains(lf.Own(), "location") {
			cands = append(cands, l)
		}
	}
	if len(cands) == 0 {
		cands = cx.sameFormNames(name)
	}
	switch {
	case len(cands) == 0:
		return nil
	case len(cands) > 1:
		return []fact{{verdict: events.VerdictUnsupported, weak: true, reason: strings.TrimSpace(name) + " may be the value of several fields"}}
	}
	lf := &ix.Leaves[cands[0]]
	if cx.says(lf.Str()) {
		return nil // the field's value is in the claim as well: the value checks read it
	}
	return []fact{{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(cands[0])},
		reason: "evidence says " + lf.Raw() + " at " + lf.Ptr()}}
}

// sameFormNames returns the string fields in scope whose value is a
// Chinese name of the same form as name, one the claim's words do not
// bind by its key: as long, ending in the same two or more ideographs (a
// title or a kind: 钱医生 beside 赵医生, 北塔楼 beside 南塔楼) and differing
// before them. Such a field holds what the claim names, in another value.
func (cx *claim) sameFormNames(name string) []int32 {
	nr := []rune(name)
	if len(nr) < 3 || !lang.IsCJK(nr[0]) {
		return nil
	}
	ix := cx.ix
	var out []int32
	for l := range int32(len(ix.Leaves)) {
		lf := &ix.Leaves[l]
		if lf.Kind != evidence.KindStr || lf.Text || lf.HasDay || len(lf.Cat()) > 0 || !cx.inScope(l) {
			continue
		}
		vr := []rune(lf.Str())
		if len(vr) != len(nr) || string(vr) == name {
			continue
		}
		same := 0
		for same < len(nr) && vr[len(vr)-1-same] == nr[len(nr)-1-same] {
			same++
		}
		if same >= 2 && same < len(nr) && !slices.ContainsFunc(vr, func(r rune) bool { return !lang.IsCJK(r) }) {
			out = append(out, l)
		}
	}
	return out
}

// plainName returns the name the claim gives as plain text: English
// capitalised words after the claim's first word, or Chinese ideographs
// after a copula or place word to the clause's end, that no lexicon entry
// has and no evidence value holds; place reports a place word before it.
func (cx *claim) plainName() (name string, place, ok bool) {
	ix := cx.ix
	for i := range cx.words {
		w := &cx.words[i]
		if i == 0 || w.Cjk || w.Info != nil || timeNames[w.S] || cx.taken(w.Start, w.End) || len(w.S) < 3 || !unicode.IsUpper(cx.orig[w.Start]) {
			continue
		}
		if slices.ContainsFunc(cx.nums, func(m evidence.NumMention) bool { return m.End <= w.Start && w.Start-m.End <= 1 }) {
			continue // the noun of a count ("40 Kettles")
		}
		if st := lang.Stem(w.S); len(ix.ValueWords(w.S)) > 0 || len(ix.ValueWords(st)) > 0 || len(ix.Concept(w.S)) > 0 || len(ix.Concept(st)) > 0 {
			return "", false, false // a word of the evidence: the value checks read it
		}
		prev := ""
		for j := i - 1; j >= 0; j-- {
			if s := cx.words[j].S; s != "the" {
				prev = s
				break
			}
		}
		return w.S, placeWords[prev], true
	}
	// Chinese: 导演是李伟, 最后一次刷卡是在天府广场.
	for i, r := range cx.orig {
		if !copulaOrPlaceRunes[r] || !copulas[string(r)] && !placeWords[string(r)] {
			continue
		}
		from := i + 1
		place := placeWords[string(r)]
		if from < len(cx.orig) && placeWords[string(cx.orig[from])] {
			from, place = from+1, true
		}
		to := from
		for to < len(cx.orig) && lang.IsCJK(cx.orig[to]) {
			to++
		}
		if to-from < 2 || to-from > 8 || to < len(cx.orig) && (unicode.IsLetter(cx.orig[to]) || unicode.IsDigit(cx.orig[to])) || cx.taken(from, to) {
			continue
		}
		s := string(cx.orig[from:to])
		if cx.evidenceHolds(s) {
			continue
		}
		// A word of the lexicon inside it makes it no name (已完成, 很便宜),
		// unless one field holds a name of its form (钱医生 beside 赵医生:
		// a surname may be a word).
		if slices.ContainsFunc(cx.words, func(w evidence.Cword) bool { return w.Start >= from && w.End <= to && w.Info != nil }) && len(cx.sameFormNames(s)) != 1 {
			continue
		}
		return s, place, true
	}
	return "", false, false
}

// taken reports whether any rune of [from, to) was read as a subject,
// date, value or number.
func (cx *claim) taken(from, to int) bool {
	for r := from; r < to && r < len(cx.used); r++ {
		if cx.used[r] {
			return true
		}
	}
	return false
}

// evidenceHolds reports whether a string value of the evidence holds s.
func (cx *claim) evidenceHolds(s string) bool {
	ix := cx.ix
	for l := range ix.Leaves {
		if lf := &ix.Leaves[l]; lf.Kind == evidence.KindStr && strings.Contains(lf.Str(), s) {
			return true
		}
	}
	return false
}

// says reports whether every word of value v is a word of the claim.
func (cx *claim) says(v string) bool {
	claim := strings.ToLower(string(cx.orig))
	words := strings.FieldsFunc(strings.ToLower(v), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if len(words) == 0 {
		return false
	}
	cw := strings.FieldsFunc(claim, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, w := range words {
		if !slices.Contains(cw, w) && !(lang.IsCJK([]rune(w)[0]) && strings.Contains(claim, w)) {
			return false
		}
	}
	return true
}

// oneRuneWords returns the runes r of the words of sets that are
// string(r): each a rune of its own, never an invalid byte (which
// string(r) never writes).
func oneRuneWords(sets ...map[string]bool) map[rune]bool {
	out := map[rune]bool{}
	for _, set := range sets {
		for w := range set {
			if r, n := utf8.DecodeRuneInString(w); n == len(w) && (r != utf8.RuneError || n > 1) {
				out[r] = true
			}
		}
	}
	return out
}
