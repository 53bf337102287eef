package check

import (
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
	"math"
	"strconv"
	"strings"
)

// derived looks for the claimed value as a value computed from evidence
// numbers: aggregates (sum, mean, min, max) of the targets or of a field
// across a collection, a count of elements, and — when the claim says so
// (total, difference, more, 一共, 平均 …) — pairwise sums, differences,
// products, ratios and percentage changes.
func (cx *claim) derived(m *evidence.NumMention, targets []int32, pairs bool) (fact, bool) {
	ix := cx.ix
	var room [8]cand
	ks := cx.c.candidates(room[:0], m, m.V)
	pool := cx.derivedPool(m, targets)
	// Aggregates over the targets (or the pool) grouped by field name.
	groups := groupByField(ix, pool)
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		var sum, lo, hi float64
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, l := range g {
			x := ix.Leaves[l].Num
			sum += x
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		if cx.near(m, sum, ks) {
			return supported(ix, "sum of "+strconv.Itoa(len(g))+" fields", g...), true
		}
		if cx.near(m, sum/float64(len(g)), ks) && cx.hasConcept("average") {
			return supported(ix, "average of "+strconv.Itoa(len(g))+" fields", g...), true
		}
		_ = lo
		_ = hi
	}
	if f, ok := cx.count(m, append(append([]string(nil), cx.concepts...), m.Head...)); ok {
		return f, true
	}
	if !pairs || len(pool) < 2 {
		return fact{}, false
	}
	frac := []cand{}
	for _, k := range ks {
		if k.u == evidence.UFrac {
			frac = append(frac, k)
		}
	}
	pct := m.Unit != nil && m.Unit.Dim == evidence.DimPercent
	ratio := cx.hasWord("times", "twice", "double", "half", "倍", "x")
	// Products and ratios need the claim to say it computes; a sum or a
	// difference of the subject's own fields is plain arithmetic.
	mult := cx.cues&(evidence.CueDerive|evidence.CueThan|evidence.CueMore|evidence.CueLess|evidence.CueUp|evidence.CueDown) != 0
	// Numbers the claim itself states may be factors: "两晚共需 1360 元"
	// is 2 × 680.
	var factors []float64
	for _, o := range cx.nums {
		if o.V != m.V && !o.Free && o.V == math.Trunc(o.V) && o.V >= 2 && o.V <= 100 {
			factors = append(factors, o.V)
		}
	}
	for _, a := range pool {
		for _, k := range factors {
			if x := ix.Leaves[a].Num; cx.near(m, x*k, ks) && mult {
				return supported(ix, "product with a number the claim states", a), true
			}
		}
	}
	// Which of the pool are targets, asked once a leaf and not per pair:
	// targets may hold fieldsWeighedMax leaves.
	var inRoom [64]bool
	inTargets := inRoom[:]
	if len(pool) > len(inRoom) { // DerivedLeavesMax set above its default
		inTargets = make([]bool, len(pool))
	}
	if !cx.scoped && len(targets) > 0 {
		for i, a := range pool {
			inTargets[i] = containsInt32(targets, a)
		}
	}
	for i, a := range pool {
		x := ix.Leaves[a].Num
		for j, b := range pool[i+1:] {
			y := ix.Leaves[b].Num
			if !cx.scoped && len(targets) > 0 && !inTargets[i] && !inTargets[i+1+j] && evidence.LastToken(ix.Leaves[a].Ptr()) != evidence.LastToken(ix.Leaves[b].Ptr()) {
				continue // combine what the claim names, or one field across subjects
			}
			if ix.Leaves[a].Ptr() == ix.Leaves[b].Ptr() && !(ix.Leaves[a].Text && ix.Leaves[b].Text) {
				continue // a value and its scaled copy
			}
			if !pct || m.Unit == nil {
				if cx.near(m, x+y, ks) {
					return supported(ix, "sum", a, b), true
				}
				if cx.near(m, math.Abs(x-y), ks) {
					return supported(ix, "difference", a, b), true
				}
				if mult && cx.near(m, x*y, ks) && (x != 1 && y != 1) {
					return supported(ix, "product", a, b), true
				}
				if ratio && (y != 0 && cx.near(m, x/y, ks) || x != 0 && cx.near(m, y/x, ks)) {
					return supported(ix, "ratio", a, b), true
				}
			}
			if pct {
				for _, p := range [][2]float64{{x, y}, {y, x}} {
					if p[1] == 0 {
						continue
					}
					if cx.near(m, p[0]/p[1], frac) || cx.near(m, math.Abs(p[0]-p[1])/p[1], frac) {
						return supported(ix, "percentage", a, b), true
					}
				}
				if cx.near(m, math.Abs(x-y), ks[:1]) {
					return supported(ix, "difference", a, b), true
				}
			}
		}
	}
	return fact{}, false
}

// count finds the claimed number as the number of elements of a list the
// claim names: "3 orders", "two shipments", "三个班".
func (cx *claim) count(m *evidence.NumMention, concepts []string) (fact, bool) {
	ix := cx.ix
	if m.Unit != nil && m.Unit.Dim != evidence.DimCount || m.V != math.Trunc(m.V) || m.V < 0 {
		return fact{}, false
	}
	for _, i := range ix.Arrays {
		n := &ix.Nodes[i]
		if n.Length == 0 || float64(n.Length) != m.V || !cx.nodeInScope(i) {
			continue
		}
		nc := n.Concepts
		if n.Parent >= 0 {
			nc = append(append([]string(nil), nc...), ix.Nodes[n.Parent].Concepts...)
		}
		if overlap(concepts, nc) > 0 || ix.MembersNamed(i, m.HeadWord) || listKeyEndsWith(ix, i, m.HeadWord) {
			return fact{verdict: events.VerdictSupported, reason: "count of elements",
				refs: []events.EvidenceRef{ix.NodeRef(i, strconv.Itoa(n.Length))}}, true
		}
	}
	return fact{}, false
}

// listKeyEndsWith reports whether the key of list n ends with the Chinese
// noun w: 三条线 counts 产线, 两个班 counts 班级 only by a concept.
func listKeyEndsWith(ix *evidence.Index, n int32, w string) bool {
	if w == "" || !lang.IsCJK([]rune(w)[0]) {
		return false
	}
	return strings.HasSuffix(evidence.LastToken(ix.NodeRef(n, "").Pointer), w)
}

// derivedPool returns the evidence numbers a derived value may be built
// from: the targets, then numbers in scope whose keys share a concept with
// the claim, then (when a subject is named) the other numbers in scope.
func (cx *claim) derivedPool(m *evidence.NumMention, targets []int32) []int32 {
	ix := cx.ix
	limit := cx.c.cfg.DerivedLeavesMax
	pool := make([]int32, 0, limit)
	add := func(l int32) {
		if len(pool) < limit && !containsInt32(pool, l) {
			pool = append(pool, l)
		}
	}
	for _, t := range targets {
		if len(pool) >= limit/2 {
			break
		}
		add(t)
	}
	for _, l := range cx.context {
		if ix.Leaves[l].Kind == evidence.KindNum {
			add(l)
		}
		for _, t := range ix.TextOf(l) { // "14.3亿元" named whole
			if ix.Leaves[t].Kind == evidence.KindNum {
				add(t)
			}
		}
	}
	// The same field of the other members: "removing the CRF reduces test
	// F1 by 0.9" compares the CRF row with the full model's.
	if len(targets) > 0 && len(targets) <= 4 && (cx.cues&(evidence.CueDerive|evidence.CueThan|evidence.CueMore|evidence.CueLess|evidence.CueUp|evidence.CueDown) != 0 || m.Unit != nil && m.Unit.Dim == evidence.DimPercent) {
		for _, t := range targets {
			for _, l := range cx.siblingsOf(t) {
				add(l)
			}
		}
	}
	concepts := cx.numberConcepts(m)
	ratio := m.Unit != nil && m.Unit.Dim == evidence.DimPercent
	for _, c := range concepts {
		for _, l := range cx.inScopeOf(ix.Concept(c)) {
			if len(pool) >= limit {
				break
			}
			// A percentage is a ratio of two numbers of any unit.
			if lf := &ix.Leaves[l]; lf.Kind == evidence.KindNum && (ratio || dimFits(lf, m.Unit)) {
				add(l)
			}
		}
	}
	if cx.scoped {
		for _, n := range cx.nodes {
			nd := &ix.Nodes[n]
			for l := nd.LeafLo; l < nd.LeafHi && len(pool) < limit; l++ {
				if lf := &ix.Leaves[l]; lf.Kind == evidence.KindNum {
					add(l) // any unit: 3 × $4.50
				}
			}
			// Fields of the enclosing objects (an msrp beside the offers).
			for p := nd.Parent; p >= 0; p = ix.Nodes[p].Parent {
				for _, l := range ix.DirectLeaves().Of(p) {
					if len(pool) >= limit {
						break
					}
					if lf := &ix.Leaves[l]; lf.Kind == evidence.KindNum && dimFits(lf, m.Unit) {
						add(l)
					}
				}
			}
		}
	}
	evidence.SortUnique(&pool)
	return pool
}

// siblingsOf returns the fields with leaf t's key in the other members of
// the collection t's object belongs to.
func (cx *claim) siblingsOf(t int32) []int32 {
	ix := cx.ix
	lf := &ix.Leaves[t]
	key := evidence.LastToken(lf.Ptr())
	var out []int32
	for _, cl := range ix.Colls {
		in := false
		for _, mb := range cl.Members {
			if ix.InNode(t, mb) {
				in = true
			}
		}
		if !in {
			continue
		}
		for _, mb := range cl.Members {
			nd := &ix.Nodes[mb]
			for l := nd.LeafLo; l < nd.LeafHi; l++ {
				if o := &ix.Leaves[l]; l != t && o.Kind == evidence.KindNum && !o.Text && o.Scaled == lf.Scaled && evidence.LastToken(o.Ptr()) == key {
					out = append(out, l)
				}
			}
		}
		break
	}
	return out
}

// isSignedDigits reports digits after an optional sign: the only keys
// strconv.Atoi may read.
func isSignedDigits(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	return lang.IsAllDigits(s)
}

func atoiOK(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

func containsInt32(s []int32, v int32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// groupByField groups leaves by their key (the last pointer token) so that
// a field is summed across the elements of a collection.
func groupByField(ix *evidence.Index, pool []int32) [][]int32 {
	var keys []string
	by := map[string][]int32{}
	for _, l := range pool {
		p := ix.Leaves[l].Ptr()
		k := p[strings.LastIndexByte(p, '/')+1:]
		if isSignedDigits(k) && atoiOK(k) { // NB: Atoi's error is an allocation; most keys are words
			k = "#" // array elements
		}
		if ix.Leaves[l].Scaled {
			k += "|scaled"
		}
		if ix.Leaves[l].Text {
			k += "|text"
		}
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], l)
	}
	out := make([][]int32, 0, len(keys)+1)
	for _, k := range keys {
		out = append(out, by[k])
	}
	if len(keys) > 1 && len(pool) <= 8 {
		out = append(out, pool) // "in total" across different fields
	}
	return out
}
