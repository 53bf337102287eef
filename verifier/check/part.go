package check

import (
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/toolstream/toolstream/events"
)

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
	ix     *index   // a part built: one result, ev 0, its own node and leaf ids
	// A part read back (unmarshalPart): its nodes and leaves still
	// encoded, its tables, root and sorted numbers, its lookups.
	enc  *encoded
	t    *tables
	root int32
	nums []int32
	sec  *sections
	// result returns the result's JSON, to index it again with a smaller
	// budget.
	result func() ([]byte, error)
}

// partNow is the time parts are read at; join fixes every day read from it.
var partNow = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// indexResult indexes one result with at most budget leaves.
func indexResult(e Evidence, budget int) *part {
	raw := e.Result
	p := &part{ev: Evidence{CallID: e.CallID, Name: e.Name, Version: e.Version, At: e.At, FreshFor: e.FreshFor, Cuts: e.Cuts}, budget: budget,
		result: func() ([]byte, error) { return raw, nil }}
	v, err := decodeJSON(raw)
	if err != nil {
		p.bad = true
		return p
	}
	ix := newIndex(len(raw))
	ix.ev = []Evidence{p.ev}
	ix.leaves = make([]leaf, 0, len(raw)/12+16)
	w := walker{ix: ix, now: partNow, budget: budget}
	ix.roots = []int32{w.walk(v, "", frame{concepts: conceptsOf(e.Name)}, -1)}
	if len(e.Cuts) > 0 {
		cutArrays(ix, e.Cuts)
	}
	ix.finish()
	p.ix = ix
	return p
}

// cutArrays gives each array an excerpt shortened its length in the
// whole result: a count of its members is checked against that. A cut
// that names no array of the excerpt changes nothing.
func cutArrays(ix *index, cuts []events.ArrayCut) {
	more := make(map[string]int, len(cuts))
	for _, c := range cuts {
		if c.Len > c.Kept && c.Kept >= 0 {
			more[c.Pointer] = c.Len - c.Kept
		}
	}
	for i := range ix.nodes {
		if n := &ix.nodes[i]; n.array {
			n.length += more[n.ptr]
		}
	}
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
// is checked against at now: their nodes and leaves one after the other
// (a part read back is read straight into place), their lookups looked up
// part by part when a claim asks (lookup.go), the lists of leaves by kind
// and the collections made over the whole. It fails only when a part must
// be indexed again and its result cannot be read, or a part read back is
// corrupt.
func join(parts []*part, now time.Time) (*index, error) {
	parts = dedupeParts(parts)
	ix := &index{sents: map[int32][]sentInfo{}}
	nl, nn := 0, 0
	for _, p := range parts {
		if !p.bad {
			nl += p.leafCount()
			nn += p.nodeCount()
		}
	}
	ix.leaves = takeLeaves(min(nl, 2*leavesMax))
	ix.nodes = make([]node, 0, nn)
	for _, p := range parts {
		if p.bad {
			continue
		}
		if left := leavesMax - len(ix.leaves); left < p.budget && p.leafCount() > left {
			if p.result == nil {
				return nil, errors.New("verifier: evidence index crosses the leaf limit and its result is not at hand")
			}
			raw, err := p.result()
			if err != nil {
				return nil, err
			}
			e := p.ev
			e.Result = raw
			q := indexResult(e, max(left, 0))
			if q.bad {
				continue
			}
			p = q
		}
		if err := ix.add(p, now); err != nil {
			return nil, err
		}
	}
	ix.derive()
	tools := ix.toolCollections()
	ix.colls = append(ix.colls, tools...)
	for _, c := range tools {
		if ix.toolNamed == nil {
			ix.toolNamed = map[string][]subjEntry{}
		}
		ix.nameMembers(c, ix.toolNamed)
	}
	return ix, nil
}

func (p *part) leafCount() int {
	if p.enc != nil {
		return p.enc.nl
	}
	return len(p.ix.leaves)
}

func (p *part) nodeCount() int {
	if p.enc != nil {
		return p.enc.nn
	}
	return len(p.ix.nodes)
}

// add appends part p's nodes, leaves and numbers to ix, fixing its days at
// now.
func (ix *index) add(p *part, now time.Time) error {
	ev := int32(len(ix.ev))
	nb, lb := int32(len(ix.nodes)), int32(len(ix.leaves))
	root, nums := p.root, p.nums
	if p.enc != nil {
		if err := p.enc.readInto(ix, p.t); err != nil {
			return err
		}
	} else {
		ix.nodes = append(ix.nodes, p.ix.nodes...)
		ix.leaves = append(ix.leaves, p.ix.leaves...)
		root, nums = p.ix.roots[0], p.ix.nums
	}
	ix.ev = append(ix.ev, p.ev)
	ix.parts = append(ix.parts, p)
	ix.leafBase = append(ix.leafBase, lb)
	ix.nodeBase = append(ix.nodeBase, nb)
	for i := int(nb); i < len(ix.nodes); i++ {
		nd := &ix.nodes[i]
		nd.ev = ev
		if nd.parent >= 0 {
			nd.parent += nb
		}
		nd.leafLo, nd.leafHi, nd.nodeHi = nd.leafLo+lb, nd.leafHi+lb, nd.nodeHi+nb
	}
	var relDays map[int32][]timeExpr // a text's dates read at now
	for i := int(lb); i < len(ix.leaves); i++ {
		lf := &ix.leaves[i]
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
				ds = textDates([]rune(ix.leaves[lf.src].str()), now)
				relDays[lf.src] = ds
			}
			if int(lf.rel) > len(ds) {
				return errors.New("verifier: corrupt evidence index: no such date in its text")
			}
			lf.day = ds[lf.rel-1].days[0]
		}
	}
	if root >= 0 {
		root += nb
	}
	ix.roots = append(ix.roots, root)
	ix.nums = mergeNums(ix.leaves, ix.nums, shifted(nil, nums, lb))
	return nil
}

// leafBufs keeps the leaves of an answer's index once checked (release)
// for the next answer: they are most of what an index allocates.
var leafBufs sync.Pool

// takeLeaves returns an empty slice of leaves with room for n, whose room
// is zeroed.
func takeLeaves(n int) []leaf {
	if b, ok := leafBufs.Get().(*[]leaf); ok && cap(*b) >= n {
		return (*b)[:0]
	}
	return make([]leaf, 0, n)
}

// release hands the index's leaves to the next answer; the index is not
// used after.
func (ix *index) release() {
	b := ix.leaves[:0]
	clear(b[:cap(b)]) // NB: no leaf keeps its part's tables alive, and room reads as zero
	ix.leaves = nil
	leafBufs.Put(&b)
}

// shifted appends the ids of src, each plus by, to dst.
func shifted(dst, src []int32, by int32) []int32 {
	if by == 0 && dst == nil {
		return slices.Clip(src) // NB: an append to it copies, never writes into src
	}
	for _, x := range src {
		dst = append(dst, x+by)
	}
	return dst
}

// mergeNums merges two lists of numeric leaves sorted by value (ties in
// leaf order); every leaf of b comes after every leaf of a.
func mergeNums(leaves []leaf, a, b []int32) []int32 {
	if len(a) == 0 {
		return slices.Clip(b)
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
