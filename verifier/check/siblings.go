package check

import (
	"slices"
	"strings"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// Sibling fields of one kind. An object often holds two or more fields of
// the kind a claim states (two dates: due and filed; two amounts: a
// deposit and a credit limit, a total and its tax; a date and a day
// count). The field the claim's words chose is the claim's only when they
// name its key better than every such sibling's, by a margin: then a value
// it does not hold contradicts the claim. Otherwise the binding is
// ambiguous, and the claim is judged by the siblings together: a value one
// of them holds is supported when the claim names that one and unsupported
// when not; a value none holds is unsupported. Never contradicted by a
// field the claim did not choose.
//
// How well a claim names a key (nameScore) is read from the key's own
// concepts (units excepted: a unit says the kind, not which field of it)
// and from opposed qualifiers (words.txt [opposed qualifiers]: original
// and current, due and filed): a key holding one side of a pair that the
// claim states only the other side of is not the claim's, whatever else
// they share. Every dimension goes through siblingJudge: numbers (numcheck.go)
// and dates (timecheck.go).
//
// The same rule read from the other end (swapJudge): a field that holds
// the claimed value but that the claim does not name is not its support
// when the claim names a sibling instead, by the qualifier of the
// sibling's key when the holder's is the opposite ("closes at 13:00"
// beside window_start 13:00), or by spelling the sibling's key near the
// number ("9 confirmed" beside members 9, confirmed 7): the claim is
// about the sibling, and the sibling's value decides.

// bindMargin is the lead a field's name score must have over every
// sibling's for the claim to bind it (a field the claim names at all):
// strictly better named, a tie is ambiguous.
const bindMargin = 1

// opposedScore is the name score of a key whose qualifier the claim
// states the opposite of.
const opposedScore = -1000

// opposedQualifiers are words.txt's [opposed qualifiers] by pair: each
// pair's two sides, each a set of words (Latin words lower case; words of
// ideographs matched inside keys and claims).
var opposedQualifiers = func() [][2]map[string]bool {
	type pairSides struct {
		names []string
		words [2]map[string]bool
	}
	byPair := map[string]*pairSides{}
	var order []string
	for _, l := range evidence.LangData.Lines("opposed qualifiers") {
		pair, side, ok := strings.Cut(l.Name, ".")
		if !ok {
			panic("check: [opposed qualifiers] line " + l.Name + " names no side (pair.side)")
		}
		p := byPair[pair]
		if p == nil {
			p = &pairSides{}
			byPair[pair] = p
			order = append(order, pair)
		}
		i := slices.Index(p.names, side)
		if i < 0 {
			if len(p.names) == 2 {
				panic("check: [opposed qualifiers] pair " + pair + " has more than two sides")
			}
			i = len(p.names)
			p.names = append(p.names, side)
			p.words[i] = map[string]bool{}
		}
		for _, w := range l.Words {
			p.words[i][strings.ToLower(w)] = true
		}
	}
	out := make([][2]map[string]bool, 0, len(order))
	for _, pair := range order {
		if len(byPair[pair].names) != 2 {
			panic("check: [opposed qualifiers] pair " + pair + " has one side")
		}
		out = append(out, byPair[pair].words)
	}
	return out
}()

// sideHas reports whether side holds word w (a Latin word, stemmed too)
// or, for ideographs, whether s contains one of its ideograph words.
func sideHas(side map[string]bool, w string) bool {
	w = strings.ToLower(w)
	return side[w] || side[lang.Stem(w)]
}

// keySide returns, for each opposed pair, which side field l's key holds:
// 0 or 1, -1 for none (or both).
func keySide(ix *evidence.Index, l int32, pair [2]map[string]bool) int {
	k := evidence.LastToken(ix.Leaves[l].Ptr())
	has := [2]bool{}
	for i, side := range pair {
		for _, p := range lang.KeyParts(k) {
			if sideHas(side, p) {
				has[i] = true
			}
		}
		for w := range side {
			if r := []rune(w); len(r) > 0 && lang.IsCJK(r[0]) && strings.Contains(k, w) {
				has[i] = true
			}
		}
	}
	switch {
	case has[0] && !has[1]:
		return 0
	case has[1] && !has[0]:
		return 1
	}
	return -1
}

// keySidesOf is keySide of field l's key for each of opposedQualifiers,
// worked out once per key and answer (cx.keySides). One lookup a field:
// a claim ranked against thousands of fields asks for each of them.
func (cx *claim) keySidesOf(l int32) []int8 {
	k := evidence.LastToken(cx.ix.Leaves[l].Ptr())
	sides, ok := cx.keySides[k]
	if !ok {
		sides = make([]int8, len(opposedQualifiers))
		for i, pair := range opposedQualifiers {
			sides[i] = int8(keySide(cx.ix, l, pair))
		}
		cx.keySides[k] = sides
	}
	return sides
}

// claimSides returns which sides of pair the claim states.
func (cx *claim) claimSides(pair [2]map[string]bool) [2]bool {
	var has [2]bool
	for i, side := range pair {
		for j := range cx.words {
			if w := &cx.words[j]; !w.Cjk && sideHas(side, w.S) {
				has[i] = true
			}
		}
		for w := range side {
			if r := []rune(w); len(r) > 0 && lang.IsCJK(r[0]) && strings.Contains(string(cx.norm), w) {
				has[i] = true
			}
		}
		for _, c := range cx.concepts {
			if side[c] {
				has[i] = true // 现价 read as current
			}
		}
	}
	return has
}

// claimSidesOf is claimSides of opposedQualifiers[pi], worked out once per
// claim (cx.qualSides): every field the claim is ranked against asks again.
func (cx *claim) claimSidesOf(pi int) [2]bool {
	if cx.qualSides == nil {
		cx.qualSides = make([][2]bool, len(opposedQualifiers))
		for i, pair := range opposedQualifiers {
			cx.qualSides[i] = cx.claimSides(pair)
		}
	}
	return cx.qualSides[pi]
}

// opposed reports whether field l's key holds a qualifier whose opposite
// alone the claim states ("started at an original gravity" beside
// current_gravity; "filed" beside petition_due).
func (cx *claim) opposed(l int32) bool {
	opp, _ := cx.qualifiersOf(l)
	return opp
}

// statesQualifierOf reports whether the claim states a qualifier field l's
// key holds (its side of an opposed pair).
func (cx *claim) statesQualifierOf(l int32) bool {
	_, states := cx.qualifiersOf(l)
	return states
}

// qualifiersOf is opposed and statesQualifierOf of field l, from one look
// at its key's sides.
func (cx *claim) qualifiersOf(l int32) (opposed, states bool) {
	for pi, ks := range cx.keySidesOf(l) {
		if ks < 0 {
			continue
		}
		cs := cx.claimSidesOf(pi)
		if cs[1-ks] && !cs[ks] {
			opposed = true
		}
		if cs[ks] {
			states = true
		}
	}
	return opposed, states
}

// nameScore scores how well named (the claim's concepts for what it
// states, units left out) names field l's key: 2 for each of the key's own
// concepts named, -1 for each not (units excepted), opposedScore for a key
// of the opposite qualifier.
func (cx *claim) nameScore(l int32, named []string) int {
	opposed, states := cx.qualifiersOf(l)
	if opposed {
		return opposedScore
	}
	s := 0
	if states {
		s += 2 // "currently" beside current_temp_c
	}
	for _, c := range cx.ix.Leaves[l].Own() {
		switch {
		case unitKeyWord(c):
		case hasAny(named, c):
			s += 2
		default:
			s--
		}
	}
	return s
}

// unitKeyWord reports whether concept c of a key names its unit (weight_kg,
// amount_cents): the kind of the field, not which field of that kind.
func unitKeyWord(c string) bool {
	return evidence.UnitConcepts[c] || minorUnitWords[c] || evidence.LangData.UnitRefs("key units")[c] != nil
}

// minorUnitWords are units.txt's [minor units] words (cents, pence, fen).
var minorUnitWords = func() map[string]bool {
	m := map[string]bool{}
	for w := range evidence.LangData.Numbers("minor units") {
		m[w] = true
	}
	return m
}()

// namesAny reports whether named holds a concept of field l's key other
// than its unit.
func (cx *claim) namesAny(l int32, named []string) bool {
	if cx.statesQualifierOf(l) {
		return true
	}
	for _, c := range cx.ix.Leaves[l].Own() {
		if !unitKeyWord(c) && hasAny(named, c) {
			return true
		}
	}
	return false
}

// siblingJudge is the one place the sibling rule decides (see above):
// a ranking of best, the field the claim's words chose, and rivals, the
// other fields of its kind in its object, by nameScore. holds reports
// whether a field holds the claimed value (best does not); named are the
// claim's concepts for it. The top of the ranking is the claim's field
// when it is named at all and leads every field holding the value by
// bindMargin: then, if it is best, ok is false (best's value may
// contradict the claim), else the top contradicts it. A field holding
// the value that the top does not lead so is the binding's ambiguity:
// supported when the claim names that field, else unsupported.
func (cx *claim) siblingJudge(best int32, rivals []int32, holds func(int32) bool, named []string) (fact, bool) {
	ix := cx.ix
	if len(rivals) == 0 && !cx.opposed(best) {
		return fact{}, false
	}
	cands := append([]int32{best}, rivals...)
	scores := make([]int, len(cands))
	top, topNamed := opposedScore, false
	for i, l := range cands {
		scores[i] = cx.nameScore(l, named)
		top = max(top, scores[i])
	}
	var first int32 = -1
	for i, l := range cands {
		if scores[i] == top && top > opposedScore {
			if first < 0 {
				first = l
			}
			topNamed = topNamed || cx.namesAny(l, named)
		}
	}
	for i, l := range cands {
		if !holds(l) || scores[i] == opposedScore {
			continue
		}
		if topNamed && top-scores[i] >= bindMargin {
			continue // a field the claim names worse holds the value
		}
		if cx.namesAny(l, named) {
			return supported(ix, "value matches a field the claim names", l), true
		}
		return fact{verdict: events.VerdictUnsupported, weak: true,
			reason: "the value is at " + ix.Leaves[l].Ptr() + ", a field of the same kind as " + ix.Leaves[best].Ptr() + " that the claim names no worse"}, true
	}
	switch {
	case first < 0:
		return fact{verdict: events.VerdictUnsupported, weak: true,
			reason: ix.Leaves[best].Ptr() + " holds the other of what the claim names"}, true
	case first == best || scores[0] == top || !topNamed:
		return fact{}, false
	}
	return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(first)},
		reason: "evidence says " + ix.Leaves[first].Raw() + " at " + ix.Leaves[first].Ptr() + ", the field of its kind the claim names"}, true
}

// numKind is the kind of a numeric field for the sibling rule: the
// dimension of its unit, else its own.
func numKind(lf *evidence.Leaf) evidence.Dimension {
	if u := lf.Unit(); u != nil {
		return u.Dim
	}
	return lf.Dim
}

// numRivals returns the other numeric fields of best's object of best's
// kind, or of no known kind (no number inside a text, no field naming the
// object).
func (cx *claim) numRivals(best int32) []int32 {
	ix := cx.ix
	bl := &ix.Leaves[best]
	if bl.Node < 0 || bl.Text {
		return nil
	}
	nd := &ix.Nodes[bl.Node]
	var out []int32
	for l := nd.LeafLo; l < nd.LeafHi; l++ {
		lf := &ix.Leaves[l]
		if l == best || lf.Node != bl.Node || lf.Kind != evidence.KindNum || lf.Text || lf.Scaled || lf.SubjKey || numKind(lf) != numKind(bl) && numKind(lf) != evidence.DimNone {
			continue
		}
		if evidence.LastToken(lf.Ptr()) == evidence.LastToken(bl.Ptr()) {
			continue // a copy of best (a scaled or text reading)
		}
		out = append(out, l)
	}
	return out
}

// inclusionWords are words.txt's [inclusion words]: "$480 including tax".
var inclusionWords = evidence.LangData.Set("inclusion words")

// includedConcepts returns the concepts the claim names only after an
// inclusion word that follows number m ("comes to $480 including tax":
// tax; 共计 318 元（含税）: 税): a part of the number, not its field.
func (cx *claim) includedConcepts(m *evidence.NumMention) []string {
	at := -1
	for i := range cx.words {
		if w := &cx.words[i]; w.Start >= m.End && !w.Cjk && inclusionWords[strings.ToLower(w.S)] {
			at = w.End
			break
		}
	}
	if at < 0 {
		norm := string(cx.norm[min(m.End, len(cx.norm)):])
		for w := range inclusionWords {
			if r := []rune(w); len(r) == 0 || !lang.IsCJK(r[0]) {
				continue
			}
			if i := strings.Index(norm, w); i >= 0 {
				if p := m.End + len([]rune(norm[:i])) + len([]rune(w)); at < 0 || p < at {
					at = p
				}
			}
		}
	}
	if at < 0 {
		return nil
	}
	before := cx.conceptsIn(0, at)
	var out []string
	for _, c := range cx.conceptsIn(at, len(cx.norm)) {
		if !hasAny(before, c) {
			out = append(out, c)
		}
	}
	return out
}

// comparedConcepts returns the concepts of the noun right after a bound
// word (over, under, 超过) before number m that does not bound m ("came in
// under budget at $2,500": the budget is what the number is compared
// with, not its field).
func (cx *claim) comparedConcepts(m *evidence.NumMention) []string {
	if m.Bound != 0 {
		return nil
	}
	const bounds = evidence.CueGT | evidence.CueGE | evidence.CueLT | evidence.CueLE
	var out []string
	for i := 0; i+1 < len(cx.words); i++ {
		w, n := &cx.words[i], &cx.words[i+1]
		if n.End > m.Start || w.Cjk || n.Cjk || w.Cues()&bounds == 0 || n.Cues()&(evidence.CueStop|bounds) != 0 || lang.IsAllDigits(n.S) {
			continue
		}
		if n.Info != nil {
			out = append(out, n.Info.Concepts...)
		} else {
			out = append(out, evidence.WordConcepts(n.S)...)
		}
	}
	return out
}

// dateSiblings applies the sibling rule to a claimed date that first, the
// best named date target, does not hold: the other date targets of
// first's object (dates and day counts) are its rivals.
func (cx *claim) dateSiblings(te *evidence.TimeExpr, first *evidence.DateTarget, targets []evidence.DateTarget, concepts []string) (fact, bool) {
	ix := cx.ix
	if len(first.Leaves) != 1 {
		return fact{}, false
	}
	best := first.Leaves[0]
	node := ix.Leaves[best].Node
	var rivals []int32
	holding := map[int32]bool{}
	for i := range targets {
		t := &targets[i]
		if len(t.Leaves) != 1 || t.Leaves[0] == best || ix.Leaves[t.Leaves[0]].Node != node {
			continue
		}
		rivals = append(rivals, t.Leaves[0])
		if v, ok := evidence.DayHolds(te, t); ok && v == events.VerdictSupported {
			holding[t.Leaves[0]] = true
		}
	}
	if len(rivals) == 0 {
		return fact{}, false
	}
	return cx.siblingJudge(best, rivals, func(l int32) bool { return holding[l] }, concepts)
}

// swapJudge applies the sibling rule to field l that holds the claimed
// value (at rune offsets span), against rivals, the other fields of its
// kind in its object. l stays the claim's field when the claim names it
// (a concept of its key, or a word spelling a part of it near the value).
// Otherwise a sibling may be the claim's: the one field, better than every
// other sibling, whose key's qualifier the claim states when l's is its
// opposite ("the window closes at 13:00" beside window_start 13:00 and
// window_end 16:00), or whose key the claim's words spell whole near the
// value ("the bass section has 9 confirmed" beside members 9 and
// confirmed 7), in the value's dimension (fits). Then the claim is about
// that field, not l: supported when it holds the value too, else
// contradicted by it, since equality with a field the claim does not name
// is no support. A field of the opposite qualifier with no sibling so
// named supports nothing (unsupported). ok is false when l stays the
// claim's field.
func (cx *claim) swapJudge(span [2]int, l int32, rivals []int32, holds, fits func(int32) bool, named []string) (fact, bool) {
	ix := cx.ix
	if len(rivals) == 0 {
		return fact{}, false
	}
	opp := cx.opposed(l)
	if !opp && (cx.namesAny(l, named) || cx.spellsPart(l, span)) {
		return fact{}, false
	}
	sl := cx.nameScore(l, named)
	// A sibling is the claim's by its qualifier when l is opposed, by its
	// spelled key otherwise (a concept alone is too weak a naming to
	// overrule the field holding the value).
	score := func(f int32) (int, bool) {
		s := cx.nameScore(f, named)
		if s == opposedScore {
			return s, false
		}
		spelled := fits(f) && cx.spellsKey(f, span)
		if spelled {
			s += 2
		}
		return s, spelled || opp && (cx.statesQualifierOf(f) || cx.namesAny(f, named))
	}
	top, at, tie := sl, int32(-1), false
	for _, r := range rivals {
		s, ok := score(r)
		switch {
		case !ok:
		case s > top || at < 0 && s >= top:
			top, at, tie = s, r, false
		case s == top:
			tie = true
		}
	}
	if at < 0 || tie || top-sl < bindMargin {
		if opp {
			return fact{verdict: events.VerdictUnsupported, weak: true,
				reason: "the value is at " + ix.Leaves[l].Ptr() + ", whose qualifier is the other of what the claim names"}, true
		}
		return fact{}, false
	}
	if holds(at) {
		return supported(ix, "value matches the field of its kind the claim names", at), true
	}
	return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(at)},
		reason: "evidence says " + ix.Leaves[at].Raw() + " at " + ix.Leaves[at].Ptr() + ", the field of its kind the claim names; the value is " + ix.Leaves[l].Ptr() + "'s"}, true
}

// spellsKey reports whether the claim's words nearer the value at span
// (rune offsets) than any other number of the claim spell field l's key
// whole: "4 confirmed singers out of 6" spells confirmed for the 4, not
// the 6. Units aside; a key of a part in ideographs or digits is spelled
// by no word.
func (cx *claim) spellsKey(l int32, span [2]int) bool {
	n, all := cx.spelledParts(l, span)
	return all && n > 0
}

// spellsPart reports whether the claim's words near the value at span
// spell a part of field l's key (units aside): "of 20 points" names
// points_possible as well as points.
func (cx *claim) spellsPart(l int32, span [2]int) bool {
	n, _ := cx.spelledParts(l, span)
	return n > 0
}

// spelledParts counts the parts of field l's key (units aside) that a
// word of the claim nearer span than any other number spells (stemmed
// alike, a hyphenated pair joined: e-bikes spells ebikes; a word after
// per is a rate's denominator and spells nothing), and whether every
// part is spelled.
func (cx *claim) spelledParts(l int32, span [2]int) (int, bool) {
	n, all := 0, true
	for _, p := range lang.KeyParts(evidence.LastToken(cx.ix.Leaves[l].Ptr())) {
		p = strings.ToLower(p)
		if r := []rune(p); len(r) == 0 || lang.IsCJK(r[0]) || lang.IsAllDigits(p) {
			return n, false
		}
		if unitKeyWord(p) || evidence.UnitConcepts[p] {
			continue
		}
		if cx.spells(p, span) {
			n++
		} else {
			all = false
		}
	}
	return n, all
}

// spells reports whether a word of the claim near span spells key part p
// (not one after an inclusion word that follows the number: "$480
// including tax" spells no tax for the 480; nor one right after per or a
// bound word: "under budget" names what the number is compared with).
func (cx *claim) spells(p string, span [2]int) bool {
	sp := lang.Stem(p)
	same := func(s string) bool { s = strings.ToLower(s); return s == p || lang.Stem(s) == sp }
	for i := range cx.words {
		w := &cx.words[i]
		if !w.Cjk && w.Start >= span[1] && inclusionWords[strings.ToLower(w.S)] {
			break
		}
		if w.Cjk || i > 0 && (cx.words[i-1].S == "per" || cx.words[i-1].Cues()&(evidence.CueGT|evidence.CueGE|evidence.CueLT|evidence.CueLE) != 0) || !cx.nearestTo(w, span) {
			continue
		}
		if same(w.S) {
			return true
		}
		if i+1 < len(cx.words) {
			if x := &cx.words[i+1]; !x.Cjk && x.Start == w.End+1 && w.End < len(cx.norm) && cx.norm[w.End] == '-' && same(w.S+x.S) {
				return true
			}
		}
	}
	return false
}

// nearestTo reports whether word w is nearer span than every number of
// the claim outside it, a free one too ("$348 with free shipping": shipping
// is the free one's), ties going to span.
func (cx *claim) nearestTo(w *evidence.Cword, span [2]int) bool {
	dist := func(s, e int) int {
		switch {
		case w.End <= s:
			return s - w.End
		case w.Start >= e:
			return w.Start - e
		}
		return 0
	}
	d := dist(span[0], span[1])
	for i := range cx.nums {
		if n := &cx.nums[i]; (n.End <= span[0] || n.Start >= span[1]) && dist(n.Start, n.End) < d {
			return false
		}
	}
	return true
}
