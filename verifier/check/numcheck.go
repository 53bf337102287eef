package check

import (
	"github.com/toolstream/toolstream/internal/lang"

	"math"
	"slices"
	"sort"
	"strings"

	"github.com/toolstream/toolstream/events"
)

// ---- checking a number ------------------------------------------------------

// cand is a claimed value expressed in one unit, with its tolerance.
type cand struct {
	v, tol float64
	u      *unit
}

// tolerance returns the absolute tolerance of a claimed value v written
// with m's precision.
func (c *Checker) tolerance(m *numMention, v float64) float64 {
	rel := c.cfg.Tolerance
	half := 0.5 * math.Pow(10, -float64(m.decimals)) * m.mag
	if m.yearLike() {
		return 0.5 // "2016" is not 2018 within 1%: a year is written exactly
	}
	if m.unit != nil && m.unit.dim == dimCurrency && m.decimals == 0 && m.mag == 1 && !m.approx {
		half = 0 // "$5" is not a rounded "$4.50": prices are written exactly
	}
	if !m.approx {
		// "2 万" is not 18,600: rounding stays within 2.5%.
		half = math.Min(half, math.Max(0.025*math.Abs(v), 0.5*math.Pow(10, -float64(m.decimals))))
	}
	if m.approx && m.unit != nil && m.unit.dim == dimPercent {
		// "about 13%": a point either way, not 5% of the value.
		return math.Max(math.Max(half, 1), c.cfg.Tolerance*math.Abs(v))
	}
	if !m.approx && m.decimals > 0 && m.unit != uPercent {
		// "93.4" says 93.35–93.45: the digits written are the precision.
		// (Unit conversions and percentages keep the relative tolerance.)
		return math.Max(half*(1+1e-9), 1e-9)
	}
	if m.approx {
		rel = c.cfg.ApproxTolerance
		if m.decimals == 0 && v != 0 {
			// "about 20": rounding at the last non-zero digit, at most 10%.
			p := 1.0
			for x := math.Abs(v) / m.mag; x >= 10 && math.Mod(x, 10) == 0; x /= 10 {
				p *= 10
			}
			half = math.Max(half, math.Min(0.5*p*m.mag, 0.1*math.Abs(v)))
		}
	}
	return math.Max(math.Max(rel*math.Abs(v), half), 1e-9)
}

// candidates expresses claimed value v in every unit it may appear in,
// appended to out (room for eight spares the caller an allocation).
func (c *Checker) candidates(out []cand, m *numMention, v float64) []cand {
	tol := c.tolerance(m, v)
	u := m.unit
	switch {
	case u == nil || u.dim == dimCurrency || u.dim == dimCount:
		return append(out, cand{v, tol, u})
	case u.dim == dimPercent:
		return append(out, cand{v, tol, uPercent}, cand{v / 100, tol / 100, uFrac})
	case u.scale:
		return append(out, cand{v, tol, uC}, cand{v, tol, uF}, cand{v, tol, u})
	}
	out = append(out, cand{v, tol, u})
	for _, cu := range canonicalUnits[u.dim] {
		if cu == u {
			continue
		}
		if x, ok := convert(v, u, cu); ok {
			out = append(out, cand{x, math.Max(tol*scaleRatio(u, cu), c.cfg.Tolerance*math.Abs(x)), cu})
		}
	}
	return out
}

// unitFits reports whether evidence leaf lf may hold candidate k of a
// number claimed in unit claimed.
func unitFits(lf *leaf, k cand, claimed *unit) bool {
	return unitFitsAs(numUnit{lf.unitID, lf.dim}, k, claimed)
}

// unitFitsAs is unitFits of a leaf in unit nu.
func unitFitsAs(nu numUnit, k cand, claimed *unit) bool {
	switch u := unitTable[nu.unitID]; {
	case claimed == nil:
		return true
	case u != nil:
		if k.u == uFrac {
			return u.dim == dimPercent && u != uPercent
		}
		return sameUnit(k.u, u) && compatible(claimed, u)
	case nu.dim != dimNone:
		if claimed.dim == dimPercent {
			return nu.dim == dimPercent
		}
		return (nu.dim == claimed.dim || claimed.dim == dimCount && nu.dim == dimCount) && (k.u == claimed || claimed.scale)
	default:
		return k.u == claimed || k.u == uFrac || claimed.scale && k.u != claimed || claimed.dim == dimCount
	}
}

// matches returns the numeric leaves equal to the claimed value v (any
// candidate), in index order. What it returns is shared: callers only
// read it.
//
// The leaves depend on v, the tolerance and the unit claimed only (see
// candidates and unitFitsAs): kept by them in the index for the claims
// after ("ships in 2 to 4 days" said of every product).
func (cx *claim) matches(m *numMention, v float64) []int32 {
	ix := cx.ix
	key := matchKey{v: v, tol: cx.c.tolerance(m, v), unit: m.unit}
	if ls, ok := ix.cache.matches[key]; ok {
		return ls
	}
	ls := cx.findMatches(m, v)
	if ix.cache.matches == nil {
		ix.cache.matches = map[matchKey][]int32{}
	}
	ix.cache.matches[key] = ls
	return ls
}

// findMatches is matches without the cache.
func (cx *claim) findMatches(m *numMention, v float64) []int32 {
	ix := cx.ix
	var out []int32
	var room [8]cand
	var spanRoom [8][2]int
	spans := spanRoom[:0]
	vals, units := ix.numValues()
	ks := cx.c.candidates(room[:0], m, v)
	size := 0
	for _, k := range ks {
		// The numbers within the tolerance, at most numMatchesMax. NB:
		// equal numbers are in document order, so the first ones are kept.
		lo, _ := slices.BinarySearch(vals, k.v-k.tol)
		hi := lo
		for hi < len(vals) && hi-lo < numMatchesMax && vals[hi] <= k.v+k.tol {
			hi++
		}
		spans = append(spans, [2]int{lo, hi})
		size += hi - lo
	}
	if size == 0 {
		return nil
	}
	out = make([]int32, 0, size)
	for j, k := range ks {
		for i := spans[j][0]; i < spans[j][1]; i++ {
			if unitFitsAs(units[i], k, m.unit) {
				out = append(out, ix.nums[i])
			}
		}
	}
	if len(ks) > 1 || !slices.IsSorted(out) {
		out = ix.sortLeaves(out)
	}
	return slices.Clip(out)
}

// numMatchesMax bounds the evidence numbers one reading of a claimed number
// is matched against: an answer of thirty thousand claims against a result
// of a quarter million equal numbers stays linear.
const numMatchesMax = 256

// dimFits reports whether a leaf may measure what a number claimed in unit
// u measures.
func dimFits(lf *leaf, u *unit) bool {
	if u == nil {
		return true
	}
	d := lf.dim
	if lf.unit() != nil {
		d = lf.unit().dim
	}
	if d == dimNone {
		return true
	}
	if u.dim == dimCount {
		return d == dimCount
	}
	if d != u.dim {
		return false
	}
	return lf.unit() == nil || compatible(u, lf.unit())
}

// numberConcepts returns the concepts a claimed number is looked up
// by: the claim's, the noun after the number, and what its unit measures.
func (cx *claim) numberConcepts(m *numMention) []string {
	// The claim's words, less those naming another number ("$348 … with
	// free shipping": shipping is what is free, not what costs $348).
	var c []string
	for _, x := range cx.concepts {
		other := false
		for i := range cx.nums {
			if o := &cx.nums[i]; o != m && slices.Contains(o.head, x) && !slices.Contains(m.local, x) {
				other = true
			}
		}
		if !other {
			c = append(c, x)
		}
	}
	c = append(c, m.head...)
	if m.unit != nil {
		c = append(c, unitConceptNames(m.unit)...)
	}
	return dedupeOwn(c) // NB: c is a new array (appended to from nil)
}

// checkNumber checks one claimed number. A scope inherited through a
// pronoun from an earlier sentence is a guess: when the number fails
// there but holds in the evidence at large ("In Japan it sells for
// ¥3,600" after a sentence about the EU), the wider reading wins.
func (cx *claim) checkNumber(m *numMention) fact {
	f := cx.checkNumberIn(m)
	if f.verdict == events.VerdictContradicted && m.unit == nil && m.maybeUnit != nil && !m.isRange && m.bound == 0 {
		// "25,910 m": read with the letter as its unit, or not judged.
		u := *m
		u.unit = m.maybeUnit
		switch g := cx.checkNumberIn(&u); g.verdict {
		case events.VerdictSupported, events.VerdictContradicted:
			return cx.checkDirection(g) // wrong either way, or right with it
		}
		return fact{verdict: events.VerdictUnsupported, weak: true, reason: "the unit after the number is unclear; " + f.reason}
	}
	if d := cx.direction(); d < 0 && f.verdict != events.VerdictSupported && m.v > 0 && !m.isRange && m.bound == 0 {
		// "fell 1.2%" is a change of -1.2.
		neg := *m
		neg.v, neg.hi = -m.v, -m.hi
		if g := cx.checkNumberIn(&neg); g.verdict == events.VerdictSupported && len(g.leaves) == 1 && signedChange(&cx.ix.leaves[g.leaves[0]]) {
			return g
		}
	}
	if cx.cues&cueDebt != 0 && f.verdict != events.VerdictSupported && m.v > 0 && !m.isRange && m.bound == 0 {
		// "owes 3,420", 欠款 3420 元: a balance of -3420.
		neg := *m
		neg.v, neg.hi = -m.v, -m.hi
		if g := cx.checkNumberIn(&neg); g.verdict == events.VerdictSupported {
			return g
		}
	}
	if cx.soft && f.verdict != events.VerdictSupported {
		if g := cx.widened().checkNumberIn(m); g.verdict == events.VerdictSupported {
			return cx.checkDirection(g)
		}
	}
	return cx.checkDirection(f)
}

func (cx *claim) checkNumberIn(m *numMention) fact {
	ix := cx.ix
	if m.free && !cx.freeApplies() {
		return fact{}
	}
	concepts := cx.numberConcepts(m)
	keep := func(lf *leaf) bool { return lf.kind == kindNum && dimFits(lf, m.unit) }
	find := func(cs []string) []int32 {
		ts := cx.targets(cs, keep)
		if m.unit != nil && m.unit.dim != dimCount && slices.ContainsFunc(ts, func(l int32) bool { return knownDim(&ix.leaves[l]) }) {
			// A field known to measure what the unit measures beats one of
			// unknown kind: "1 bag up to 23 kg" is about weight_limit_kg.
			ts = slices.DeleteFunc(ts, func(l int32) bool { return !knownDim(&ix.leaves[l]) })
		}
		return ts
	}
	// The words nearest the number name its field best: the noun after it
	// ("30 in stock", "2,000 reviews"), the word before it (含税费共计
	// 2713.6 元), the words since the previous number, then the claim.
	// What only the unit says (kg: a weight) names no field: it agrees
	// with one the words name ("the brubre is 51 kg" is about brubre's
	// value in kg, not any weight), and binds alone only when the claim
	// names nothing else (byUnit).
	unitOnly := cx.unitConcepts(m)
	var targets []int32
	if len(m.head) > 0 {
		targets = find(m.head)
	}
	if len(targets) == 0 && len(m.near) > 0 {
		targets = find(m.near)
	}
	if len(targets) == 0 && len(m.local) > 0 {
		local := m.local
		if m.unit != nil {
			local = dedupe(append(append([]string(nil), local...), unitConceptNames(m.unit)...))
		}
		targets = find(local)
	}
	if len(targets) == 0 {
		targets = find(concepts)
	}
	byUnit := false
	named := slices.DeleteFunc(slices.Clone(concepts), func(c string) bool { return slices.Contains(unitOnly, c) })
	if len(targets) > 0 && len(unitOnly) > 0 {
		if !slices.ContainsFunc(targets, func(t int32) bool {
			return overlap(named, ix.leaves[t].own()) > 0 || overlap(named, ix.leaves[t].ctx()) > 0
		}) {
			// Found by what the unit measures only; a field the claim's
			// words name, in a unit that agrees, is what it is about.
			byUnit = true
			if alt := find(named); len(named) > 0 && len(alt) > 0 {
				targets, byUnit = alt, false
			}
		}
	}
	if len(targets) == 0 && m.unit != nil && m.unit.dim != dimCount && m.unit.dim != dimNone && cx.scoped {
		// "A: $25" — no attribute word, but the unit names the field.
		targets, byUnit = cx.scopeLeaves(func(lf *leaf) bool {
			d := lf.dim
			if lf.unit() != nil {
				d = lf.unit().dim
			}
			return lf.kind == kindNum && d == m.unit.dim && dimFits(lf, m.unit)
		}), true
	}
	if m.bound != 0 {
		return cx.checkBound(m, targets)
	}
	if m.isRange {
		return cx.checkRange(m, targets, concepts)
	}
	all := cx.matches(m, m.v)
	in := cx.inScopeOf(all)
	// 1. A matching field for this subject and attribute.
	for _, t := range targets {
		if containsLeaf(in, t) {
			return supported(ix, "value matches", t)
		}
	}
	pairs := cx.cues&(cueDerive|cueThan|cueMore|cueLess) != 0 || m.unit != nil && m.unit.dim == dimPercent || hasAny(m.head, "total")
	if len(targets) > 0 {
		// A field whose key the claim names wholly (each concept of the
		// key is one of the claim's) holds the value, though another field
		// named scored higher: 金额 names both an amount and a fee.
		for _, l := range in {
			k := lastToken(ix.leaves[l].ptr())
			if lang.IsAllDigits(k) {
				continue
			}
			if own := conceptsOf(strings.NewReplacer("~1", "/", "~0", "~").Replace(k)); len(own) > 0 && overlap(concepts, own) == len(own) {
				return supported(ix, "value matches", l)
			}
		}
		if !byUnit && cx.cues&(cueDerive|cueThan|cueMore|cueLess) == 0 && !hasAny(m.head, "total") &&
			(m.unit == nil || m.unit.dim != dimPercent || slices.ContainsFunc(targets, func(t int32) bool { return ix.leaves[t].dim == dimPercent || ix.leaves[t].unit() == uPercent })) {
			// The field the claim names states the value (a percentage a
			// percentage field): one found between two other numbers is
			// a coincidence, not it.
			pairs = false
		}
		if f, ok := cx.derived(m, targets, pairs); ok {
			return f
		}
		if l, ok := cx.attributed(in, targets); ok {
			return supported(ix, "value matches the result the claim names", l)
		}
		best := targets[0]
		if byUnit && (cx.namesUnknown(named) || !oneValue(ix, targets)) {
			// Bound by its unit alone while the claim names something no
			// field is about ("the fitre is 42 kg" beside bezam_kg), or
			// fields of that unit differ: the claim may be about any of
			// them, or none. Undecided: a judge may know the paraphrase.
			return fact{verdict: events.VerdictUnsupported, weak: true,
				reason: "no field is about what the claim names; " + ix.leaves[best].ptr() + " only shares its unit"}
		}
		return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(best)},
			reason: "evidence says " + ix.leaves[best].raw() + " at " + ix.leaves[best].ptr()}
	}
	// 2. No field named by the claim. A count of the list the noun after
	// the number names ("two shipments") comes first; then a match the
	// claim can own — its keys share a word with the claim, its unit is
	// the claim's, or it is the only field with that value.
	if len(m.head) > 0 || m.headWord != "" {
		if f, ok := cx.count(m, m.head); ok {
			return f
		}
		if f, ok := cx.wholeCount(m); ok {
			return f
		}
	}
	if cx.cues&cueThan != 0 && cx.cues&(cueMore|cueLess) != 0 && len(cx.groups) >= 2 {
		// "4 more points per game than Brown": a difference first.
		if f, ok := cx.derived(m, nil, true); ok {
			return f
		}
	}
	for _, l := range in {
		lf := &ix.leaves[l]
		if m.unit != nil && m.unit.dim == dimPercent && lf.unit() == nil && lf.dim != dimPercent && overlap(concepts, lf.own()) == 0 {
			continue // "14%" is not the 15 of "iPhone 15"
		}
		if len(cx.concepts) == 0 || overlap(concepts, lf.own()) > 0 || overlap(concepts, lf.ctx()) > 0 ||
			m.unit != nil && m.unit.dim != dimCount && (lf.unit() != nil || lf.dim == m.unit.dim) || oneField(ix, in) {
			return supported(ix, "value matches", l)
		}
	}
	if f, ok := cx.derived(m, nil, pairs || cx.scoped); ok {
		return f
	}
	if m.unit != nil && m.unit.dim == dimTime {
		if f, ok := cx.durationAsDates(m); ok {
			return f
		}
	}
	if len(in) > 0 {
		return fact{verdict: events.VerdictUnsupported, weak: true,
			reason: "the value appears at " + ix.leaves[in[0]].ptr() + " but not as what the claim says"}
	}
	for _, l := range all {
		return fact{verdict: events.VerdictUnsupported,
			reason: "the value belongs to another subject at " + ix.leaves[l].ptr()}
	}
	return fact{verdict: events.VerdictUnsupported, reason: "no evidence has this value"}
}

// unitConcepts returns the concepts only m's unit gives the claim: what
// the unit measures and the unit word's own concepts, less those another
// word of the claim says too ("weighs 5 kg": weight is the verb's).
func (cx *claim) unitConcepts(m *numMention) []string {
	if m.unit == nil || m.free {
		return nil
	}
	cs := slices.Clone(unitConceptNames(m.unit))
	if m.unitWord != "" {
		us := m.end - len([]rune(m.unitWord))
		if us >= m.start {
			cs = append(cs, cx.conceptsIn(us, m.end)...)
			if m.headWord == m.unitWord {
				cs = append(cs, m.head...)
			}
		}
	}
	if len(cs) == 0 {
		return nil
	}
	cs = dedupe(cs)
	other := append(cx.conceptsIn(0, m.start), cx.conceptsIn(m.end, len(cx.norm))...)
	return slices.DeleteFunc(cs, func(c string) bool { return slices.Contains(other, c) })
}

// oneValue reports whether the leaves hold one value.
func oneValue(ix *index, ls []int32) bool {
	for _, l := range ls[1:] {
		if ix.leaves[l].num != ix.leaves[ls[0]].num {
			return false
		}
	}
	return true
}

func knownDim(lf *leaf) bool { return lf.unit() != nil || lf.dim != dimNone }

// oneField reports whether the leaves are one field (one pointer, or one
// key across the copies of a value).
func oneField(ix *index, ls []int32) bool {
	for _, l := range ls[1:] {
		if ix.leaves[l].ptr() != ix.leaves[ls[0]].ptr() {
			return false
		}
	}
	return true
}

// freeApplies reports whether "free" in the claim is a price of zero:
// free shipping, 免运费, no fee — not a free trial or free cancellation,
// and not "free over $50" (a condition, checked by its number).
func (cx *claim) freeApplies() bool {
	for _, m := range cx.nums {
		if !m.free {
			return false
		}
	}
	return hasAny(cx.concepts, conceptRoles["free"]...)
}

// conceptRoles are the lexicon's [concept roles]: the concepts a rule
// reads by their role (lexicon.txt says each).
var conceptRoles = func() map[string][]string {
	m := map[string][]string{}
	for _, l := range langData.Lines("concept roles") {
		m[l.Name] = append(m[l.Name], l.Words...)
	}
	return m
}()

func containsLeaf(s []int32, l int32) bool {
	i := sort.Search(len(s), func(i int) bool { return s[i] >= l })
	return i < len(s) && s[i] == l
}

func hasAny(s []string, xs ...string) bool {
	for _, x := range xs {
		for _, y := range s {
			if x == y {
				return true
			}
		}
	}
	return false
}

func supported(ix *index, reason string, ls ...int32) fact {
	f := fact{verdict: events.VerdictSupported, reason: reason, leaves: ls}
	for _, l := range ls {
		f.refs = append(f.refs, ix.ref(l))
	}
	return f
}

// near reports whether evidence value x equals claimed value v within the
// tolerance of any of v's candidates (ignoring units: derived values).
func (cx *claim) near(m *numMention, x float64, ks []cand) bool {
	for _, k := range ks {
		if math.Abs(x-k.v) <= k.tol {
			return true
		}
	}
	return false
}

// checkBound checks "more than 10", "within 3 days", "不超过 5 件": every
// field the claim names must satisfy it; with no such field, the evidence
// stating the same number (a limit of "up to 300 lbs") supports it.
func (cx *claim) checkBound(m *numMention, targets []int32) fact {
	ix := cx.ix
	if len(targets) == 0 {
		for _, l := range cx.matches(m, m.v) {
			// The same number stated as a limit ("up to 300 lbs"), strictly:
			// "超过 10 亿" is not "9.8 亿" rounded.
			x, ok := cx.inClaimUnit(m, &ix.leaves[l])
			if cx.inScope(l) && ok && math.Abs(x-m.v) <= cx.c.cfg.Tolerance*math.Abs(m.v) {
				return supported(ix, "the evidence states the same bound", l)
			}
		}
		if m.unit != nil && m.unit.dim == dimTime {
			if f, ok := cx.durationAsDates(m); ok {
				return f
			}
		}
		return fact{verdict: events.VerdictUnsupported, reason: "no evidence field for the bound"}
	}
	tol := cx.c.tolerance(m, m.v)
	var held []int32
	for _, t := range targets {
		lf := &ix.leaves[t]
		x, ok := cx.inClaimUnit(m, lf)
		if !ok {
			continue
		}
		// A range in the evidence ("3-5 days") must hold at both ends.
		y := x + (lf.hi - lf.num)
		hold := false
		switch m.bound {
		case cueGT:
			hold = x > m.v
		case cueGE:
			hold = x >= m.v-tol
		case cueLT:
			hold = y < m.v
		case cueLE:
			hold = y <= m.v+tol
		}
		if !hold {
			return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(t)},
				reason: "bound fails: evidence says " + lf.raw() + " at " + lf.ptr()}
		}
		held = append(held, t)
	}
	if len(held) == 0 {
		return fact{verdict: events.VerdictUnsupported, reason: "no comparable evidence value"}
	}
	return supported(ix, "bound holds", held[:min(len(held), cx.c.cfg.EvidenceRefsMax)]...)
}

// inClaimUnit expresses an evidence value in the claim's unit.
func (cx *claim) inClaimUnit(m *numMention, lf *leaf) (float64, bool) {
	if m.unit == nil || lf.unit() == nil {
		if m.unit != nil && m.unit.dim == dimPercent && lf.num <= 1 && lf.unit() == nil {
			return lf.num * 100, true
		}
		return lf.num, true
	}
	if m.unit.dim == dimPercent && lf.unit().dim == dimPercent {
		return lf.num * lf.unit().factor * 100, true
	}
	if !compatible(m.unit, lf.unit()) {
		return 0, false
	}
	if x, ok := convert(lf.num, lf.unit(), m.unit); ok {
		return x, true
	}
	return lf.num, m.unit.dim == lf.unit().dim
}

// checkRange checks "between 3 and 5 days", "3-5 个工作日".
func (cx *claim) checkRange(m *numMention, targets []int32, concepts []string) fact {
	ix := cx.ix
	lo := cx.matches(m, m.v)
	hi := cx.matches(&numMention{unit: m.unit, decimals: m.decimals, mag: m.mag, approx: m.approx}, m.hi)
	for _, t := range targets {
		lf := &ix.leaves[t]
		if lf.hi != lf.num && containsLeaf(lo, t) {
			// A range in a string: both ends must match.
			x, _ := cx.inClaimUnit(m, lf)
			y := x + (lf.hi - lf.num)
			if math.Abs(y-m.hi) <= cx.c.tolerance(m, m.hi) {
				return supported(ix, "range matches", t)
			}
		}
	}
	if loT, hiT := rangeEnds(targets, lo, hi); loT >= 0 && hiT >= 0 {
		return supported(ix, "range matches", loT, hiT)
	}
	for _, t := range targets {
		x, ok := cx.inClaimUnit(m, &ix.leaves[t])
		if ok && ix.leaves[t].hi == ix.leaves[t].num && x >= m.v-cx.c.tolerance(m, m.v) && x <= m.hi+cx.c.tolerance(m, m.hi) && len(targets) == 1 {
			return supported(ix, "value within the range", t)
		}
	}
	if len(targets) > 0 && cx.scoped {
		// "raises ROUGE-L from 41.2 to 43.5": the ends may belong to two
		// subjects; look for both in the same field of any subject.
		all := cx.widened().targets(concepts, func(lf *leaf) bool { return lf.kind == kindNum && dimFits(lf, m.unit) })
		if a, b := rangeEnds(all, lo, hi); a >= 0 && b >= 0 {
			return supported(ix, "range ends match", a, b)
		}
	}
	if len(targets) > 0 {
		return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(targets[0])},
			reason: "range differs: evidence says " + ix.leaves[targets[0]].raw() + " at " + ix.leaves[targets[0]].ptr()}
	}
	var a, b int32 = -1, -1
	for _, l := range lo {
		if cx.inScope(l) {
			a = l
			break
		}
	}
	for _, l := range hi {
		if cx.inScope(l) && l != a {
			b = l
			break
		}
	}
	if a >= 0 && b >= 0 {
		return supported(ix, "range matches", a, b)
	}
	if a >= 0 && ix.leaves[a].hi != ix.leaves[a].num {
		return supported(ix, "range matches", a)
	}
	if m.unit != nil && m.unit.dim == dimTime {
		if f, ok := cx.durationAsDates(m); ok {
			return f
		}
	}
	return fact{verdict: events.VerdictUnsupported, reason: "no evidence for the range"}
}

// rangeEnds returns the first target found among the range's low leaves and
// the first other one among its high leaves (-1 when none).
func rangeEnds(targets, lo, hi []int32) (loT, hiT int32) {
	loT, hiT = -1, -1
	for _, t := range targets {
		if loT < 0 && containsLeaf(lo, t) {
			loT = t
		} else if hiT < 0 && containsLeaf(hi, t) {
			hiT = t
		}
	}
	return loT, hiT
}

// attributed returns the field of another result holding the claimed
// value (one of in) when the claim names a value beside it: a sentence
// citing several results ("储蓄卡的余额为 18250.40 元" beside a transfer's
// fee) takes each value from the result whose fields it names, not from
// the field its attribute word found in another.
func (cx *claim) attributed(in, targets []int32) (int32, bool) {
	ix := cx.ix
	for _, l := range in {
		lf := &ix.leaves[l]
		if lf.kind != kindNum || slices.ContainsFunc(targets, func(t int32) bool { return ix.leaves[t].ev == lf.ev }) {
			continue
		}
		if lf.node >= 0 && cx.namesSibling(lf.node, l) {
			return l, true
		}
	}
	return -1, false
}

// namesSibling reports whether the claim's text holds a string value of
// node n other than leaf l (a name, a type, a place of the same object).
func (cx *claim) namesSibling(n, l int32) bool {
	ix := cx.ix
	nd := &ix.nodes[n]
	text := strings.ToLower(cx.text)
	for s := nd.leafLo; s < nd.leafHi; s++ {
		sf := &ix.leaves[s]
		if s == l || sf.kind != kindStr || sf.text || sf.node != n {
			continue
		}
		v := sf.str()
		if len([]rune(v)) >= 2 && strings.Contains(text, v) {
			return true
		}
	}
	return false
}
