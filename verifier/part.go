package verifier

import "time"

// A part is the index of one tool result, made once (indexResult, when the
// result arrives) and joined with the other parts of an answer's evidence
// when the answer is checked (join). A part does not depend on the answer:
// its ids are its own, and a day written relative to the time of reading
// (a weekday value, a date without a year in text) is marked, then fixed
// by join at the answer's time.
//
// join gives the index buildIndex made over all the evidence at once: the
// parts' leaves, nodes and lookups follow one another in evidence order;
// subjects named by the walk come before those named after it (members of
// a collection named by a field); the tools called twice or more are named
// across parts; partial subject names shared by two subjects are dropped
// across parts; and the first leavesMax leaves count, so a part that would
// cross the limit is indexed again with what is left of it.
type part struct {
	ev     Evidence // without Result
	bad    bool     // the result is not JSON: it is skipped
	budget int      // leaves it was indexed with at most
	ix     *index   // one result: ev 0, its own node and leaf ids
	// result returns the result's JSON, to index it again with a smaller
	// budget.
	result func() ([]byte, error)
}

// partNow is the time parts are read at; join fixes every day read from it.
var partNow = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// indexResult indexes one result with at most budget leaves.
func indexResult(e Evidence, budget int) *part {
	raw := e.Result
	p := &part{ev: Evidence{CallID: e.CallID, Name: e.Name, Version: e.Version}, budget: budget,
		result: func() ([]byte, error) { return raw, nil }}
	v, err := decodeJSON(raw)
	if err != nil {
		p.bad = true
		return p
	}
	ix := newIndex()
	ix.ev = []Evidence{p.ev}
	ix.leaves = make([]leaf, 0, len(raw)/12+16)
	w := walker{ix: ix, now: partNow, budget: budget}
	ix.roots = []int32{w.walk(v, "", frame{concepts: conceptsOf(e.Name)}, -1)}
	ix.finish()
	p.ix = ix
	return p
}

// dedupeParts keeps, per CallID, the highest Version (the later part on a
// tie), in the order the calls first appear (as dedupeEvidence).
func dedupeParts(in []*part) []*part {
	best := make(map[string]int, len(in))
	for i, p := range in {
		j, ok := best[p.ev.CallID]
		if !ok || p.ev.Version >= in[j].ev.Version {
			best[p.ev.CallID] = i
		}
	}
	out := make([]*part, 0, len(best))
	seen := make(map[string]bool, len(best))
	for _, p := range in {
		if seen[p.ev.CallID] {
			continue
		}
		seen[p.ev.CallID] = true
		out = append(out, in[best[p.ev.CallID]])
	}
	return out
}

// join puts the parts of an answer's evidence together into the index it
// is checked against at now. It fails only when a part must be indexed
// again and its result cannot be read.
func join(parts []*part, now time.Time) (*index, error) {
	parts = dedupeParts(parts)
	ix := newIndex()
	n := 0
	for _, p := range parts {
		if p.ix != nil {
			n += len(p.ix.leaves)
		}
	}
	ix.leaves = make([]leaf, 0, min(n, 2*leavesMax))
	var kept []*part
	for _, p := range parts {
		if p.bad {
			continue
		}
		if left := leavesMax - len(ix.leaves); left < p.budget && len(p.ix.leaves) > left {
			raw, err := p.result()
			if err != nil {
				return nil, err
			}
			q := indexResult(Evidence{CallID: p.ev.CallID, Name: p.ev.Name, Version: p.ev.Version, Result: raw}, max(left, 0))
			if q.bad {
				continue
			}
			p = q
		}
		ix.add(p, now)
		kept = append(kept, p)
	}
	// Subjects in the order buildIndex named them: every part's walk, then
	// every part's members named, then the tools' results named.
	offsets := ix.nodeOffsets(kept)
	for k, p := range kept {
		addSubjects(ix.subjects, p.ix.subjects, offsets[k])
	}
	for k, p := range kept {
		addSubjects(ix.subjects, p.ix.named, offsets[k])
	}
	tools := ix.toolCollections()
	ix.colls = append(ix.colls, tools...)
	for _, c := range tools {
		ix.nameMembers(c, ix.subjects)
	}
	ix.prunePartial()
	return ix, nil
}

// nodeOffsets returns where each part's nodes start in ix.
func (ix *index) nodeOffsets(parts []*part) []int32 {
	out := make([]int32, len(parts))
	var at int32
	for k, p := range parts {
		out[k] = at
		at += int32(len(p.ix.nodes))
	}
	return out
}

func addSubjects(dst, src map[string][]subjEntry, nb int32) {
	for k, es := range src {
		d := dst[k]
		for _, e := range es {
			e.node += nb
			d = append(d, e)
		}
		dst[k] = d
	}
}

// add appends part p's nodes, leaves and lookups to ix, fixing its days at
// now.
func (ix *index) add(p *part, now time.Time) {
	src := p.ix
	ev := int32(len(ix.ev))
	ix.ev = append(ix.ev, p.ev)
	nb, lb := int32(len(ix.nodes)), int32(len(ix.leaves))
	for _, nd := range src.nodes {
		nd.ev = ev
		if nd.parent >= 0 {
			nd.parent += nb
		}
		nd.leafLo, nd.leafHi, nd.nodeHi = nd.leafLo+lb, nd.leafHi+lb, nd.nodeHi+nb
		ix.nodes = append(ix.nodes, nd)
	}
	var relDays map[int32][]timeExpr // a text's dates read at now
	for _, lf := range src.leaves {
		lf.ev = ev
		if lf.node >= 0 {
			lf.node += nb
		}
		if lf.src >= 0 {
			lf.src += lb
		}
		switch {
		case lf.wday > 0:
			lf.day = nextWeekday(time.Weekday(lf.wday-1), now)
		case lf.rel > 0:
			if relDays == nil {
				relDays = map[int32][]timeExpr{}
			}
			ds, ok := relDays[lf.src]
			if !ok {
				ds = textDates([]rune(ix.leaves[lf.src].str), now)
				relDays[lf.src] = ds
			}
			lf.day = ds[lf.rel-1].days[0]
		}
		ix.leaves = append(ix.leaves, lf)
	}
	for _, r := range src.roots {
		if r >= 0 {
			r += nb
		}
		ix.roots = append(ix.roots, r)
	}
	shift := func(dst []int32, src []int32, by int32) []int32 {
		for _, x := range src {
			dst = append(dst, x+by)
		}
		return dst
	}
	for k, ls := range src.byConcept {
		ix.byConcept[k] = shift(ix.byConcept[k], ls, lb)
	}
	for k, ls := range src.byValue {
		ix.byValue[k] = shift(ix.byValue[k], ls, lb)
	}
	for k, vs := range src.values {
		d := ix.values[k]
		for _, v := range vs {
			v.leaf += lb
			d = append(d, v)
		}
		ix.values[k] = d
	}
	for k, ki := range src.keys {
		ix.keys[k] = ki
	}
	for s, ls := range src.textOf {
		ix.textOf[s+lb] = shift(nil, ls, lb)
	}
	ix.nums = mergeNums(ix.leaves, ix.nums, shift(nil, src.nums, lb))
	ix.dates = shift(ix.dates, src.dates, lb)
	ix.bools = shift(ix.bools, src.bools, lb)
	ix.cats = shift(ix.cats, src.cats, lb)
	ix.clocks = shift(ix.clocks, src.clocks, lb)
	ix.arrays = shift(ix.arrays, src.arrays, nb)
	for _, c := range src.colls {
		ix.colls = append(ix.colls, coll{node: c.node + nb, members: shift(nil, c.members, nb)})
	}
}

// mergeNums merges two lists of numeric leaves sorted by value (ties in
// leaf order); every leaf of b comes after every leaf of a.
func mergeNums(leaves []leaf, a, b []int32) []int32 {
	if len(a) == 0 {
		return b
	}
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if leaves[b[j]].num < leaves[a[i]].num {
			out = append(out, b[j])
			j++
		} else {
			out = append(out, a[i])
			i++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}
