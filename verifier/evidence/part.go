package evidence

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
type Part struct {
	Ev     Evidence // without Result
	bad    bool     // the result is not JSON: it is skipped
	budget int      // leaves it was indexed with at most
	ix     *Index   // a part built: one result, ev 0, its own node and leaf ids
	// A part read back (unmarshalPart): its nodes and leaves still
	// encoded, its tables, root and sorted numbers, its lookups.
	enc  *encoded
	t    *tables
	root int32
	nums []int32
	sec  *sections
	// result returns the result's JSON, to index it again with a smaller
	// budget.
	Result func() ([]byte, error)
}

// partNow is the time parts are read at; join fixes every day read from it.
var partNow = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// IndexResult indexes one result with at most budget leaves.
func IndexResult(e Evidence, budget int) *Part { return indexResult(e, budget, nil) }

// indexResult is IndexResult whose leaves are appended to room's, in place
// when room has room for them (room is then extended over them), else in a
// slice of their own; room nil is always the latter. Parts built in one
// room lie one after another in it, as Join lays their leaves out.
func indexResult(e Evidence, budget int, room *[]Leaf) *Part {
	raw := e.Result
	p := &Part{Ev: Evidence{CallID: e.CallID, Name: e.Name, Version: e.Version, At: e.At, FreshFor: e.FreshFor, Cuts: e.Cuts, Stats: e.Stats}, budget: budget,
		Result: func() ([]byte, error) { return raw, nil }}
	v, n, err := decodeJSONCounted(raw)
	if err != nil {
		p.bad = true
		return p
	}
	scalars := n.scalars
	ix := newIndexFor(len(raw), n.strings)
	ix.Nodes = make([]node, 0, min(n.nodes, budget)+1) // NB: a table's row is a node of its own
	ix.Ev = []Evidence{p.Ev}
	// A leaf per scalar up to the budget, and room for a number or date
	// found in every fourth (more grow the slice); never more than a
	// leaf per 12 bytes, the room it had before the scalars were counted.
	want := min(len(raw)/12+16, min(scalars, budget)+scalars/4+16)
	inRoom := room != nil && cap(*room)-len(*room) >= want
	if inRoom {
		ix.Leaves = (*room)[len(*room):len(*room):cap(*room)]
	} else {
		ix.Leaves = make([]Leaf, 0, want)
	}
	roomCap := cap(ix.Leaves)
	w := Walker{Ix: ix, Now: partNow, budget: budget}
	// NB: the pointers take about the result's length (at most a MiB is
	// asked for at first: a long text has one pointer); growing copies
	// what is written.
	w.ptrs.b.Grow(min(len(raw), 1<<20) + 64)
	ix.roots = []int32{w.walk(v, "", frame{concepts: ConceptsOf(e.Name)}, -1)}
	if inRoom && cap(ix.Leaves) == roomCap {
		// NB: still in room's array (an append that outgrew it moved them).
		// The part's slice ends where its leaves end, so that nothing
		// appended to it later writes over the next part's.
		*room = (*room)[:len(*room)+len(ix.Leaves)]
		ix.Leaves = ix.Leaves[:len(ix.Leaves):len(ix.Leaves)]
	}
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
func cutArrays(ix *Index, cuts []events.ArrayCut) {
	more := make(map[string]int, len(cuts))
	for _, c := range cuts {
		if c.Len > c.Kept && c.Kept >= 0 {
			more[c.Pointer] = c.Len - c.Kept
		}
	}
	for i := range ix.Nodes {
		if n := &ix.Nodes[i]; n.Array {
			n.Length += more[n.Ptr]
		}
	}
}

// dedupeParts keeps, per CallID, the highest Version (the later part on a
// tie), in the order the calls first appear (as dedupeEvidence).
func dedupeParts(in []*Part) []*Part {
	best := make(map[string]int, len(in))
	for i, p := range in {
		j, ok := best[p.Ev.CallID]
		if !ok || p.Ev.Version >= in[j].Ev.Version {
			best[p.Ev.CallID] = i
		}
	}
	out := make([]*Part, 0, len(best))
	seen := make(map[string]bool, len(best))
	for _, p := range in {
		if seen[p.Ev.CallID] {
			continue
		}
		seen[p.Ev.CallID] = true
		out = append(out, in[best[p.Ev.CallID]])
	}
	return out
}

// Join puts the parts of an answer's evidence together into the index it
// is checked against at now: their nodes and leaves one after the other
// (a part read back is read straight into place), their lookups looked up
// part by part when a claim asks (lookup.go), the lists of leaves by kind
// and the collections made over the whole. It fails only when a part must
// be indexed again and its result cannot be read, or a part read back is
// corrupt.
func Join(parts []*Part, now time.Time) (*Index, error) { return join(parts, now, nil) }

// join is Join whose leaves are room's when room holds every part's
// leaves already, one after another from its start (BuildIndex's parts,
// built in it): they are not copied. Such parts are the index's own: add
// fixes their days in place.
func join(parts []*Part, now time.Time, room []Leaf) (*Index, error) {
	parts = dedupeParts(parts)
	ix := &Index{Sents: map[int32][]SentInfo{}}
	nl, nn := 0, 0
	for _, p := range parts {
		if !p.bad {
			nl += p.leafCount()
			nn += p.nodeCount()
		}
	}
	if room != nil && nl <= LeavesMax && laidOut(parts, room) {
		ix.Leaves = room[:0]
	} else {
		ix.Leaves = takeLeaves(min(nl, 2*LeavesMax))
	}
	ix.Nodes = make([]node, 0, nn)
	for _, p := range parts {
		if p.bad {
			continue
		}
		if left := LeavesMax - len(ix.Leaves); left < p.budget && p.leafCount() > left {
			if p.Result == nil {
				return nil, errors.New("verifier: evidence index crosses the leaf limit and its result is not at hand")
			}
			raw, err := p.Result()
			if err != nil {
				return nil, err
			}
			e := p.Ev
			e.Result = raw
			q := IndexResult(e, max(left, 0))
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
	ix.Colls = append(ix.Colls, tools...)
	for _, c := range tools {
		if ix.toolNamed == nil {
			ix.toolNamed = map[string][]SubjEntry{}
		}
		ix.nameMembers(c, ix.toolNamed)
	}
	return ix, nil
}

// laidOut reports whether room holds the leaves of every part that is not
// bad, in order from its start and nothing after: each is then read in
// place, never copied over another's.
func laidOut(parts []*Part, room []Leaf) bool {
	off := 0
	for _, p := range parts {
		if p.bad {
			continue
		}
		if p.ix == nil {
			return false
		}
		n := len(p.ix.Leaves)
		if n > 0 && (off+n > len(room) || &room[off] != &p.ix.Leaves[0]) {
			return false
		}
		off += n
	}
	return off == len(room)
}

func (p *Part) leafCount() int {
	if p.enc != nil {
		return p.enc.nl
	}
	return len(p.ix.Leaves)
}

func (p *Part) nodeCount() int {
	if p.enc != nil {
		return p.enc.nn
	}
	return len(p.ix.Nodes)
}

// add appends part p's nodes, leaves and numbers to ix, fixing its days at
// now.
func (ix *Index) add(p *Part, now time.Time) error {
	ev := int32(len(ix.Ev))
	nb, lb := int32(len(ix.Nodes)), int32(len(ix.Leaves))
	root, nums := p.root, p.nums
	if p.enc != nil {
		if err := p.enc.readInto(ix, p.t); err != nil {
			return err
		}
	} else {
		ix.Nodes = append(ix.Nodes, p.ix.Nodes...)
		if n := len(p.ix.Leaves); n > 0 && cap(ix.Leaves) >= int(lb)+n && &ix.Leaves[:lb+1][lb] == &p.ix.Leaves[0] {
			ix.Leaves = ix.Leaves[:int(lb)+n] // the part's leaves are there already (join's room)
		} else {
			ix.Leaves = append(ix.Leaves, p.ix.Leaves...)
		}
		root, nums = p.ix.roots[0], p.ix.Nums
	}
	ix.Ev = append(ix.Ev, p.Ev)
	ix.parts = append(ix.parts, p)
	ix.leafBase = append(ix.leafBase, lb)
	ix.nodeBase = append(ix.nodeBase, nb)
	for i := int(nb); i < len(ix.Nodes); i++ {
		nd := &ix.Nodes[i]
		nd.Ev = ev
		if nd.Parent >= 0 {
			nd.Parent += nb
		}
		nd.LeafLo, nd.LeafHi, nd.nodeHi = nd.LeafLo+lb, nd.LeafHi+lb, nd.nodeHi+nb
	}
	var relDays map[int32][]TimeExpr // a text's dates read at now
	for i := int(lb); i < len(ix.Leaves); i++ {
		lf := &ix.Leaves[i]
		lf.Ev = ev
		if lf.Node >= 0 {
			lf.Node += nb
		}
		if lf.Src >= 0 {
			lf.Src += lb
		}
		switch {
		case lf.wday > 0:
			lf.Day = nextWeekday(time.Weekday(lf.wday-1), now)
		case lf.rel > 0:
			if relDays == nil {
				relDays = map[int32][]TimeExpr{}
			}
			ds, ok := relDays[lf.Src]
			if !ok {
				ds = textDates([]rune(ix.Leaves[lf.Src].Str()), now)
				relDays[lf.Src] = ds
			}
			if int(lf.rel) > len(ds) {
				return errors.New("verifier: corrupt evidence index: no such date in its text")
			}
			lf.Day = ds[lf.rel-1].Days[0]
		}
	}
	if root >= 0 {
		root += nb
	}
	ix.roots = append(ix.roots, root)
	ix.Nums = mergeNums(ix.Leaves, ix.Nums, shifted(nil, nums, lb))
	return nil
}

// leafBufs keeps the leaves of an answer's index once checked (release)
// for the next answer: they are most of what an index allocates.
var leafBufs sync.Pool

// takeLeaves returns an empty slice of leaves with room for n, whose room
// is zeroed.
func takeLeaves(n int) []Leaf {
	if b, ok := leafBufs.Get().(*[]Leaf); ok && cap(*b) >= n {
		return (*b)[:0]
	}
	return make([]Leaf, 0, n)
}

// Release hands the index's leaves to the next answer; the index is not
// used after.
func (ix *Index) Release() {
	b := ix.Leaves[:0]
	clear(b[:cap(b)]) // NB: no leaf keeps its part's tables alive, and room reads as zero
	ix.Leaves = nil
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
func mergeNums(leaves []Leaf, a, b []int32) []int32 {
	if len(a) == 0 {
		return slices.Clip(b)
	}
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if leaves[b[j]].Num < leaves[a[i]].Num {
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
