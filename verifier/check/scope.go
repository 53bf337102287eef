package check

import (
	"slices"

	"github.com/toolstream/toolstream/events"
)

// scope is what a claim is about.
type scope struct {
	scoped bool    // false: all the evidence
	nodes  []int32 // the objects the claim is about, when scoped
	before []int32 // nodes before narrowing to the claim's date
	subjects
	own  bool // the claim names its subjects itself
	soft bool // inherited through a pronoun from the sentence before: a guess
}

// newScope scopes a reading: to the subjects it names; a clause without a
// subject of its own continues the one before it in the sentence ("Item A
// costs $5 and has 12 in stock"), and a pronoun continues the previous
// claim; then to the day the claim names.
func newScope(ix *index, rd *reading, prev *after) scope {
	sc := scope{subjects: rd.named, nodes: rd.namedNodes}
	if len(rd.named.groups) > 0 {
		sc.scoped, sc.own = true, true
	}
	ranges := rd.cues&(cueUniversal|cueExistential) != 0 // "some stores": its own set
	if prev != nil && prev.scope.scoped && (!prev.endsSentence || rd.cues&cuePronoun != 0 && !ranges) {
		ps := &prev.scope
		switch {
		case len(sc.groups) == 0:
			sc.scoped = true
			sc.soft = prev.endsSentence // a pronoun across sentences may mean something else
			sc.groups, sc.names = ps.groups, ps.names
			// Named in the claim before, not in this one.
			sc.spans = make([][2]int, len(ps.groups))
			for i := range sc.spans {
				sc.spans[i] = [2]int{-1, -1}
			}
			if len(rd.times) > 0 {
				sc.nodes = ps.before
			} else {
				sc.nodes = ps.nodes
			}
		case len(sc.groups) == 1 && len(ps.groups) > 0 && rd.cues&(cueThan|cueDerive|cueMore|cueLess) != 0:
			// "It improves BLEU by 4.1 over the baseline", "，比蒙牛贵 5.1
			// 元": the other side of the comparison was named before.
			var other subjects
			var nodes []int32
			for i, g := range ps.groups {
				if !slices.Equal(g, sc.groups[0]) {
					other.groups = append(other.groups, g)
					other.names = append(other.names, ps.names[i])
					other.spans = append(other.spans, [2]int{-1, -1})
					nodes = append(nodes, g...)
				}
			}
			sc.groups = append(other.groups, sc.groups...)
			sc.names = append(other.names, sc.names...)
			sc.spans = append(other.spans, sc.spans...)
			sc.nodes = ix.mostSpecific(append(nodes, sc.nodes...))
		}
	}
	sc.before = sc.nodes
	sc.narrowByDate(ix, rd.times)
	return sc
}

// holds reports whether leaf l is about the scope's subjects: inside one
// of them, or a field of an object enclosing one (the order a line item
// belongs to, the msrp next to a list of offers).
func (sc *scope) holds(ix *index, l int32) bool {
	if !sc.scoped {
		return true
	}
	for _, n := range sc.nodes {
		if ix.inNode(l, n) {
			return true
		}
	}
	if ln := ix.leaves[l].node; ln >= 0 {
		for _, n := range sc.nodes {
			if ix.ancestorOf(ln, n) {
				return true
			}
		}
	}
	return false
}

// holdsNode reports whether node n lies inside the scope.
func (sc *scope) holdsNode(ix *index, n int32) bool {
	if !sc.scoped {
		return true
	}
	for _, s := range sc.nodes {
		if ix.ancestorOf(s, n) {
			return true
		}
	}
	return false
}

// inSubject reports whether leaf l lies inside one of the scope's objects
// (not merely in an enclosing object).
func (sc *scope) inSubject(ix *index, l int32) bool {
	if !sc.scoped {
		return false
	}
	for _, n := range sc.nodes {
		if ix.inNode(l, n) {
			return true
		}
	}
	return false
}

// narrowByDate keeps, of a collection of dated objects (a forecast, a
// list of bookings), the ones on the day the claim names.
func (sc *scope) narrowByDate(ix *index, times []timeExpr) {
	if len(times) == 0 {
		return
	}
	var keep []int32
	other := false
	for _, l := range ix.dates {
		if !sc.holds(ix, l) {
			continue
		}
		lf := &ix.leaves[l]
		t := dateTarget{lo: lf.day, hi: lf.day}
		hit := false
		for i := range times {
			te := times[i]
			te.bound = 0
			if v, ok := dayHolds(&te, &t); ok && v == events.VerdictSupported && len(te.days) > 0 {
				hit = true
			}
		}
		if !hit {
			other = true
			continue
		}
		n := lf.node
		if n >= 0 && ix.nodes[n].parent >= 0 && ix.nodes[ix.nodes[n].parent].objKids >= 2 {
			keep = append(keep, n)
		}
	}
	if len(keep) > 0 && other {
		sortUnique(&keep)
		sc.nodes, sc.scoped = keep, true
	}
}

// targets returns the leaves in scope whose own key names one of concepts
// and that pass keep, best score first (only the best tier).
func (cx *claim) targets(concepts []string, keep func(*leaf) bool) []int32 {
	ix := cx.ix
	var cands []int32
	for _, c := range concepts {
		for _, l := range cx.inScopeOf(ix.concept(c)) {
			lf := &ix.leaves[l]
			if keep(lf) && overlap(concepts, lf.own()) > 0 {
				cands = append(cands, l)
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	sortUnique(&cands)
	if slices.ContainsFunc(cands, cx.inSubject) {
		// The subject's own fields come before those of an enclosing
		// object: "the frothers cost $35.50" is about their unit price.
		cands = slices.DeleteFunc(cands, func(l int32) bool { return !cx.inSubject(l) })
	}
	scoreOf := func(l int32) int { return attrScoreDF(concepts, &ix.leaves[l], ix) }
	best := -1
	for _, l := range cands {
		best = max(best, scoreOf(l))
	}
	out := cands[:0]
	own := false
	for _, l := range cands {
		if scoreOf(l) == best {
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
func (cx *claim) scopeLeaves(keep func(*leaf) bool) []int32 {
	ix := cx.ix
	var out []int32
	for _, n := range cx.nodes {
		nd := &ix.nodes[n]
		for l := nd.leafLo; l < nd.leafHi; l++ {
			if keep(&ix.leaves[l]) {
				out = append(out, l)
			}
		}
	}
	sortUnique(&out)
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
func attrScore(concepts []string, lf *leaf) int { return attrScoreDF(concepts, lf, nil) }

// attrScoreDF is attrScore with rare concepts weighing more: of "总金额"
// (total, price), the one field named total beats the many prices.
func attrScoreDF(concepts []string, lf *leaf, ix *index) int {
	own := overlap(concepts, lf.own())
	ctx := overlap(concepts, lf.ctx())
	s := 4*own + 2*ctx
	if ix != nil {
		for _, c := range lf.own() {
			if !slices.Contains(concepts, c) {
				continue
			}
			switch df := len(ix.concept(c)); {
			case df == 1:
				s += 2
			case df <= 3:
				s++
			}
		}
	}
	if own > 0 {
		if len(lf.ctx()) > ctx {
			s--
		}
		extra := 0
		for _, c := range lf.own() {
			if !slices.Contains(concepts, c) && !unitConcepts[c] {
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
		nd := &cx.ix.nodes[n]
		if nd.leafLo < end {
			return false
		}
		end = nd.leafHi
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
	direct := ix.directLeaves()
	var out []int32
	ordered := true // the objects' ranges follow one another
	var end int32
	if len(cx.nodes) >= 8 && cx.rangesFollow() {
		// Many objects (the 68 products of one warehouse): one walk of the
		// list, not two searches an object.
		pos := 0
		for _, n := range cx.nodes {
			nd := &ix.nodes[n]
			for pos < len(list) && list[pos] < nd.leafLo {
				pos++
			}
			from := pos
			for pos < len(list) && list[pos] < nd.leafHi {
				pos++
			}
			out = append(out, list[from:pos]...)
		}
	} else {
		for _, n := range cx.nodes {
			nd := &ix.nodes[n]
			lo, _ := slices.BinarySearch(list, nd.leafLo)
			hi, _ := slices.BinarySearch(list, nd.leafHi)
			if len(cx.nodes) == 1 {
				out = list[lo:hi:hi]
			} else {
				out = append(out, list[lo:hi]...)
			}
			ordered = ordered && nd.leafLo >= end
			end = max(end, nd.leafHi)
		}
	}
	// The fields of the objects enclosing a scope object (a node's own
	// fields are in its range).
	var more []int32
	var seen [16]int32 // enclosing objects already read (scope objects share theirs)
	nseen := 0
	for _, n := range cx.nodes {
	up:
		for a := ix.nodes[n].parent; a >= 0; a = ix.nodes[a].parent {
			for _, s := range seen[:nseen] {
				if s == a {
					break up // and so are the ones enclosing it
				}
			}
			if nseen < len(seen) {
				seen[nseen] = a
				nseen++
			}
			for _, l := range direct.of(a) {
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
	sortUnique(&out)
	return out
}
