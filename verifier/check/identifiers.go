package check

import (
	"github.com/toolstream/toolstream/internal/lang"

	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/toolstream/toolstream/events"
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

// codeMention is a code written in a claim.
type codeMention struct {
	start, end int // rune offsets
	canon      string
	digitsOnly bool // a bare number read as an identifier (room 512)
	foreign    bool // the evidence has it nowhere: no value, key or word of a text
}

// scanCodes finds the codes of a claim's runes as written, skipping runes
// used by subjects.
func scanCodes(orig []rune, used []bool) []codeMention {
	var out []codeMention
	n := len(orig)
	for i := 0; i < n; i++ {
		if !isASCIIAlnum(orig[i]) || i > 0 && (isASCIIAlnum(orig[i-1]) || orig[i-1] == '.' || orig[i-1] == '-' && i > 1 && isASCIIAlnum(orig[i-2])) {
			continue
		}
		end, ok := codeEnd(orig, i)
		if s := string(orig[i:end]); ok && isCode(s) && !usedAny(used, i, end) {
			out = append(out, codeMention{start: i, end: end, canon: canonCode(s)})
		}
		i = end - 1
	}
	return out
}

// codeEnd returns where the code-like run starting at i ends (after i),
// and false when it is a decimal (PM2.5, v1.2), not a code.
func codeEnd(r []rune, i int) (int, bool) {
	j := i
	for j < len(r) && isASCIIAlnum(r[j]) {
		j++
	}
	// "LH 2041", "UA 1234": one to three capitals, a space, digits.
	if j-i <= 3 && j+1 < len(r) && r[j] == ' ' && isDigit(r[j+1]) && allUpper(r[i:j]) {
		k := j + 1
		for k < len(r) && isASCIIAlnum(r[k]) {
			k++
		}
		j = k
	}
	for j+1 < len(r) && (r[j] == '-' || r[j] == '_' || r[j] == '/') && isASCIIAlnum(r[j+1]) {
		k := j + 1
		for k < len(r) && isASCIIAlnum(r[k]) {
			k++
		}
		j = k
	}
	if j < len(r) && r[j] == '.' && j+1 < len(r) && isDigit(r[j+1]) {
		return j, false
	}
	return max(j, i+1), true
}

// isCode reports a run of letters and digits mixing both that is not a
// number with its unit (12kg, 5pm, 3rd).
func isCode(s string) bool {
	letters, digits := 0, 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters++
		}
	}
	if letters == 0 || digits == 0 || len(s) < 2 {
		return false
	}
	// "12-year", "29/month": a number and its word (a segment of two or
	// more small letters only).
	small, other := 0, false
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '-' || s[i] == '_' || s[i] == '/' || s[i] == ' ' {
			if small >= 2 && !other {
				return false
			}
			small, other = 0, false
			continue
		}
		if c := s[i]; c >= 'a' && c <= 'z' {
			small++
		} else {
			other = true
		}
	}
	return s[0] < '0' || s[0] > '9' || !isNumberWithUnit(strings.ToLower(s))
}

// canonCode is a code's canonical form: upper case, separators dropped.
func canonCode(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z':
			b.WriteRune(c - 'a' + 'A')
		case isASCIIAlnum(c):
			b.WriteRune(c)
		}
	}
	return b.String()
}

// idCanon returns the canonical form of an identifier-like string value,
// or "" when the value is not one.
func idCanon(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 40 {
		return ""
	}
	digits := 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_' || c == '/' || c == ' ':
		default:
			return ""
		}
	}
	if digits == 0 || strings.Count(s, " ") > 3 {
		return ""
	}
	c := canonCode(s)
	if c == "" || strings.Contains(s, " ") && !isCode(strings.ReplaceAll(s, " ", "")) && digits != len(c) {
		return ""
	}
	if !isCode(s) && digits != len(c) {
		return "" // a word with a number in it ("size 34")
	}
	return c
}

// idLeaves returns the identifier-like leaves of the index with their
// canonical values, made once per index.
func (ix *index) idLeaves() []idLeaf {
	if ix.ids != nil {
		return *ix.ids
	}
	var out []idLeaf
	for l := range ix.leaves {
		lf := &ix.leaves[l]
		if lf.kind != kindStr || lf.text || lf.hasDay {
			continue
		}
		if s := rawString(lf.raw()); len(s) <= 40 && strings.ContainsAny(s, digitChars) {
			if c := idCanon(s); c != "" {
				out = append(out, idLeaf{l: int32(l), canon: c, words: keyWords(lastToken(lf.ptr())), digits: lang.IsAllDigits(c)})
			}
		}
	}
	ix.ids = &out
	return out
}

// hasDigitIDs reports an identifier-like field of digits in the index.
func (ix *index) hasDigitIDs() bool {
	return slices.ContainsFunc(ix.idLeaves(), func(id idLeaf) bool { return id.digits })
}

// codesInText returns the codes written in the index's keys and inside its
// longer string values, each with the first leaf writing it, made once
// per index.
func (ix *index) codesInText() map[string]int32 {
	if ix.textCodes != nil {
		return ix.textCodes
	}
	out := map[string]int32{}
	add := func(s string, l int) {
		for _, c := range scanCodes([]rune(s), nil) {
			if prev, ok := out[c.canon]; !ok || prev < 0 {
				out[c.canon] = int32(l)
			}
		}
	}
	seen := map[string]bool{}
	addKey := func(k string, l int) {
		if !seen[k] && strings.ContainsAny(k, digitChars) {
			add(k, l)
		}
		seen[k] = true
	}
	for l := range ix.leaves {
		lf := &ix.leaves[l]
		addKey(lastToken(lf.ptr()), l) // its key ("F1", "SST-2")
		for _, k := range lf.own() {
			addKey(k, l) // … and a table's column names
		}
		if lf.kind != kindStr || lf.text || !strings.ContainsAny(lf.raw(), digitChars) {
			continue
		}
		var s string
		if json.Unmarshal([]byte(lf.raw()), &s) == nil && idCanon(s) == "" {
			add(s, l)
		}
	}
	for n := range ix.nodes {
		addKey(lastToken(ix.nodes[n].ptr), -1) // an object's or a list's key
	}
	ix.textCodes = out
	return out
}

const digitChars = "0123456789"

// rawString returns the string a JSON string's text holds: its text
// between the quotes when it escapes nothing.
func rawString(raw string) string {
	if len(raw) >= 2 && raw[0] == '"' && strings.IndexByte(raw, '\\') < 0 {
		return raw[1 : len(raw)-1]
	}
	var s string
	if json.Unmarshal([]byte(raw), &s) != nil {
		return ""
	}
	return s
}

// idLeaf is an identifier-like leaf.
type idLeaf struct {
	l      int32
	canon  string
	words  []string // the words of its key that may name it (keyWords)
	digits bool     // its value is only digits (room "512")
}

// keyWords returns the words of a key that may name its field: all but
// those too general to name one field (id, no, number, code) and single
// letters.
func keyWords(key string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(key), func(r rune) bool { return r == '_' || r == '-' || r == ' ' }) {
		if w != "id" && w != "no" && w != "number" && w != "code" && len(w) >= 2 {
			out = append(out, w)
		}
	}
	return out
}

// codeFacts checks the claim's codes, and its bare numbers where the claim
// names an identifier field holding digits (room 512). A negated claim's
// codes are left to the other checks ("not at gate B4" says little about
// the gate it is at).
func (cx *claim) codeFacts([]fact) []fact {
	if len(cx.codes) == 0 && len(cx.nums) == 0 || cx.negs%2 == 1 {
		return nil
	}
	ids := cx.ix.idLeaves()
	if len(ids) == 0 && len(cx.codes) == 0 {
		return nil
	}
	var out []fact
	for _, m := range cx.codes {
		if f := cx.codeVerdict(ids, m); f.verdict != "" {
			f.span = [2]int{m.start, m.end}
			out = append(out, f)
		}
	}
	for i := range cx.nums {
		if !cx.ix.hasDigitIDs() {
			break
		}
		n := &cx.nums[i]
		if n.unit != nil || n.decimals > 0 || n.isRange || n.end-n.start < 2 || !lang.IsAllDigits(string(cx.orig[n.start:n.end])) {
			continue
		}
		m := codeMention{start: n.start, end: n.end, canon: string(cx.orig[n.start:n.end]), digitsOnly: true}
		if f := cx.codeVerdict(ids, m); f.verdict != "" {
			f.span = [2]int{m.start, m.end}
			out = append(out, f)
		}
	}
	return out
}

// codeVerdict checks one code against the identifier-like fields. A code
// the evidence holds is a soft fact: the claim's other facts say what it
// says about it.
func (cx *claim) codeVerdict(ids []idLeaf, m codeMention) fact {
	ix := cx.ix
	text := string(cx.orig[m.start:m.end])
	var held []int32
	for _, id := range ids {
		if id.canon == m.canon {
			held = append(held, id.l)
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
	if m.digitsOnly {
		// A bare number is an identifier only where the claim names an
		// identifier field of digits.
		named := cx.namedIDs(ids, func(id idLeaf) bool { return id.digits })
		if len(named) == 0 {
			return fact{}
		}
		return cx.otherCode(named, text)
	}
	if !m.foreign {
		return fact{} // a key or a word of a text: the other checks read it
	}
	named := cx.namedIDs(ids, func(id idLeaf) bool { return !id.digits })
	named = slices.DeleteFunc(named, cx.idOfOther)
	if len(named) == 0 {
		for _, id := range ids {
			if cx.idInScope(id.l) && similarCode(m.canon, id.canon) {
				named = append(named, id)
			}
		}
	}
	if len(named) == 0 {
		if digitCount(m.canon) >= 3 && len(m.canon) >= 4 {
			return fact{verdict: events.VerdictUnsupported, reason: "the evidence does not know " + strconv.Quote(text), unknown: true}
		}
		return fact{}
	}
	return cx.otherCode(named, text)
}

// otherCode: the claim's code is not the evidence's. One value among the
// fields it is about contradicts it; several (a list's ids) leave a code
// nothing knows.
func (cx *claim) otherCode(cands []idLeaf, text string) fact {
	ix := cx.ix
	first := cands[0]
	for _, id := range cands[1:] {
		if id.canon != first.canon {
			return fact{verdict: events.VerdictUnsupported, reason: "the evidence does not know " + strconv.Quote(text), unknown: true}
		}
	}
	lf := &ix.leaves[first.l]
	return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(first.l)},
		reason: "identifier differs: evidence says " + lf.raw() + " at " + lf.ptr()}
}

// namedIDs returns the identifier-like fields in scope whose key the claim
// names (by a word of the key, or a concept of it), that keep says fit.
func (cx *claim) namedIDs(ids []idLeaf, keep func(idLeaf) bool) []idLeaf {
	var out []idLeaf
	for _, id := range ids {
		if !keep(id) || !cx.idInScope(id.l) {
			continue
		}
		if cx.namesKey(id) {
			out = append(out, id)
		}
	}
	return out
}

// idWords are key words that say a field is an identifier, not of what.
var idWords = langData.Set("id words")

// idOfOther reports whether identifier field id, named by the claim only
// through a word like "number", is another thing's: its key's other words
// are not the claim's, and the claim names an attribute the evidence does
// not know ("the gribruva number" beside zagra_number).
func (cx *claim) idOfOther(id idLeaf) bool {
	var other []string
	for _, w := range id.words {
		if !idWords[w] {
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
func (cx *claim) namesKey(id idLeaf) bool {
	if cx.namesKeyWord(id.words) {
		return true
	}
	for _, c := range cx.ix.leaves[id.l].own() {
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

func isASCIIAlnum(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

func allUpper(r []rune) bool {
	return !slices.ContainsFunc(r, func(c rune) bool { return c < 'A' || c > 'Z' })
}

func usedAny(used []bool, s, e int) bool {
	for i := s; i < e && i < len(used); i++ {
		if used[i] {
			return true
		}
	}
	return false
}
