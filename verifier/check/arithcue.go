package check

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// The default inverted for derived numbers. A claimed number
// is contradicted only when it is bound to one field by what the claim's
// words name and differs from it. Two kinds of number are not bound that
// way, whatever field is nearest:
//
//   - a number the claim says it computed: the number nearest an
//     arithmetic cue (words.txt's [arithmetic cues]: "in all", "a day",
//     "on average", "three points back", "twice", "18 days from", 一共,
//     每天, 平均, 倍). It is supported when a computation over the fields
//     the claim binds gives it (a sum, a difference, a product, a quotient
//     of two fields of its row) and unsupported otherwise, unless the
//     field's key states a value of the cue's kind ([arithmetic cue key
//     words]: total_litres, avg_score, gap, a rate's key), which decides
//     it as any field does;
//   - a number that sizes the rows or labels one: the second number of
//     "two of the three rinks", "once in eight games", 三人中 ([row size
//     joiners], [frequency words]), or a number right after a noun that
//     names a thing by it ("in pen 5", "at gate 3"; [label leads]). It
//     is the length of a list the claim names or unsupported, and a label
//     is compared only with a field its noun names.
//
// Nothing here names a domain: the rules read the claim's words and the
// keys of the fields, and the words are data.

// arithCue is one phrase of [arithmetic cues]: its kind (the line's name)
// and its runes, lower case, "_" read as a space.
type arithCue struct {
	kind   string
	phrase []rune
	cjk    bool
}

// arithCues are words.txt's [arithmetic cues], longest first (a_day before a).
var arithCues = func() []arithCue {
	var out []arithCue
	for _, l := range evidence.LangData.Lines("arithmetic cues") {
		for _, w := range l.Words {
			r := []rune(strings.ToLower(strings.ReplaceAll(w, "_", " ")))
			out = append(out, arithCue{kind: l.Name, phrase: r, cjk: lang.IsCJK(r[0])})
		}
	}
	slices.SortStableFunc(out, func(a, b arithCue) int { return len(b.phrase) - len(a.phrase) })
	return out
}()

// cueKeyWords are, by cue kind, the key words of a field that states a
// value of that kind itself (words.txt's [arithmetic cue key words]).
var cueKeyWords = func() map[string][]string {
	out := map[string][]string{}
	for _, l := range evidence.LangData.Lines("arithmetic cue key words") {
		out[l.Name] = append(out[l.Name], l.Words...)
	}
	return out
}()

// rowSizeJoiners, frequencyWords and labelLeads are words.txt's [row size
// joiners], [frequency words] and [label leads].
var (
	rowSizeJoinersEn = phraseList(evidence.LangData.Words("row size joiners", "en"))
	rowSizeJoinersZh = evidence.LangData.Words("row size joiners", "zh")
	frequencyWords   = evidence.LangData.Set("frequency words")
	labelLeads       = evidence.LangData.Set("label leads")
)

// phraseList reads "_" in each word as a space.
func phraseList(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = strings.ReplaceAll(w, "_", " ")
	}
	return out
}

// cueSpan is an arithmetic cue found in the claim, in runes of cx.norm.
type cueSpan struct {
	kind       string
	start, end int
	cjk        bool
}

// arithCueSpans returns the arithmetic cues the claim holds: a Latin
// phrase between word boundaries, a Chinese one anywhere; a rune is
// covered by one cue at most (the longest).
func (cx *claim) arithCueSpans() []cueSpan {
	r := cx.norm
	var out []cueSpan
	taken := func(s, e int) bool {
		return slices.ContainsFunc(out, func(c cueSpan) bool { return s < c.end && c.start < e })
	}
	for _, c := range arithCues {
		n := len(c.phrase)
		for i := 0; i+n <= len(r); i++ {
			if !slices.Equal(r[i:i+n], c.phrase) || taken(i, i+n) {
				continue
			}
			if !c.cjk && (i > 0 && isWordRune(r[i-1]) || i+n < len(r) && isWordRune(r[i+n])) {
				continue
			}
			out = append(out, cueSpan{kind: c.kind, start: i, end: i + n, cjk: c.cjk})
		}
	}
	return out
}

func isWordRune(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) }

// arithCueOf returns the kind of the arithmetic cue whose nearest number
// of the claim is m (by runes between them; of two as near, the one before
// a Latin cue, after a Chinese one), or "". A span cue ("from", 之后)
// governs a duration only.
func (cx *claim) arithCueOf(m *evidence.NumMention) string {
	for _, c := range cx.arithCueSpans() {
		best, bestD, bestBefore := -1, math.MaxInt, false
		for i := range cx.nums {
			n := &cx.nums[i]
			if n.Free || n.Start < c.end && c.start < n.End {
				continue // a number inside the cue (一天) is the cue's
			}
			d, before := 0, false
			switch {
			case n.End <= c.start:
				d, before = c.start-n.End, true
			case n.Start >= c.end:
				d = n.Start - c.end
			}
			if d < bestD || d == bestD && before != bestBefore && before != c.cjk {
				best, bestD, bestBefore = i, d, before
			}
		}
		if best < 0 || cx.nums[best].Start != m.Start || bestD > arithCueReach || !cx.cueAdjacent(c, m) {
			continue
		}
		if c.kind == "span" && (m.Unit == nil || m.Unit.Dim != evidence.DimTime) {
			continue
		}
		return c.kind
	}
	if cx.countBeside(m) {
		return "product"
	}
	return ""
}

// countBeside reports whether m, a measure in a unit (money, weight,
// volume, length), stands in a claim with another number that counts
// things ("56 bags … weigh 1.4 tonnes"): a product of the count and a
// field of one, or a total over the things, no value of the nearest field.
func (cx *claim) countBeside(m *evidence.NumMention) bool {
	if m.Unit == nil {
		return false
	}
	switch m.Unit.Dim {
	case evidence.DimNone, evidence.DimCount, evidence.DimPercent, evidence.DimTime, evidence.DimTemp:
		return false
	}
	for i := range cx.nums {
		if n := &cx.nums[i]; n.Start != m.Start && cx.countsSome(n) && !cx.cjkAfter(n) {
			return true // "seven valves", not 三块田 (a list's size)
		}
	}
	return false
}

// cueAdjacent reports whether cue c is next to number m: one word at most
// between them for a Latin cue ("451 species in all", "3 points back",
// not "1,381 have come back"), four runes for a Chinese one (一天运了252方).
func (cx *claim) cueAdjacent(c cueSpan, m *evidence.NumMention) bool {
	lo, hi := m.End, c.start
	if c.end <= m.Start {
		lo, hi = c.end, m.Start
	}
	if lo > hi || hi > len(cx.norm) {
		return true
	}
	between := cx.norm[lo:hi]
	if c.cjk {
		return len(between) <= 4
	}
	return len(strings.FieldsFunc(string(between), func(r rune) bool { return !isWordRune(r) })) <= 1
}

// arithCueReach is the most runes between a cue and the number it governs:
// "451 species in all", not a number a clause away.
const arithCueReach = 24

// cueKeyStates reports whether field lf's key states a value of cue kind
// itself (total_weight, avg_points, gap, a rate's key): it decides the
// number as any field does.
func cueKeyStates(lf *evidence.Leaf, kind string, m *evidence.NumMention) bool {
	switch kind {
	case "total":
		if keyStates(lf, derivedTotal) || keyStates(lf, derivedProduct) {
			return true
		}
	case "average":
		if keyStates(lf, derivedAverage) {
			return true
		}
	case "product":
		if keyStates(lf, derivedTotal) || keyStates(lf, derivedProduct) {
			return true
		}
	case "rate":
		if fieldRate(lf).is || m != nil && m.Unit != nil && m.Unit.Dim == evidence.DimCurrency && leafDim(lf) == evidence.DimCurrency {
			return true // a price a month is stated as a price
		}
	}
	key := strings.ToLower(evidence.LastToken(lf.Ptr()))
	toks := lang.KeyParts(key)
	for _, w := range cueKeyWords[kind] {
		if lang.IsCJK([]rune(w)[0]) && strings.Contains(key, w) || slices.ContainsFunc(toks, func(t string) bool { return strings.EqualFold(t, w) }) {
			return true
		}
	}
	return false
}

// rowSizing reports whether m sizes the rows ("two of the three", "once in
// eight games", 三人中) rather than stating a value.
func (cx *claim) rowSizing(m *evidence.NumMention) bool {
	if m.Unit != nil && m.Unit.Dim != evidence.DimCount || m.V != math.Trunc(m.V) || m.V < 2 || m.IsRange || m.Bound != 0 {
		return false
	}
	r := cx.norm
	if m.Start > 0 && m.Start <= len(r) {
		before := strings.TrimRight(string(r[max(0, m.Start-24):m.Start]), " ")
		for _, j := range rowSizeJoinersEn {
			if !strings.HasSuffix(before, " "+j) {
				continue
			}
			prev := strings.TrimRight(strings.TrimSuffix(before, j), " ")
			f := strings.FieldsFunc(prev, func(c rune) bool { return !isWordRune(c) })
			if len(f) == 0 {
				continue
			}
			last := f[len(f)-1]
			if frequencyWords[last] {
				return true
			}
			at := len([]rune(prev))
			off := m.Start - len([]rune(before))
			for i := range cx.nums {
				if n := &cx.nums[i]; n.Start != m.Start && n.End == off+at && n.V < m.V {
					return true
				}
			}
		}
	}
	if m.End < len(r) {
		after := r[m.End:min(len(r), m.End+4)]
		for _, j := range rowSizeJoinersZh {
			for skip := 0; skip <= 1 && skip < len(after); skip++ {
				if skip == 1 && !lang.IsCJK(after[0]) {
					break
				}
				if strings.HasPrefix(string(after[skip:]), j) {
					return true
				}
			}
		}
	}
	return false
}

// numberLabel returns the word a number labels a thing by ("pen" of "in
// pen 5", "gate" of "at gate 3"): a Latin word of three letters or more
// right before the number, itself after a label lead ([label leads]: in,
// on, at …) or first in the claim, the number whole, small and of no unit.
func (cx *claim) numberLabel(m *evidence.NumMention) string {
	if m.Unit != nil || m.MaybeUnit != nil || m.V != math.Trunc(m.V) || m.V < 0 || m.V > 999 || m.IsRange || m.Bound != 0 {
		return ""
	}
	var prev []*evidence.Cword
	for i := range cx.words {
		if w := &cx.words[i]; w.End <= m.Start {
			prev = append(prev, w)
		}
	}
	if len(prev) == 0 {
		return ""
	}
	w := prev[len(prev)-1]
	if w.Cjk || strings.TrimSpace(string(cx.norm[w.End:m.Start])) != "" || len(w.S) < 3 {
		return ""
	}
	s := strings.ToLower(w.S)
	if labelLeads[s] || classNouns[s] /* rowByLabel's and fieldLabel's */ || evidence.UnitOfValue(s) != nil || w.Info != nil && w.Info.Cues != 0 {
		return ""
	}
	for _, c := range s {
		if c > unicode.MaxASCII || !unicode.IsLetter(c) {
			return ""
		}
	}
	if len(prev) >= 2 && !labelLeads[strings.ToLower(prev[len(prev)-2].S)] {
		return ""
	}
	if len(prev) == 1 && strings.TrimSpace(string(cx.norm[:w.Start])) != "" {
		return ""
	}
	return s
}

// inverted returns f, a contradiction of m by field best, or what m is
// when it is not bound to best (see above): computed from the fields,
// the length of a list, or unsupported.
func (cx *claim) inverted(m *evidence.NumMention, targets []int32, best int32, f fact) fact {
	if f.verdict != events.VerdictContradicted {
		return f
	}
	ix := cx.ix
	if cx.rowSizing(m) {
		if g, ok := cx.count(m, append(append([]string(nil), cx.concepts...), m.Head...)); ok {
			return g
		}
		return fact{} // it sizes the rows the claim counts among: no value of best
	}
	if w := cx.numberLabel(m); w != "" && !keyHasWord(&ix.Leaves[best], w) && !slices.ContainsFunc(ix.Leaves[best].Own(), func(c string) bool { return slices.Contains(evidence.WordConcepts(w), c) }) {
		return fact{} // it labels a thing by w: no value of best
	}
	if limitKey(&ix.Leaves[best]) && !cx.namesLimit() {
		return fact{verdict: events.VerdictUnsupported, weak: true,
			reason: ix.Leaves[best].Ptr() + " is a limit or a target, the claim states a value"}
	}
	kind := cx.arithCueOf(m)
	if kind == "" || cueKeyStates(&ix.Leaves[best], kind, m) {
		return f
	}
	if kind == "total" && len(cx.nums) == 1 && cx.uniqueKey(best) {
		return f // "fuel came to £5,000" beside the one fuel field: it is bound
	}
	if s, ok := cx.rowStates(m, best, kind); ok {
		// gap beside points: the field of best's row that states a value
		// of the cue's kind is what the number is bound to.
		if cx.matchesLeaf(m, s) {
			return supported(ix, "value matches the field that states it", s)
		}
		return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(s)},
			reason: "evidence says " + ix.Leaves[s].Raw() + " at " + ix.Leaves[s].Ptr()}
	}
	if g, ok := cx.computed(m, targets); ok {
		return g
	}
	return fact{verdict: events.VerdictUnsupported, weak: true,
		reason: "the claim computes the number (" + kind + "); no computation over the fields it names gives it, and " + ix.Leaves[best].Ptr() + " does not state it"}
}

// computed looks for m as a computation over the fields the claim binds
// (targets) and their rows: a sum or difference of two, a difference with
// the same field of another row ("three points back"), a product or
// quotient of two fields of a row, a sum of products over rows, a field
// times a count the claim states.
func (cx *claim) computed(m *evidence.NumMention, targets []int32) (fact, bool) {
	ix := cx.ix
	if g, ok := cx.derived(m, targets, true); ok && g.verdict == events.VerdictSupported {
		return g, true
	}
	if len(targets) == 0 {
		// No field named: the numbers of the claim's scope and words, or
		// the first of its scope.
		targets = cx.derivedPool(m, nil)
		if len(targets) == 0 {
			for _, l := range cx.inScopeOf(ix.NumsInOrder()) {
				if len(targets) == derivedRowsMax {
					break
				}
				if dimFits(&ix.Leaves[l], m.Unit) {
					targets = append(targets, l)
				}
			}
		}
	}
	var room [8]cand
	ks := cx.c.candidates(room[:0], m, m.V)
	for i, t := range targets {
		if i == derivedRowsMax {
			break
		}
		for _, o := range cx.siblingsOf(t) {
			if cx.near(m, math.Abs(ix.Leaves[t].Num-ix.Leaves[o].Num), ks) {
				return supported(ix, "difference with another row's field", t, o), true
			}
		}
	}
	for _, dk := range [...]derivedKind{derivedProduct, derivedAverage, derivedNet} {
		if g, ok := cx.rowComputed(m, targets, dk); ok && g.verdict == events.VerdictSupported {
			return g, true
		}
	}
	if g, ok := cx.sumOfRowProducts(m, targets); ok {
		return g, true
	}
	return cx.productWithCount(m, targets)
}

// rowStates returns the field of best's row, other than best, whose key
// states a value of cue kind and whose unit fits m (gap beside points),
// or such a field of an enclosing object whose key has a word of best's
// (total_firings above the rows' firings).
func (cx *claim) rowStates(m *evidence.NumMention, best int32, kind string) (int32, bool) {
	ix := cx.ix
	bl := &ix.Leaves[best]
	if bl.Node < 0 {
		return 0, false
	}
	toks := lang.KeyParts(strings.ToLower(evidence.LastToken(bl.Ptr())))
	for p := bl.Node; p >= 0; p = ix.Nodes[p].Parent {
		for _, g := range ix.DirectLeaves().Of(p) {
			gl := &ix.Leaves[g]
			if g == best || gl.Kind != evidence.KindNum || gl.Text || !dimFits(gl, m.Unit) || !cueKeyStates(gl, kind, m) {
				continue
			}
			// In best's row any such field; above it, one whose key says
			// what best's does (total_firings above firings).
			if p == bl.Node || slices.ContainsFunc(toks, func(t string) bool { return len(t) >= 3 && keyHasWord(gl, t) }) {
				return g, true
			}
		}
	}
	return 0, false
}

// notAValue reports whether m labels a thing by a noun no field's key has
// ("in pen 5" where no key says pen) or sizes the rows ("two of the three
// rinks"): the number is no field's value, and is not compared with one.
func (cx *claim) notAValue(m *evidence.NumMention) bool {
	if cx.rowSizing(m) {
		return true
	}
	w := cx.numberLabel(m)
	if w == "" {
		return false
	}
	ix := cx.ix
	if len(ix.Concept(w)) > 0 || len(ix.ValueWords(w)) > 0 || len(ix.Concept(lang.Stem(w))) > 0 {
		return false // a key or a value says it ("Room 2"): the label is compared
	}
	for k, l := range cx.inScopeOf(ix.NumsInOrder()) {
		if k == fieldsWeighedMax {
			break
		}
		if keyHasWord(&ix.Leaves[l], w) {
			return false
		}
	}
	return true
}

// cjkAfter reports whether an ideograph follows number n (三块田).
func (cx *claim) cjkAfter(n *evidence.NumMention) bool {
	return n.End < len(cx.norm) && lang.IsCJK(cx.norm[n.End])
}

// countsSome reports whether claimed number n counts things: whole, 2 to
// 1000, of no unit but a count, no bound, range, label or size of rows
// ("seven valves", "56 bags", "三台").
func (cx *claim) countsSome(n *evidence.NumMention) bool {
	if n.Free || n.V < 2 || n.V > 1000 || n.V != math.Trunc(n.V) || n.Unit != nil && n.Unit.Dim != evidence.DimCount || n.MaybeUnit != nil || n.Bound != 0 || n.IsRange {
		return false
	}
	return (len(n.Head) > 0 || n.HeadWord != "") && cx.numberLabel(n) == "" && !cx.rowSizing(n)
}

// productWithCount looks for m as a field the claim binds (or any number
// field in its scope) times a number of the claim that counts things: "56
// bags weigh 1.4 tonnes" beside bag_kg 25.
func (cx *claim) productWithCount(m *evidence.NumMention, targets []int32) (fact, bool) {
	ix := cx.ix
	var room [8]cand
	ks := cx.c.candidates(room[:0], m, m.V)
	pool := cx.derivedPool(m, targets)
	for i := range cx.nums {
		n := &cx.nums[i]
		if n.Start == m.Start || !cx.countsSome(n) {
			continue
		}
		for _, l := range pool {
			if x := ix.Leaves[l].Num; x != 1 && cx.near(m, x*n.V, ks) {
				return supported(ix, "product of a field and a count the claim states", l), true
			}
		}
	}
	return fact{}, false
}

// limitKeyWords are words.txt's [limit key words]: a field whose key has
// one (arrival_limit_min, 时限) holds a limit or a target, not a value.
var limitKeyWords = evidence.LangData.Set("limit key words")

// limitKey reports whether field lf's key names a limit or a target: a
// Latin token of [limit key words], or one of its Chinese words inside it.
func limitKey(lf *evidence.Leaf) bool {
	key := strings.ToLower(evidence.LastToken(lf.Ptr()))
	for _, p := range lang.KeyParts(key) {
		if limitKeyWords[p] {
			return true
		}
	}
	for w := range limitKeyWords {
		if lang.IsCJK([]rune(w)[0]) && strings.Contains(key, w) {
			return true
		}
	}
	return false
}

// namesLimit reports whether the claim says a word of a limit or target
// ([limit key words] or [limit claim words]): a limit field may then be
// what it is about.
func (cx *claim) namesLimit() bool {
	for w := range limitKeyWords {
		if lang.IsCJK([]rune(w)[0]) && strings.Contains(string(cx.norm), w) {
			return true
		}
	}
	for _, w := range cx.words {
		s := strings.ToLower(w.S)
		if limitKeyWords[s] || limitClaimWords[s] || lang.Stem(s) != s && limitKeyWords[lang.Stem(s)] {
			return true
		}
	}
	for w := range limitClaimWords {
		if lang.IsCJK([]rune(w)[0]) && strings.Contains(string(cx.norm), w) {
			return true
		}
	}
	return false
}

// limitClaimWords are words.txt's [limit claim words]: a claim saying one
// states a limit ("within", 以内).
var limitClaimWords = evidence.LangData.Set("limit claim words")

// uniqueKey reports whether no other field of the evidence has field l's
// key: a field of no rows, which a total said of it can only be.
func (cx *claim) uniqueKey(l int32) bool {
	ix := cx.ix
	key := evidence.LastToken(ix.Leaves[l].Ptr())
	for o := range ix.Leaves {
		if int32(o) != l && ix.Leaves[o].Kind == evidence.KindNum && evidence.LastToken(ix.Leaves[o].Ptr()) == key {
			return false
		}
	}
	return true
}
