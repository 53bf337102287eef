package check

import (
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
	"slices"
)

// scope is what a claim is about.
type scope struct {
	scoped bool    // false: all the evidence
	nodes  []int32 // the objects the claim is about, when scoped
	before []int32 // nodes before narrowing to the claim's date
	evidence.Subjects
	own  bool // the claim names its subjects itself
	soft bool // inherited through a pronoun from the sentence before: a guess
}

// newScope scopes a reading: to the subjects it names; a clause without a
// subject of its own continues the one before it in the sentence ("Item A
// costs $5 and has 12 in stock"), and a pronoun continues the previous
// claim; then to the day the claim names.
func newScope(ix *evidence.Index, rd *reading, prev *after) scope {
	sc := scope{Subjects: rd.named, nodes: rd.namedNodes}
	if len(rd.named.Groups) > 0 {
		sc.scoped, sc.own = true, true
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
// and that pass keep, best score first (only the best tier).
func (cx *claim) targets(concepts []string, keep func(*evidence.Leaf) bool) []int32 {
	ix := cx.ix
	var cands []int32
	for _, c := range concepts {
		for _, l := range cx.inScopeOf(ix.Concept(c)) {
			lf := &ix.Leaves[l]
			if keep(lf) && overlap(concepts, lf.Own()) > 0 {
				cands = append(cands, l)
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	evidence.SortUnique(&cands)
	if slices.ContainsFunc(cands, cx.inSubject) {
		// The subject's own fields come before those of an enclosing
		// object: "the frothers cost $35.50" is about their unit price.
		cands = slices.DeleteFunc(cands, func(l int32) bool { return !cx.inSubject(l) })
	}
	scoreOf := func(l int32) int { return attrScoreDF(concepts, &ix.Leaves[l], ix) }
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

// attrScoreDF is attrScore with rare concepts weighing more: of "总金额"
// (total, price), the one field named total beats the many prices.
func attrScoreDF(concepts []string, lf *evidence.Leaf, ix *evidence.Index) int {
	own := overlap(concepts, lf.Own())
	ctx := overlap(concepts, lf.Ctx())
	s := 4*own + 2*ctx
	if ix != nil {
		for _, c := range lf.Own() {
			if !slices.Contains(concepts, c) {
				continue
			}
			switch df := len(ix.Concept(c)); {
			case df == 1:
				s += 2
			case df <= 3:
				s++
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
