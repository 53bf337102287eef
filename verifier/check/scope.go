package check

import (
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// scope is what a claim is about.
type scope struct {
	scoped bool    // false: all the evidence
	nodes  []int32 // the objects the claim is about, when scoped
	before []int32 // nodes before narrowing to the claim's date
	evidence.Subjects
	own  bool // the claim names its subjects itself
	soft bool // inherited through a pronoun from the sentence before: a guess
	// rowUnnamed: the claim counts a noun no array's rows are named by
	// ("the third pitch" beside rows of throws): nothing contradicts it.
	rowUnnamed bool
	// rowNoun: the concepts of the noun an ordinal counted the claim's
	// row by (week of "the fourth week"): they name the row, not what
	// the claim's numbers measure.
	rowNoun []string
	// labelAt: the runes of the number fieldLabel read as a label ("Lot
	// 14"): rowNoun names it, as its own field, and no other number.
	labelAt [2]int
	// attrs: fields of other rows whose values the claim names of the row
	// it names by its own name (West, the region of another office).
	attrs []int32
}

// newScope scopes a reading: to the subjects it names; a clause without a
// subject of its own continues the one before it in the sentence ("Item A
// costs $5 and has 12 in stock"), and a pronoun continues the previous
// claim; then to the day the claim names.
func newScope(ix *evidence.Index, rd *reading, prev *after, buf *readBuffers) scope {
	named, nodes, attrs := ownNamed(ix, rd, buf)
	sc := scope{Subjects: named, nodes: nodes, attrs: attrs}
	if len(named.Groups) > 0 {
		sc.scoped, sc.own = true, true
	} else if row, span, label, ok := rowByLabel(ix, rd); ok {
		sc.scoped, sc.own = true, true
		sc.nodes = []int32{row}
		sc.Groups, sc.Names, sc.Spans = [][]int32{{row}}, []string{""}, [][2]int{span}
		sc.rowNoun = label
	} else if row, om, pick := rowByOrdinal(ix, rd); pick == ordinalRow || pick == ordinalMissed {
		sc.scoped, sc.own = true, true
		sc.nodes = []int32{row}
		sc.Groups, sc.Names, sc.Spans = [][]int32{{row}}, []string{""}, [][2]int{om.span}
		sc.rowNoun = om.noun
		if pick == ordinalMissed {
			sc.nodes, sc.Groups[0] = []int32{}, []int32{} // a row the evidence does not single out: nothing in scope
		}
	} else if row, name, at, ok := rowByValue(ix, rd); ok && (prev == nil || !prev.scope.scoped || prev.endsSentence && !rd.pronounBefore(at)) {
		// A row named by a value is the claim's own unless the claim
		// continues the sentence before, or a pronoun before that value
		// takes the row the sentence before named ("It ships with DHL"):
		// "Bravo 14 took its patient there" names Bravo 14's row, and a new
		// sentence naming another row's value is about that row.
		sc.scoped, sc.own = true, true
		sc.nodes = []int32{row}
		sc.Groups, sc.Names, sc.Spans = [][]int32{{row}}, []string{name}, [][2]int{{-1, -1}}
	} else {
		sc.rowUnnamed = pick == ordinalUnbound
	}
	sc.labelAt = [2]int{-1, -1}
	if len(sc.rowNoun) == 0 {
		sc.rowNoun, sc.labelAt = fieldLabel(ix, rd)
	}
	ranges := rd.cues&(evidence.CueUniversal|evidence.CueExistential) != 0 // "some stores": its own set
	if prev != nil && prev.scope.scoped && (!prev.endsSentence || rd.cues&evidence.CuePronoun != 0 && !ranges) {
		ps := &prev.scope
		switch {
		case len(sc.Groups) == 0:
			sc.scoped = true
			sc.soft = prev.endsSentence // a pronoun across sentences may mean something else
			sc.Groups, sc.Names = ps.Groups, ps.Names
			// Named in the claim before, not in this one.
			sc.Spans = make([][2]int, len(ps.Groups))
			for i := range sc.Spans {
				sc.Spans[i] = [2]int{-1, -1}
			}
			if len(rd.times) > 0 {
				sc.nodes = ps.before
			} else {
				sc.nodes = ps.nodes
			}
		case len(sc.Groups) == 1 && len(ps.Groups) > 0 && rd.cues&(evidence.CueThan|evidence.CueDerive|evidence.CueMore|evidence.CueLess) != 0:
			// "It improves BLEU by 4.1 over the baseline", "，比蒙牛贵 5.1
			// 元": the other side of the comparison was named before.
			var other evidence.Subjects
			var nodes []int32
			for i, g := range ps.Groups {
				if !slices.Equal(g, sc.Groups[0]) {
					other.Groups = append(other.Groups, g)
					other.Names = append(other.Names, ps.Names[i])
					other.Spans = append(other.Spans, [2]int{-1, -1})
					nodes = append(nodes, g...)
				}
			}
			sc.Groups = append(other.Groups, sc.Groups...)
			sc.Names = append(other.Names, sc.Names...)
			sc.Spans = append(other.Spans, sc.Spans...)
			sc.nodes = ix.MostSpecific(append(nodes, sc.nodes...))
		}
	}
	sc.before = sc.nodes
	sc.narrowByDate(ix, rd.times)
	return sc
}

// holds reports whether leaf l is about the scope's subjects: inside one
// of them, or a field of an object enclosing one (the order a line item
// belongs to, the msrp next to a list of offers).
func (sc *scope) holds(ix *evidence.Index, l int32) bool {
	if !sc.scoped {
		return true
	}
	for _, n := range sc.nodes {
		if ix.InNode(l, n) {
			return true
		}
	}
	if ln := ix.Leaves[l].Node; ln >= 0 {
		for _, n := range sc.nodes {
			if ix.AncestorOf(ln, n) {
				return true
			}
		}
	}
	return false
}

// holdsNode reports whether node n lies inside the scope.
func (sc *scope) holdsNode(ix *evidence.Index, n int32) bool {
	if !sc.scoped {
		return true
	}
	for _, s := range sc.nodes {
		if ix.AncestorOf(s, n) {
			return true
		}
	}
	return false
}

// inSubject reports whether leaf l lies inside one of the scope's objects
// (not merely in an enclosing object).
func (sc *scope) inSubject(ix *evidence.Index, l int32) bool {
	if !sc.scoped {
		return false
	}
	for _, n := range sc.nodes {
		if ix.InNode(l, n) {
			return true
		}
	}
	return false
}

// narrowByDate keeps, of a collection of dated objects (a forecast, a
// list of bookings), the ones on the day the claim names.
func (sc *scope) narrowByDate(ix *evidence.Index, times []evidence.TimeExpr) {
	if len(times) == 0 {
		return
	}
	var keep []int32
	other := false
	for _, l := range ix.Dates {
		if !sc.holds(ix, l) {
			continue
		}
		lf := &ix.Leaves[l]
		t := evidence.DateTarget{Lo: lf.Day, Hi: lf.Day}
		hit := false
		for i := range times {
			te := times[i]
			te.Bound = 0
			if v, ok := evidence.DayHolds(&te, &t); ok && v == events.VerdictSupported && len(te.Days) > 0 {
				hit = true
			}
		}
		if !hit {
			other = true
			continue
		}
		n := lf.Node
		if n >= 0 && ix.Nodes[n].Parent >= 0 && ix.Nodes[ix.Nodes[n].Parent].ObjKids >= 2 {
			keep = append(keep, n)
		}
	}
	if len(keep) > 0 && other {
		evidence.SortUnique(&keep)
		sc.nodes, sc.scoped = keep, true
	}
}

// targets returns the leaves in scope whose own key names one of concepts
// and that pass keep, best score first (only the best tier): of the
// first fieldsWeighedMax such leaves in document order.
func (cx *claim) targets(concepts []string, keep func(*evidence.Leaf) bool) []int32 {
	ix := cx.ix
	var cands []int32
	for _, c := range concepts {
		n := 0
		for _, l := range cx.inScopeOf(ix.Concept(c)) {
			if n == fieldsWeighedMax {
				break // NB: the union's first fieldsWeighedMax are among each concept's first
			}
			lf := &ix.Leaves[l]
			if keep(lf) && overlap(concepts, lf.Own()) > 0 {
				cands = append(cands, l)
				n++
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	evidence.SortUnique(&cands)
	if len(cands) > fieldsWeighedMax {
		cands = cands[:fieldsWeighedMax]
	}
	if slices.ContainsFunc(cands, cx.inSubject) {
		// The subject's own fields come before those of an enclosing
		// object: "the frothers cost $35.50" is about their unit price.
		cands = slices.DeleteFunc(cands, func(l int32) bool { return !cx.inSubject(l) })
	}
	// Each candidate scored once, the concepts' rarity read once.
	bonus := dfBonuses(concepts, ix)
	scores := make([]int, len(cands))
	best := -1
	for i, l := range cands {
		scores[i] = attrScoreDF(concepts, &ix.Leaves[l], bonus)
		best = max(best, scores[i])
	}
	out := cands[:0]
	own := false
	for i, l := range cands {
		if scores[i] == best {
			out = append(out, l)
			own = own || cx.inSubject(l)
		}
	}
	if own {
		// A field of the subject itself beats one of an enclosing object.
		out = slices.DeleteFunc(out, func(l int32) bool { return !cx.inSubject(l) })
	}
	return out
}

// scopeLeaves returns the leaves in scope that pass keep.
func (cx *claim) scopeLeaves(keep func(*evidence.Leaf) bool) []int32 {
	ix := cx.ix
	var out []int32
	for _, n := range cx.nodes {
		nd := &ix.Nodes[n]
		for l := nd.LeafLo; l < nd.LeafHi; l++ {
			if keep(&ix.Leaves[l]) {
				out = append(out, l)
			}
		}
	}
	evidence.SortUnique(&out)
	return out
}

// overlap counts the elements of b that are in a.
func overlap(a, b []string) int {
	n := 0
	for _, x := range b {
		if slices.Contains(a, x) {
			n++
		}
	}
	return n
}

// attrScore scores how well a leaf's keys name what the claim talks about:
// its own key counts most, enclosing keys less, and enclosing keys the
// claim does not mention count against it.
func attrScore(concepts []string, lf *evidence.Leaf) int { return attrScoreDF(concepts, lf, nil) }

// dfBonuses returns what each of concepts adds to a leaf's score when its
// own key names it (attrScoreDF): 2 for a concept one leaf of ix names, 1
// for one that two or three do.
func dfBonuses(concepts []string, ix *evidence.Index) []int {
	bonus := make([]int, len(concepts))
	for i, c := range concepts {
		switch df := len(ix.Concept(c)); {
		case df == 1:
			bonus[i] = 2
		case df <= 3:
			bonus[i] = 1
		}
	}
	return bonus
}

// attrScoreDF is attrScore with rare concepts weighing more (bonus, of
// dfBonuses, when not nil): of "总金额" (total, price), the one field
// named total beats the many prices.
func attrScoreDF(concepts []string, lf *evidence.Leaf, bonus []int) int {
	own := overlap(concepts, lf.Own())
	ctx := overlap(concepts, lf.Ctx())
	s := 4*own + 2*ctx
	if bonus != nil {
		for _, c := range lf.Own() {
			if i := slices.Index(concepts, c); i >= 0 {
				s += bonus[i]
			}
		}
	}
	if own > 0 {
		if len(lf.Ctx()) > ctx {
			s--
		}
		extra := 0
		for _, c := range lf.Own() {
			if !slices.Contains(concepts, c) && !evidence.UnitConcepts[c] {
				extra++
			}
		}
		s -= min(extra, 2)
	}
	return s
}

func sortStable[T any](s []T, less func(a, b T) bool) {
	slices.SortStableFunc(s, func(a, b T) int {
		switch {
		case less(a, b):
			return -1
		case less(b, a):
			return 1
		}
		return 0
	})
}

// rangesFollow reports whether the leaves of the scope's objects are
// ranges that follow one another, in order.
func (cx *claim) rangesFollow() bool {
	var end int32
	for _, n := range cx.nodes {
		nd := &cx.ix.Nodes[n]
		if nd.LeafLo < end {
			return false
		}
		end = nd.LeafHi
	}
	return true
}

// inScopeOf returns the leaves of list (ascending) that are in scope, in
// order: those inside a scope object, found by binary search, and the
// direct fields of the objects enclosing one. It is a filter of list by
// inScope that reads only what may be in scope. The result may share
// list's memory; callers only read it.
func (cx *claim) inScopeOf(list []int32) []int32 {
	if !cx.scoped || len(list) == 0 {
		return list
	}
	ix := cx.ix
	direct := ix.DirectLeaves()
	var out []int32
	ordered := true // the objects' ranges follow one another
	var end int32
	if len(cx.nodes) >= 8 && cx.rangesFollow() {
		// Many objects (the 68 products of one warehouse): one walk of the
		// list, not two searches an object.
		pos := 0
		for _, n := range cx.nodes {
			nd := &ix.Nodes[n]
			for pos < len(list) && list[pos] < nd.LeafLo {
				pos++
			}
			from := pos
			for pos < len(list) && list[pos] < nd.LeafHi {
				pos++
			}
			out = append(out, list[from:pos]...)
		}
	} else {
		for _, n := range cx.nodes {
			nd := &ix.Nodes[n]
			lo, _ := slices.BinarySearch(list, nd.LeafLo)
			hi, _ := slices.BinarySearch(list, nd.LeafHi)
			if len(cx.nodes) == 1 {
				out = list[lo:hi:hi]
			} else {
				out = append(out, list[lo:hi]...)
			}
			ordered = ordered && nd.LeafLo >= end
			end = max(end, nd.LeafHi)
		}
	}
	// The fields of the objects enclosing a scope object (a node's own
	// fields are in its range).
	var more []int32
	var seen [16]int32 // enclosing objects already read (scope objects share theirs)
	nseen := 0
	for _, n := range cx.nodes {
	up:
		for a := ix.Nodes[n].Parent; a >= 0; a = ix.Nodes[a].Parent {
			for _, s := range seen[:nseen] {
				if s == a {
					break up // and so are the ones enclosing it
				}
			}
			if nseen < len(seen) {
				seen[nseen] = a
				nseen++
			}
			for _, l := range direct.Of(a) {
				if _, ok := slices.BinarySearch(list, l); ok {
					more = append(more, l)
				}
			}
		}
	}
	if len(more) == 0 && ordered {
		return out // ascending, each once
	}
	out = append(slices.Clip(out), more...)
	evidence.SortUnique(&out)
	return out
}

// rowByLabel returns the row of an array a claim that names no subject
// labels by a number written after the word of the row's field ("Pallet 3
// weighs 412 kg", "tooth 14" beside rows of pallet or tooth numbers), or
// by a year beside rows of years ("the 2022 yield"): the one row of all arrays whose field of that word holds the
// number, among two rows or more whose values of it differ. Such a claim
// is about that row, not the first; "has 2 bedrooms" (the word after the
// number) labels nothing. The label's concepts are returned: they name
// the row, not what the claim's other numbers measure.
func rowByLabel(ix *evidence.Index, rd *reading) (int32, [2]int, []string, bool) {
	var found int32 = -1
	var span [2]int
	var by []string
	for i := range rd.nums {
		m := &rd.nums[i]
		if m.Unit != nil || m.IsRange || m.Bound != 0 || m.V != float64(int64(m.V)) || m.Start <= 0 {
			continue
		}
		label := rd.labelWord(m)
		if len(label) == 0 && yearLike(strconv.FormatFloat(m.V, 'f', -1, 64)) {
			label = yearConcepts // "the 2022 yield" beside rows of years
		}
		if len(label) == 0 {
			continue
		}
		for _, a := range ix.Arrays {
			row, ok := labelledRow(ix, a, label, m.V)
			if !ok {
				continue
			}
			if found >= 0 && found != row {
				return -1, span, nil, false // two rows: no label
			}
			found, span, by = row, [2]int{m.Start, m.End}, label
		}
	}
	return found, span, by, found >= 0
}

// labelWord returns the concepts of the word that may label number m: the
// word just before it ("Pallet 3", "floor 2") or, after 第, the noun after
// it (第3批); nil when there is none.
func (rd *reading) labelWord(m *evidence.NumMention) []string {
	var label []string
	for j := len(rd.words) - 1; j >= 0; j-- {
		w := &rd.words[j]
		if w.End <= m.Start {
			if m.Start-w.End <= 1 {
				label = rd.conceptsIn(w.Start, w.End)
			}
			break
		}
	}
	if rd.norm[m.Start-1] == '第' {
		for j := range rd.words {
			if w := &rd.words[j]; w.Start == m.End {
				label = rd.conceptsIn(w.Start, w.End)
				break
			}
		}
	}
	return label
}

// fieldLabel returns the concepts of a word a claim labels something by
// with a number written after it ("Lot 14", "Line 4", "floor 2") and
// where that number is, when a numeric field the word names wholly (its
// key names nothing else) holds that number: the number names a thing, as
// rowByLabel's does, whether or not the claim names its row otherwise,
// and the word is its name, not what the claim's other numbers measure
// ("Lot 14 was eight steers": eight is no lot).
func fieldLabel(ix *evidence.Index, rd *reading) ([]string, [2]int) {
	for i := range rd.nums {
		m := &rd.nums[i]
		if m.Unit != nil || m.IsRange || m.Bound != 0 || m.V != float64(int64(m.V)) || m.Start <= 0 {
			continue
		}
		label := rd.labelWord(m)
		if len(label) == 0 {
			continue
		}
		vals, _ := ix.NumValues()
		lo := sort.SearchFloat64s(vals, m.V)
		for i := lo; i < len(vals) && vals[i] == m.V && i-lo < labelLeavesMax; i++ {
			lf := &ix.Leaves[ix.Nums[i]]
			if !lf.Text && len(lf.Own()) > 0 && !slices.ContainsFunc(lf.Own(), func(c string) bool { return !slices.Contains(label, c) }) {
				return label, [2]int{m.Start, m.End}
			}
		}
	}
	return nil, [2]int{-1, -1}
}

// labelLeavesMax bounds the fields fieldLabel weighs for one number: the
// first of those holding it, by value order.
const labelLeavesMax = 256

// yearConcepts are the concepts of a key of years.
var yearConcepts = evidence.ConceptsOf("year")

// labelledRow returns the row of array a whose own numeric field named by
// concepts label holds v, when a has two rows or more and that field's
// values differ from row to row.
func labelledRow(ix *evidence.Index, a int32, label []string, v float64) (int32, bool) {
	nd := &ix.Nodes[a]
	var found int32 = -1
	seen := map[float64]bool{}
	rows := 0
	for l := nd.LeafLo; l < nd.LeafHi; l++ {
		lf := &ix.Leaves[l]
		if lf.Kind != evidence.KindNum || lf.Text || lf.Node < 0 || ix.Nodes[lf.Node].Parent != a || ix.Nodes[lf.Node].Array {
			continue
		}
		if overlap(lf.Own(), label) == 0 {
			continue
		}
		if seen[lf.Num] {
			return -1, false
		}
		seen[lf.Num] = true
		rows++
		if lf.Num == v {
			found = lf.Node
		}
	}
	return found, found >= 0 && rows >= 2
}

// rowByValue returns the row of an array that a claim naming no subject
// picks by a value only that row has in a field whose values differ from
// row to row ("The tank block has 18 cars" beside rows of type tank,
// hopper, intermodal): the claim is about that row, not the first. A value
// several rows share, or a category (a state, a level), picks none. Two
// such values of two fields that pick two rows of one array ("The final is
// on court 4", the final's row on court 2 and court 4 another round's)
// pair what the rows keep apart: the claim is about the row its first
// value picks, and the other value is what it says of that row (its
// field of that key decides it), unless the claim compares or counts
// rows. at is the first rune of the mention that picks the row.
func rowByValue(ix *evidence.Index, rd *reading) (int32, string, int, bool) {
	type pick struct {
		row, leaf int32
		at        int
	}
	var picks []pick
	for i, vm := range rd.values {
		var row int32 = -1
		for _, l := range vm {
			n := ix.Leaves[l].Node
			if n < 0 || row >= 0 && n != row {
				row = -2
				break
			}
			row = n
		}
		if row < 0 || !distinctInRows(ix, vm[0]) && !onlyInItsRow(ix, vm[0]) {
			continue
		}
		at := -1
		if i < len(rd.valueSpans) {
			at = rd.valueSpans[i][0]
		}
		picks = append(picks, pick{row, vm[0], at})
	}
	if len(picks) == 0 {
		return -1, "", -1, false
	}
	first := picks[0]
	for _, p := range picks[1:] {
		if p.row == first.row {
			continue
		}
		if len(picks) != 2 || p.at < 0 || first.at < 0 || ix.Nodes[p.row].Parent != ix.Nodes[first.row].Parent ||
			evidence.LastToken(ix.Leaves[p.leaf].Ptr()) == evidence.LastToken(ix.Leaves[first.leaf].Ptr()) ||
			rd.cues&(evidence.CueThan|evidence.CueMore|evidence.CueLess|evidence.CueMost|evidence.CueLeast|evidence.CueDerive|evidence.CueUniversal|evidence.CueExistential) != 0 {
			return -1, "", -1, false
		}
		if p.at < first.at {
			first = p
		}
	}
	return first.row, ix.Leaves[first.leaf].Str(), first.at, true
}

// pronounBefore reports whether a pronoun (it, its, 它, 该) comes before
// rune at of the claim, or anywhere when at is unknown (negative).
func (rd *reading) pronounBefore(at int) bool {
	if rd.cues&evidence.CuePronoun == 0 {
		return false
	}
	for i := range rd.words {
		if w := &rd.words[i]; w.Cues()&evidence.CuePronoun != 0 && (at < 0 || w.Start < at) {
			return true
		}
	}
	return false
}

// onlyInItsRow reports whether string leaf l, a short value (a word or
// two, not a category), is a field of a row of an
// array of three rows or more in which every row has that field, and no
// other row's field holds l's value ("Bo" beside tutors Ines, Bo, Ines):
// the value names its row though other rows share theirs.
func onlyInItsRow(ix *evidence.Index, l int32) bool {
	lf := &ix.Leaves[l]
	if lf.Kind != evidence.KindStr || lf.Text || lf.HasDay || len(lf.Cat()) > 0 || lf.Node < 0 {
		return false
	}
	v := lf.Str()
	if v == "" || len(strings.Fields(v)) > 2 {
		return false
	}
	a := ix.Nodes[lf.Node].Parent
	if a < 0 || !ix.Nodes[a].Array || ix.Nodes[a].ObjKids < 3 {
		return false
	}
	key := evidence.LastToken(lf.Ptr())
	has, same := 0, 0
	nd := &ix.Nodes[a]
	for k := nd.LeafLo; k < nd.LeafHi; k++ {
		o := &ix.Leaves[k]
		if o.Node < 0 || ix.Nodes[o.Node].Parent != a || o.Text || evidence.LastToken(o.Ptr()) != key {
			continue
		}
		has++
		if strings.EqualFold(o.Str(), v) {
			same++
		}
	}
	return same == 1 && has == ix.Nodes[a].ObjKids
}

// distinctInRows reports whether string leaf l is a field of a row of an
// array of two rows or more in which every row has that field, with values
// that differ from row to row.
func distinctInRows(ix *evidence.Index, l int32) bool {
	lf := &ix.Leaves[l]
	if lf.Kind != evidence.KindStr || lf.Text || lf.HasDay || len(lf.Cat()) > 0 || lf.Node < 0 {
		return false
	}
	a := ix.Nodes[lf.Node].Parent
	if a < 0 || !ix.Nodes[a].Array {
		return false
	}
	key := evidence.LastToken(lf.Ptr())
	seen := map[string]bool{}
	nd := &ix.Nodes[a]
	for k := nd.LeafLo; k < nd.LeafHi; k++ {
		o := &ix.Leaves[k]
		if o.Node < 0 || ix.Nodes[o.Node].Parent != a || o.Text || evidence.LastToken(o.Ptr()) != key {
			continue
		}
		v := strings.ToLower(o.Str())
		if seen[v] {
			return false
		}
		seen[v] = true
	}
	return len(seen) >= 2 && len(seen) == ix.Nodes[a].ObjKids
}
