package check

import (
	"fmt"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Identifiers: gates, seats, SKUs, tracking numbers, order and ticket ids,
// room numbers. They are compared exactly, never as numbers or words: a
// code one character off is another code.
//
// A claim's code is a run of ASCII letters and digits mixing both, joined
// by - _ / or by a space after a short capitalised prefix (B44, 17C,
// MS-M2, SF1402238876541, INV-2025-0317, LH 2041). An evidence field is
// identifier-like when its value is a string that is such a code or only
// digits (room "512", coach "05"), and not a date. Codes compare by their
// canonical form: upper case without separators.
//
// A code the evidence has is supported by the field holding it (or a
// string naming it as a word). A code it does not have is contradicted by
// the identifier-like field the claim is about: the one whose key the
// claim names ("gate B4" → /gate), else the one shaped like it (the same
// letters before its first digit and about its length: HX8824K →
// HX8842K). When several fields of different values fit (ticket ids of a
// list), the code names nothing the evidence knows: unsupported.

// codeFacts checks the claim's codes, and its bare numbers where the claim
// names an identifier field holding digits (room 512). A negated claim's
// codes are left to the other checks ("not at gate B4" says little about
// the gate it is at).
func (cx *claim) codeFacts([]fact) []fact {
	if len(cx.codes) == 0 && len(cx.nums) == 0 || cx.negs%2 == 1 {
		return nil
	}
	ids := cx.ix.IdLeaves()
	if len(ids) == 0 && len(cx.codes) == 0 {
		return nil
	}
	var out []fact
	for _, m := range cx.codes {
		if f := cx.codeVerdict(ids, m); f.verdict != "" {
			f.span = [2]int{m.Start, m.End}
			out = append(out, f)
		}
	}
	for i := range cx.nums {
		if !cx.ix.HasDigitIDs() {
			break
		}
		n := &cx.nums[i]
		if n.Unit != nil || n.Decimals > 0 || n.IsRange || n.End-n.Start < 2 || !lang.IsAllDigits(string(cx.orig[n.Start:n.End])) {
			continue
		}
		m := evidence.CodeMention{Start: n.Start, End: n.End, Canon: string(cx.orig[n.Start:n.End]), DigitsOnly: true}
		if f := cx.codeVerdict(ids, m); f.verdict != "" {
			f.span = [2]int{m.Start, m.End}
			out = append(out, f)
		}
	}
	return out
}

// codeVerdict checks one code against the identifier-like fields. A code
// the evidence holds is a soft fact: the claim's other facts say what it
// says about it.
func (cx *claim) codeVerdict(ids []evidence.IdLeaf, m evidence.CodeMention) fact {
	ix := cx.ix
	text := string(cx.orig[m.Start:m.End])
	var held []int32
	for _, id := range ids {
		if id.Canon == m.Canon {
			held = append(held, id.L)
		}
	}
	if len(held) > 0 {
		best := held[0]
		for _, l := range held {
			if cx.inScope(l) {
				best = l
				break
			}
		}
		f := supported(ix, "identifier matches", best)
		f.soft = true
		return f
	}
	if m.DigitsOnly {
		// The year of a month the claim says ("ships in September
		// 2027") is a date: a year-month string of that month supports it.
		if f, ok := cx.yearMonth(ids, m); ok {
			return f
		}
		// A bare number is an identifier only where the claim names an
		// identifier field of digits.
		named := cx.namedIDs(ids, func(id evidence.IdLeaf) bool { return id.Digits })
		if len(named) == 0 {
			return fact{}
		}
		return cx.otherCode(named, text)
	}
	if !m.Foreign {
		return fact{} // a key or a word of a text: the other checks read it
	}
	named := cx.namedIDs(ids, func(id evidence.IdLeaf) bool { return !id.Digits })
	more := len(named) > fieldsWeighedMax
	named = slices.DeleteFunc(named, cx.idOfOther)
	if more && len(named) > 0 {
		return cx.unknownCode(text) // more fields than were read: several values, as far as the claim can tell
	}
	if len(named) == 0 {
		for _, id := range ids {
			if cx.idInScope(id.L) && similarCode(m.Canon, id.Canon) {
				named = append(named, id)
			}
		}
	}
	if len(named) == 0 {
		if evidence.DigitCount(m.Canon) >= 3 && len(m.Canon) >= 4 {
			return fact{verdict: events.VerdictUnsupported, reason: "the evidence does not know " + strconv.Quote(text), unknown: true}
		}
		return fact{}
	}
	return cx.otherCode(named, text)
}

// otherCode: the claim's code is not the evidence's. One value among the
// fields it is about contradicts it; several (a list's ids) leave a code
// nothing knows.
func (cx *claim) otherCode(cands []evidence.IdLeaf, text string) fact {
	ix := cx.ix
	if len(cands) > fieldsWeighedMax { // namedIDs read no further: several values, as far as the claim can tell
		return cx.unknownCode(text)
	}
	first := cands[0]
	for _, id := range cands[1:] {
		if id.Canon != first.Canon {
			return cx.unknownCode(text)
		}
	}
	lf := &ix.Leaves[first.L]
	if partOfValue(lf, text) {
		return fact{} // "an ECDSA P-256 key" beside "ECDSA P-256": the code is a word of the value, not another
	}
	return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(first.L)},
		reason: "identifier differs: evidence says " + lf.Raw() + " at " + lf.Ptr()}
}

// unknownCode is the fact of a code none of several values the claim is
// about is.
func (cx *claim) unknownCode(text string) fact {
	return fact{verdict: events.VerdictUnsupported, reason: "the evidence does not know " + strconv.Quote(text), unknown: true}
}

// namedIDs returns the identifier-like fields in scope whose key the claim
// names (by a word of the key, or a concept of it), that keep says fit: the
// first in document order, at most fieldsWeighedMax and one more to say there
// are more.
func (cx *claim) namedIDs(ids []evidence.IdLeaf, keep func(evidence.IdLeaf) bool) []evidence.IdLeaf {
	var out []evidence.IdLeaf
	for _, id := range ids {
		if len(out) > fieldsWeighedMax {
			break // NB: the rest are not read
		}
		if !keep(id) || !cx.idInScope(id.L) {
			continue
		}
		if cx.namesKey(id) {
			out = append(out, id)
		}
	}
	return out
}

// idOfOther reports whether identifier field id, named by the claim only
// through a word like "number", is another thing's: its key's other words
// are not the claim's, and the claim names an attribute the evidence does
// not know ("the gribruva number" beside zagra_number).
func (cx *claim) idOfOther(id evidence.IdLeaf) bool {
	var other []string
	for _, w := range id.Words {
		if !evidence.IdWords[w] {
			other = append(other, w)
		}
	}
	if len(other) == 0 || cx.namesKeyWord(other) {
		return false
	}
	all, _ := cx.claimAttrs()
	return cx.namesUnknown(all)
}

// idInScope: a field in the claim's scope, or any when it has none.
func (cx *claim) idInScope(l int32) bool { return !cx.scoped || cx.inScope(l) }

// namesKey reports whether the claim names the field's key: a word of it
// (gate, confirmation) or a concept of it (房间 for room).
func (cx *claim) namesKey(id evidence.IdLeaf) bool {
	if cx.namesKeyWord(id.Words) {
		return true
	}
	for _, c := range cx.ix.Leaves[id.L].Own() {
		if cx.hasConcept(c) {
			return true
		}
	}
	return false
}

// similarCode reports two codes shaped alike: the same letters before the
// first digit, and lengths at most one apart.
func similarCode(a, b string) bool {
	pa, pb := letterPrefix(a), letterPrefix(b)
	if pa != pb {
		return false
	}
	d := len(a) - len(b)
	return d >= -1 && d <= 1
}

func letterPrefix(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r >= '0' && r <= '9' })
	if i < 0 {
		return s
	}
	return s[:i]
}

// partOfValue reports whether code is one of the space-separated words of
// field lf's string value (case aside): a part of the value the claim
// names, not another identifier.
func partOfValue(lf *evidence.Leaf, code string) bool {
	raw := strings.Trim(lf.Raw(), `"`)
	if !strings.Contains(raw, " ") {
		return false
	}
	for _, w := range strings.Fields(raw) {
		if strings.EqualFold(strings.Trim(w, ",;()"), code) {
			return true
		}
	}
	return false
}

// yearMonth checks a year the claim says after a month's name
// ("September 2027", "Sept. 2027") against the identifier-like fields in
// scope holding a year and a month only ("2027-09", "2027/09"): one of
// that month supports it. Anything else is left to the identifier checks
// (ok false): another month of the field the claim is about contradicts.
func (cx *claim) yearMonth(ids []evidence.IdLeaf, m evidence.CodeMention) (fact, bool) {
	ix := cx.ix
	year, err := strconv.Atoi(m.Canon)
	if err != nil || m.End-m.Start != 4 {
		return fact{}, false
	}
	e := m.Start
	for e > 0 && (cx.orig[e-1] == ' ' || cx.orig[e-1] == '.' || cx.orig[e-1] == ',') {
		e--
	}
	b := e
	for b > 0 && unicode.IsLetter(cx.orig[b-1]) && !lang.IsCJK(cx.orig[b-1]) {
		b--
	}
	month, ok := evidence.MonthNamed(string(cx.orig[b:e]))
	if b == e || !ok {
		return fact{}, false
	}
	want := []string{fmt.Sprintf("%04d-%02d", year, month), fmt.Sprintf("%04d/%02d", year, month)}
	for _, id := range ids {
		if cx.inScope(id.L) && slices.Contains(want, strings.Trim(ix.Leaves[id.L].Raw(), `"`)) {
			return supported(ix, "month matches", id.L), true
		}
	}
	return fact{}, false
}
