package check

import (
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// ---- checking a number ------------------------------------------------------

// cand is a claimed value expressed in one unit, with its tolerance.
type cand struct {
	v, tol float64
	u      *evidence.Unit
}

// tolerance returns the absolute tolerance of a claimed value v written
// with m's precision.
func (c *Checker) tolerance(m *evidence.NumMention, v float64) float64 {
	rel := c.cfg.Tolerance
	half := 0.5 * math.Pow(10, -float64(m.Decimals)) * m.Mag
	if m.YearLike() {
		return 0.5 // "2016" is not 2018 within 1%: a year is written exactly
	}
	if m.Clock {
		// "1:14:51" is written to the second (cut or rounded: a second
		// either way), not within 1% (45 s) of it.
		return math.Pow(10, -float64(m.Decimals)) * (1 + 1e-9)
	}
	if m.Unit != nil && m.Unit.Dim == evidence.DimCurrency && m.Decimals == 0 && m.Mag == 1 && !m.Approx {
		half = 0 // "$5" is not a rounded "$4.50": prices are written exactly
	}
	if !m.Approx {
		// "2 万" is not 18,600: rounding stays within 2.5%.
		half = math.Min(half, math.Max(0.025*math.Abs(v), 0.5*math.Pow(10, -float64(m.Decimals))))
	}
	if m.Approx && m.Unit != nil && m.Unit.Dim == evidence.DimPercent {
		// "about 13%": a point either way, not 5% of the value.
		return math.Max(math.Max(half, 1), c.cfg.Tolerance*math.Abs(v))
	}
	if !m.Approx && m.Decimals > 0 && m.Unit != evidence.UPercent {
		// "93.4" says 93.35–93.45: the digits written are the precision.
		// (Unit conversions and percentages keep the relative tolerance.)
		return math.Max(half*(1+1e-9), 1e-9)
	}
	if !m.Approx && m.Decimals == 0 && m.Mag == 1 && math.Abs(v) >= 100 && v == math.Trunc(v) && math.Mod(math.Abs(v), 10) != 0 {
		// "rated 2795" is not 2802: an integer whose last digit is not
		// zero is written to the unit, so a unit either way (it may be
		// cut, 212 for 212.7), not a share of the value.
		return 1
	}
	if m.Approx && m.Decimals == 0 && v != 0 {
		// "about 20", "约300年": the value rounded at the place of the
		// last non-zero digit written, at most ApproxTolerance of it
		// either way; never narrower than an unhedged number ("about 720"
		// is not 712, which rounds to 710: the digits written say how
		// close the writer knew it).
		p := 1.0
		for x := math.Abs(v) / m.Mag; x >= 10 && math.Mod(x, 10) == 0; x /= 10 {
			p *= 10
		}
		half = math.Max(half, math.Min(0.5*p*m.Mag, c.cfg.ApproxTolerance*math.Abs(v)))
	}
	return math.Max(math.Max(rel*math.Abs(v), half), 1e-9)
}

// candidates expresses claimed value v in every unit it may appear in,
// appended to out (room for eight spares the caller an allocation).
func (c *Checker) candidates(out []cand, m *evidence.NumMention, v float64) []cand {
	tol := c.tolerance(m, v)
	u := m.Unit
	switch {
	case u == nil || u.Dim == evidence.DimCurrency || u.Dim == evidence.DimCount:
		return append(out, cand{v, tol, u})
	case u.Dim == evidence.DimPercent:
		return append(out, cand{v, tol, evidence.UPercent}, cand{v / 100, tol / 100, evidence.UFrac})
	case u.Scale:
		return append(out, cand{v, tol, evidence.UC}, cand{v, tol, evidence.UF}, cand{v, tol, u})
	}
	out = append(out, cand{v, tol, u})
	for _, cu := range evidence.CanonicalUnits[u.Dim] {
		if cu == u {
			continue
		}
		if x, ok := evidence.Convert(v, u, cu); ok {
			t := tol * evidence.ScaleRatio(u, cu)
			if !m.Clock {
				t = math.Max(t, c.cfg.Tolerance*math.Abs(x))
			}
			out = append(out, cand{x, t, cu})
		}
	}
	return out
}

// unitFits reports whether evidence leaf lf may hold candidate k of a
// number claimed in unit claimed.
func unitFits(lf *evidence.Leaf, k cand, claimed *evidence.Unit) bool {
	return unitFitsAs(evidence.NumUnit{UnitID: lf.UnitID, Dim: lf.Dim}, k, claimed)
}

// unitFitsAs is unitFits of a leaf in unit nu.
func unitFitsAs(nu evidence.NumUnit, k cand, claimed *evidence.Unit) bool {
	switch u := evidence.UnitTable[nu.UnitID]; {
	case claimed == nil:
		return true
	case u != nil:
		if k.u == evidence.UFrac {
			return u.Dim == evidence.DimPercent && u != evidence.UPercent
		}
		return evidence.SameUnit(k.u, u) && evidence.Compatible(claimed, u)
	case nu.Dim != evidence.DimNone:
		if claimed.Dim == evidence.DimPercent {
			return nu.Dim == evidence.DimPercent
		}
		return (nu.Dim == claimed.Dim || claimed.Dim == evidence.DimCount && nu.Dim == evidence.DimCount) && (k.u == claimed || claimed.Scale)
	default:
		return k.u == claimed || k.u == evidence.UFrac || claimed.Scale && k.u != claimed || claimed.Dim == evidence.DimCount
	}
}

// matches returns the numeric leaves equal to the claimed value v (any
// candidate), in index order. What it returns is shared: callers only
// read it.
//
// The leaves depend on v, the tolerance and the unit claimed only (see
// candidates and unitFitsAs): kept by them in the index for the claims
// after ("ships in 2 to 4 days" said of every product).
func (cx *claim) matches(m *evidence.NumMention, v float64) []int32 {
	ix := cx.ix
	key := evidence.MatchKey{V: v, Tol: cx.c.tolerance(m, v), Unit: m.Unit, Clock: m.Clock}
	if ls, ok := ix.Cache.Matches[key]; ok {
		return ls
	}
	ls := cx.findMatches(m, v)
	if ix.Cache.Matches == nil {
		ix.Cache.Matches = map[evidence.MatchKey][]int32{}
	}
	ix.Cache.Matches[key] = ls
	return ls
}

// findMatches is matches without the cache.
func (cx *claim) findMatches(m *evidence.NumMention, v float64) []int32 {
	ix := cx.ix
	var out []int32
	var room [8]cand
	var spanRoom [8][2]int
	spans := spanRoom[:0]
	vals, units := ix.NumValues()
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
			if unitFitsAs(units[i], k, m.Unit) {
				out = append(out, ix.Nums[i])
			}
		}
	}
	if len(ks) > 1 || !slices.IsSorted(out) {
		out = ix.SortLeaves(out)
	}
	return slices.Clip(out)
}

// numMatchesMax bounds the evidence numbers one reading of a claimed number
// is matched against: an answer of thirty thousand claims against a result
// of a quarter million equal numbers stays linear.
const numMatchesMax = 256

// dimFits reports whether a leaf may measure what a number claimed in unit
// u measures.
func dimFits(lf *evidence.Leaf, u *evidence.Unit) bool {
	if u == nil {
		return true
	}
	d := lf.Dim
	if lf.Unit() != nil {
		d = lf.Unit().Dim
	}
	if d == evidence.DimNone {
		return true
	}
	if u.Dim == evidence.DimCount {
		return d == evidence.DimCount
	}
	if d != u.Dim {
		return false
	}
	return lf.Unit() == nil || evidence.Compatible(u, lf.Unit())
}

// numberConcepts returns the concepts a claimed number is looked up
// by: the claim's, the noun after the number, and what its unit measures.
func (cx *claim) numberConcepts(m *evidence.NumMention) []string {
	// The claim's words, less those naming another number ("$348 … with
	// free shipping": shipping is what is free, not what costs $348) that
	// is no label ("Line 4's output": 4 names the line, not the output).
	var c []string
	for _, x := range cx.concepts {
		if cx.namesRowOnly(x, m) {
			continue // 第三站有22人: 站 names the row, not what 22 counts
		}
		other := false
		for i := range cx.nums {
			if o := &cx.nums[i]; o != m && o.Start != cx.labelAt[0] && slices.Contains(o.Head, x) && !slices.Contains(m.Local, x) {
				other = true
			}
		}
		if !other {
			c = append(c, x)
		}
	}
	c = append(c, m.Head...)
	if m.Unit != nil {
		c = append(c, evidence.UnitConceptNames(m.Unit)...)
	}
	return evidence.DedupeOwn(c) // NB: c is a new array (appended to from nil)
}

// namesRowOnly reports whether concept c comes to number m only from the
// noun an ordinal counted the claim's row by (the fourth week, 第五天): it
// names the row, and the number measures something of it, unless c is
// the number's own noun too.
func (cx *claim) namesRowOnly(c string, m *evidence.NumMention) bool {
	return slices.Contains(cx.rowNoun, c) && !slices.Contains(m.Head, c) && m.Start != cx.labelAt[0]
}

// checkNumber checks one claimed number. A scope inherited through a
// pronoun from an earlier sentence is a guess: when the number fails
// there but holds in the evidence at large ("In Japan it sells for
// ¥3,600" after a sentence about the EU), the wider reading wins.
func (cx *claim) checkNumber(m *evidence.NumMention) fact {
	f := cx.checkNumberIn(m)
	if g, ok := cx.checkPairMember(m, f); ok {
		// "31 of its 38 beds", "655 against a plan of 720": a number is
		// never contradicted by the other member of its part/whole pair.
		return g
	}
	if g, ok := cx.spanJudge(m, f); ok {
		// "he spent 50 minutes there" beside arrive and depart: the span
		// between two fields of its row (spans.go).
		return g
	}
	if f.verdict == events.VerdictContradicted && m.Bound == 0 && (cx.negs-cx.negLex)%2 == 1 {
		// "844 runners did not finish" beside finishers 47366, "it is not
		// $5": a negated claim is not contradicted by another value of
		// the field its words name; that value may be just what it says.
		return fact{verdict: events.VerdictUnsupported, weak: true, reason: "the claim is negated; " + f.reason}
	}
	if f.verdict == events.VerdictContradicted && m.Unit == nil && m.MaybeUnit != nil && !m.IsRange && m.Bound == 0 {
		// "25,910 m": read with the letter as its unit, or not judged.
		u := *m
		u.Unit = m.MaybeUnit
		switch g := cx.checkNumberIn(&u); g.verdict {
		case events.VerdictSupported, events.VerdictContradicted:
			return cx.checkDirection(g) // wrong either way, or right with it
		}
		return fact{verdict: events.VerdictUnsupported, weak: true, reason: "the unit after the number is unclear; " + f.reason}
	}
	if d := cx.direction(); d < 0 && f.verdict != events.VerdictSupported && m.V > 0 && !m.IsRange && m.Bound == 0 {
		// "fell 1.2%" is a change of -1.2.
		neg := *m
		neg.V, neg.Hi = -m.V, -m.Hi
		if g := cx.checkNumberIn(&neg); g.verdict == events.VerdictSupported && len(g.leaves) == 1 && signedChange(&cx.ix.Leaves[g.leaves[0]]) {
			return g
		}
	}
	if m.UnitWord == "折" && f.verdict == events.VerdictContradicted && m.V > 0 && m.V < 100 && !m.IsRange {
		// 打七折 is 70 % of the price paid, and a discount field may give
		// the share taken off instead (discount_pct 30): either reading
		// of the field bears it out.
		off := *m
		off.V, off.Hi = 100-m.V, 100-m.Hi
		if g := cx.checkNumberIn(&off); g.verdict == events.VerdictSupported {
			return g
		}
	}
	if cx.cues&evidence.CueDebt != 0 && f.verdict != events.VerdictSupported && m.V > 0 && !m.IsRange && m.Bound == 0 {
		// "owes 3,420", 欠款 3420 元: a balance of -3420.
		neg := *m
		neg.V, neg.Hi = -m.V, -m.Hi
		if g := cx.checkNumberIn(&neg); g.verdict == events.VerdictSupported {
			return g
		}
	}
	if cx.soft && f.verdict != events.VerdictSupported {
		if g := cx.widened().checkNumberIn(m); g.verdict == events.VerdictSupported && !cx.otherRowOnly(g.leaves, m) {
			return cx.checkDirection(g)
		}
	}
	return cx.checkDirection(f)
}

func (cx *claim) checkNumberIn(m *evidence.NumMention) fact {
	ix := cx.ix
	if m.Free && !cx.freeApplies() {
		return fact{}
	}
	if cx.own && len(cx.Spans) == 1 && cx.Names[0] == "" && cx.Spans[0][0] >= 0 && m.Start >= cx.Spans[0][0] && m.End <= cx.Spans[0][1] {
		return fact{} // the number that labels the claim's row (rowByLabel) is its name, no value
	}
	concepts := cx.numberConcepts(m)
	if cx.numberNamesKey(m, concepts) {
		return fact{} // "the five-year average" beside five_year_avg_t_ha: a word of the key, no value
	}
	if cx.rateDenominator(m) {
		return fact{} // "€140 per 100 grams": what the rate is per, no value of a field of grams
	}
	if cx.notAValue(m) {
		if f, ok := cx.count(m, append(append([]string(nil), cx.concepts...), m.Head...)); ok {
			return f
		}
		return fact{} // "in pen 5", "two of the three rinks": a label or the rows' size, no value (arithcue.go)
	}
	kind := cx.kindOf(m)
	keep := func(lf *evidence.Leaf) bool {
		return lf.Kind == evidence.KindNum && dimFits(lf, m.Unit) && kind.fitsKind(lf)
	}
	find := func(cs []string) []int32 {
		ts := cx.targets(cs, keep)
		if m.Unit != nil && m.Unit.Dim != evidence.DimCount && slices.ContainsFunc(ts, func(l int32) bool { return knownDim(&ix.Leaves[l]) }) {
			// A field known to measure what the unit measures beats one of
			// unknown kind: "1 bag up to 23 kg" is about weight_limit_kg.
			ts = slices.DeleteFunc(ts, func(l int32) bool { return !knownDim(&ix.Leaves[l]) })
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
	if len(m.Head) > 0 {
		targets = find(m.Head)
	}
	near, local := m.Near, m.Local
	if len(cx.rowNoun) > 0 {
		near = slices.DeleteFunc(slices.Clone(near), func(c string) bool { return cx.namesRowOnly(c, m) })
		local = slices.DeleteFunc(slices.Clone(local), func(c string) bool { return cx.namesRowOnly(c, m) })
	}
	deducted := cx.deductedConcepts()
	if inc := append(append(cx.includedConcepts(m), cx.comparedConcepts(m)...), deducted...); len(inc) > 0 {
		// "$480 including tax": tax is a part of the number, not its field.
		drop := func(c string) bool { return slices.Contains(inc, c) }
		near = slices.DeleteFunc(slices.Clone(near), drop)
		local = slices.DeleteFunc(slices.Clone(local), drop)
		concepts = slices.DeleteFunc(concepts, drop)
	}
	if len(targets) == 0 && len(near) > 0 {
		targets = find(near)
	}
	if len(targets) == 0 && len(local) > 0 {
		if m.Unit != nil {
			local = evidence.Dedupe(append(append([]string(nil), local...), evidence.UnitConceptNames(m.Unit)...))
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
			return overlap(named, ix.Leaves[t].Own()) > 0 || overlap(named, ix.Leaves[t].Ctx()) > 0
		}) {
			// Found by what the unit measures only; a field the claim's
			// words name, in a unit that agrees, is what it is about.
			byUnit = true
			if alt := find(named); len(named) > 0 && len(alt) > 0 {
				targets, byUnit = alt, false
			}
		}
	}
	if len(targets) == 0 && m.Unit != nil && m.Unit.Dim != evidence.DimCount && m.Unit.Dim != evidence.DimNone && cx.scoped {
		// "A: $25" — no attribute word, but the unit names the field.
		targets, byUnit = cx.scopeLeaves(func(lf *evidence.Leaf) bool {
			d := lf.Dim
			if lf.Unit() != nil {
				d = lf.Unit().Dim
			}
			return lf.Kind == evidence.KindNum && d == m.Unit.Dim && dimFits(lf, m.Unit)
		}), true
	}
	if m.Bound != 0 && cx.acrossOver(m) {
		plain := *m
		plain.Bound = 0
		m = &plain
	}
	if m.Bound != 0 {
		return cx.checkBound(m, targets)
	}
	if m.IsRange {
		return cx.checkRange(m, targets, concepts)
	}
	if cx.statesMargin(m) {
		// "won by 45 points": the difference of the two sides' scores,
		// never a field that happens to hold 45.
		return cx.checkMargin(m, targets)
	}
	all := cx.matches(m, m.V)
	in := cx.inScopeOf(all)
	// 1. A matching field for this subject and attribute, unless the
	// claim's words name a sibling of it (swapJudge).
	for _, t := range targets {
		if containsLeaf(in, t) {
			if f, ok := cx.swapJudge([2]int{m.Start, m.End}, t, cx.numRivals(t), func(l int32) bool { return containsLeaf(in, l) }, cx.measures(m), named); ok {
				return f
			}
			return supported(ix, "value matches", t)
		}
	}
	pairs := cx.cues&(evidence.CueDerive|evidence.CueThan|evidence.CueMore|evidence.CueLess) != 0 || m.Unit != nil && m.Unit.Dim == evidence.DimPercent || hasAny(m.Head, "total")
	if cx.statesDifference(m) && !slices.ContainsFunc(targets, func(t int32) bool { return signedChange(&ix.Leaves[t]) || ix.Leaves[t].KeyUp || ix.Leaves[t].KeyDown }) {
		// "2.8 m below full": the difference of two fields, or nothing
		// (a field holding the change, 涨跌, is judged as any value).
		return cx.checkDifference(m, targets)
	}
	if len(deducted) > 0 && (m.Unit == nil || m.Unit.Dim != evidence.DimPercent) {
		// "after fees the café received £3,138.60": gross less fees, never
		// the fees.
		return cx.checkNet(m, targets, deducted)
	}
	if cx.statesRemainder(m) {
		switch {
		case len(targets) > 0 && !cx.holdsRemainder(targets):
			// "six seats left" beside seats 110 and sold 104: what is left of
			// the whole, not the whole.
			return cx.checkRemainder(m, targets)
		case len(targets) == 0:
			// "15.5 hours left" beside limit_hours and ran_hours: no field
			// is named, but two of its kind give it.
			if f, ok := cx.derived(m, nil, true); ok {
				return f
			}
		}
	}
	if len(targets) > 0 {
		// A field whose key the claim names wholly (each concept of the
		// key is one of the claim's) holds the value, though another field
		// named scored higher: 金额 names both an amount and a fee.
		for _, l := range in {
			if lang.IsAllDigits(evidence.LastToken(ix.Leaves[l].Ptr())) || !kind.fitsKind(&ix.Leaves[l]) {
				continue
			}
			if namesKeyWholly(ix, concepts, l) {
				return supported(ix, "value matches", l)
			}
			if unitKeyOnly(&ix.Leaves[l], m) {
				return supported(ix, "value matches its unit's field", l)
			}
		}
		if !byUnit && cx.cues&(evidence.CueDerive|evidence.CueThan|evidence.CueMore|evidence.CueLess) == 0 && !hasAny(m.Head, "total") &&
			(m.Unit == nil || m.Unit.Dim != evidence.DimPercent || slices.ContainsFunc(targets, func(t int32) bool {
				return ix.Leaves[t].Dim == evidence.DimPercent || ix.Leaves[t].Unit() == evidence.UPercent
			})) {
			// The field the claim names states the value (a percentage a
			// percentage field): one found between two other numbers is
			// a coincidence, not it.
			pairs = false
		}
		if f, ok := cx.derived(m, targets, pairs); ok {
			return f
		}
		if f, ok := cx.judgeDerived(m, targets, cx.derivedKindOf()); ok {
			// "三条线一共68名工人", 场均失分16分: computed from the fields
			// it names, never the nearest one's value.
			return f
		}
		if l, ok := cx.attributed(in, targets); ok {
			return supported(ix, "value matches the result the claim names", l)
		}
		best := targets[0]
		if byUnit && (cx.namesUnknown(named) || !oneValue(ix, targets)) {
			if f, ok := cx.rowSwap(m, all); ok {
				return f
			}
			// Bound by its unit alone while the claim names something no
			// field is about ("the fitre is 42 kg" beside bezam_kg), or
			// fields of that unit differ: the claim may be about any of
			// them, or none. Undecided: a judge may know the paraphrase.
			return fact{verdict: events.VerdictUnsupported, weak: true,
				reason: "no field is about what the claim names; " + ix.Leaves[best].Ptr() + " only shares its unit"}
		}
		if byUnit && !namesKeyWholly(ix, concepts, best) && !slices.ContainsFunc(named, func(c string) bool { return len(ix.Concept(c)) > 0 }) &&
			slices.ContainsFunc(in, func(l int32) bool { return l != best && !lang.IsAllDigits(evidence.LastToken(ix.Leaves[l].Ptr())) }) &&
			!cx.namesKeyOfDim(m) {
			// "儿童票99元" beside towel_deposit_fen 5000 and child_fen 9900:
			// bound to best by its unit alone, naming nothing any key
			// names, while another field of the unit in scope holds the
			// value. The claim may be about that one (a paraphrase of its
			// key), so the binding is not unambiguous: undecided, never
			// contradicted. ("Her net is $444.65" beside net_cents and
			// gross_cents 44465 names a key, 现价 6999 元 beside price
			// 5999 names all of best's: judged as before.)
			return fact{verdict: events.VerdictUnsupported, weak: true,
				reason: "the value is at another field of its unit; " + ix.Leaves[best].Ptr() + " only shares its unit"}
		}
		if cx.outOf(m) {
			// "39.6 out of 50": the scale of another number, not a value
			// of the field that number is about.
			if len(in) > 0 {
				return supported(ix, "value matches", in[0])
			}
			return fact{}
		}
		if l, ok := cx.boundElsewhere(m, concepts, in, best); ok {
			return fact{verdict: events.VerdictUnsupported, weak: true,
				reason: "the value is at " + ix.Leaves[l].Ptr() + ", a field the claim may be about as well as " + ix.Leaves[best].Ptr()}
		}
		if w := cx.perWord(m); w != "" && !keyHasWord(&ix.Leaves[best], w) {
			// "14 cents per word" beside total_cents: a rate is the value
			// of a field per that word (rate_per_word_cents), not of best.
			for _, l := range in {
				if keyHasWord(&ix.Leaves[l], w) {
					return supported(ix, "value matches", l)
				}
			}
			if f, ok := cx.perWordQuotient(m, targets, w); ok {
				return f // "338 points per leg": points ÷ legs of its row
			}
			return fact{verdict: events.VerdictUnsupported, weak: true,
				reason: "the claim states a rate per " + w + "; " + ix.Leaves[best].Ptr() + " is none"}
		}
		if f, ok := cx.rateJudge(m, best); ok {
			return f
		}
		if otherKind(&ix.Leaves[best], m) {
			return fact{verdict: events.VerdictUnsupported, weak: true,
				reason: ix.Leaves[best].Ptr() + " holds another kind of value than the claim's number"}
		}
		if f, ok := cx.siblingJudge(best, cx.numRivals(best), func(l int32) bool { return containsLeaf(in, l) }, named); ok {
			return f
		}
		return cx.inverted(m, targets, best, fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(best)},
			reason: "evidence says " + ix.Leaves[best].Raw() + " at " + ix.Leaves[best].Ptr()})
	}
	// 2. No field named by the claim. A count of the list the noun after
	// the number names ("two shipments") comes first; then a match the
	// claim can own — its keys share a word with the claim, its unit is
	// the claim's, or it is the only field with that value.
	if len(m.Head) > 0 || m.HeadWord != "" {
		if f, ok := cx.count(m, m.Head); ok {
			return f
		}
		if f, ok := cx.wholeCount(m); ok {
			return f
		}
	}
	if cx.cues&evidence.CueThan != 0 && cx.cues&(evidence.CueMore|evidence.CueLess) != 0 && len(cx.Groups) >= 2 {
		// "4 more points per game than Brown": a difference first.
		if f, ok := cx.derived(m, nil, true); ok {
			return f
		}
	}
	// A bound (ref_high) beside a reading (value) holds the value and the
	// claim names no bound: the reading decides.
	var boundOnly, reading int32 = -1, -1
	for _, l := range in {
		lf := &ix.Leaves[l]
		if m.Unit != nil && m.Unit.Dim == evidence.DimPercent && lf.Unit() == nil && lf.Dim != evidence.DimPercent && overlap(concepts, lf.Own()) == 0 {
			continue // "14%" is not the 15 of "iPhone 15"
		}
		if boundKey(lf.Ptr()) && !cx.namesBound() {
			if r, ok := cx.readingBeside(l, m); ok {
				if boundOnly < 0 {
					boundOnly, reading = l, r
				}
				continue
			}
		}
		if len(cx.concepts) == 0 || overlap(concepts, lf.Own()) > 0 || overlap(concepts, lf.Ctx()) > 0 ||
			m.Unit != nil && m.Unit.Dim != evidence.DimCount && (lf.Unit() != nil || lf.Dim == m.Unit.Dim) || oneField(ix, in) {
			if f, ok := cx.swapJudge([2]int{m.Start, m.End}, l, cx.numRivals(l), func(r int32) bool { return containsLeaf(in, r) }, cx.measures(m), named); ok {
				return f
			}
			return supported(ix, "value matches", l)
		}
	}
	if boundOnly >= 0 {
		// "BUN was 27" beside {"value": 32, "ref_high": 27}: the reading
		// of the row the bound belongs to decides, not the bound. A row
		// without such a reading ({"day": "Wed", "high": 65}) has no bound:
		// its high is a value.
		if cx.matchesLeaf(m, reading) {
			return supported(ix, "value matches", reading)
		}
		return cx.inverted(m, nil, reading, fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(reading)},
			reason: "evidence says " + ix.Leaves[reading].Raw() + " at " + ix.Leaves[reading].Ptr() + "; " + ix.Leaves[boundOnly].Ptr() + " is a bound"})
	}
	if f, ok := cx.derived(m, nil, pairs || cx.scoped); ok {
		return f
	}
	if m.Unit != nil && m.Unit.Dim == evidence.DimTime {
		if f, ok := cx.durationAsDates(m); ok {
			return f
		}
	}
	if cx.arithCueOf(m) != "" {
		if f, ok := cx.computed(m, targets); ok {
			return f // "14 metres a day" beside metres and days: computed (arithcue.go)
		}
	}
	if len(in) > 0 {
		return fact{verdict: events.VerdictUnsupported, weak: true,
			reason: "the value appears at " + ix.Leaves[in[0]].Ptr() + " but not as what the claim says"}
	}
	if f, ok := cx.rowSwap(m, all); ok {
		return f
	}
	for _, l := range all {
		return fact{verdict: events.VerdictUnsupported,
			reason: "the value belongs to another subject at " + ix.Leaves[l].Ptr()}
	}
	if l, ok := cx.onlyFieldOfDim(m); ok && cx.derivedKindOf() == derivedNone {
		return cx.inverted(m, nil, l, fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(l)},
			reason: "evidence says " + ix.Leaves[l].Raw() + " " + ix.Leaves[l].Unit().Name + " at " + ix.Leaves[l].Ptr() + ", the only field of what the unit measures"})
	}
	return fact{verdict: events.VerdictUnsupported, reason: "no evidence has this value"}
}

// boundWords are key words of a field that bounds a reading (internal/lang
// keys.txt).
var boundWords = evidence.LangData.Set("bound key words")

// boundKey reports whether the last key of ptr has a bound word as a token
// (ref_high, max_allowed).
func boundKey(ptr string) bool {
	for _, p := range lang.KeyParts(evidence.LastToken(ptr)) {
		if boundWords[strings.ToLower(p)] {
			return true
		}
	}
	return false
}

// namesBound reports whether the claim says a word of a bound (high,
// limit, 上限): then a bound field is what it may be about.
func (cx *claim) namesBound() bool {
	for _, w := range cx.words {
		if boundWords[strings.ToLower(w.S)] {
			return true
		}
	}
	return false
}

// readingBeside returns the one numeric field of a generic key (value,
// result, reading) in the object that holds bound b: the reading b bounds.
func (cx *claim) readingBeside(b int32, m *evidence.NumMention) (int32, bool) {
	ix := cx.ix
	ptr := ix.Leaves[b].Ptr()
	parent := ptr[:strings.LastIndexByte(ptr, '/')+1]
	found := int32(-1)
	for l := range ix.Leaves {
		lf := &ix.Leaves[l]
		p := lf.Ptr()
		if lf.Kind != evidence.KindNum || !strings.HasPrefix(p, parent) || strings.Contains(p[len(parent):], "/") {
			continue
		}
		if generic[strings.ToLower(p[len(parent):])] && dimFits(lf, m.Unit) {
			if found >= 0 {
				return -1, false
			}
			found = int32(l)
		}
	}
	return found, found >= 0
}

// generic are the keys that name no attribute of their own (value, result).
var generic = evidence.LangData.Set("generic keys")

// matchesLeaf reports whether m's value is lf's within m's tolerance.
func (cx *claim) matchesLeaf(m *evidence.NumMention, l int32) bool {
	return containsLeaf(cx.matches(m, m.V), l)
}

// acrossOver reports whether m follows "over" that comes after another
// number written in digits and its noun ("free on orders over $50" has
// none) ("flew 212.7 hours over 188 cycles", "5 goals over
// 3 games"): over is across, not more than, and m is a plain value.
func (cx *claim) acrossOver(m *evidence.NumMention) bool {
	if m.Start <= 0 || m.Start > len(cx.orig) {
		return false
	}
	before := strings.TrimRight(string(cx.orig[:m.Start]), " ")
	if !strings.HasSuffix(strings.ToLower(before), " over") {
		return false
	}
	at := len([]rune(before)) - len("over") // the rune where over starts
	for i := range cx.nums {
		n := &cx.nums[i]
		if n.End <= at && at-n.End <= 16 && n.Start < len(cx.orig) && unicode.IsDigit(cx.orig[n.Start]) &&
			!strings.ContainsAny(string(cx.orig[n.End:at]), ",;") {
			return true
		}
	}
	return false
}

// outOf reports whether m follows "out of" (a score's scale: "39.6 out of
// 50") or 满分.
func (cx *claim) outOf(m *evidence.NumMention) bool {
	if m.Start <= 0 || m.Start > len(cx.orig) {
		return false
	}
	before := strings.ToLower(strings.TrimRight(string(cx.orig[max(0, m.Start-12):m.Start]), " "))
	return strings.HasSuffix(before, "out of") || strings.HasSuffix(before, "满分")
}

// perWord returns the word after "per" that follows m and its unit
// ("14 cents per word", "5.25 minutes per km"), or "".
func (cx *claim) perWord(m *evidence.NumMention) string {
	if m.End < 0 || m.End >= len(cx.norm) {
		return ""
	}
	rest := cx.norm[m.End:min(len(cx.norm), m.End+24)]
	i := strings.Index(string(rest), " per ")
	if i < 0 {
		return ""
	}
	w := strings.FieldsFunc(string(rest)[i+5:], func(r rune) bool { return !unicode.IsLetter(r) })
	if len(w) == 0 {
		return ""
	}
	return w[0]
}

// namesKeyOfDim reports whether a word of the claim is a word of the key
// of a field in its scope measured as m is ("net" of net_cents): the claim
// names a field, though no concept of the lexicon says so.
func (cx *claim) namesKeyOfDim(m *evidence.NumMention) bool {
	ix := cx.ix
	for k, l := range cx.inScopeOf(ix.NumsInOrder()) {
		if k == fieldsWeighedMax {
			break // NB: the first fields of the evidence, in document order
		}
		lf := &ix.Leaves[l]
		if lf.Kind != evidence.KindNum || !dimFits(lf, m.Unit) {
			continue
		}
		key := evidence.LastToken(lf.Ptr())
		for i := range cx.words {
			w := &cx.words[i]
			if w.Cjk && len([]rune(w.S)) >= 2 && strings.Contains(key, w.S) || !w.Cjk && len(w.S) >= 3 && keyHasWord(lf, strings.ToLower(w.S)) {
				return true
			}
		}
	}
	return false
}

// keyHasWord reports whether the key of lf's field is a rate's with word
// w (stemmed) among others: rate_per_word_cents has word, pace_min_km has
// km; pages, the count of w itself, is none.
func keyHasWord(lf *evidence.Leaf, w string) bool {
	sw := lang.Stem(w)
	parts := lang.KeyParts(evidence.LastToken(lf.Ptr()))
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == w || lang.Stem(p) == sw {
			return true
		}
	}
	return false
}

// amountKeyWords are key words of a field that may hold a quantity of
// any kind: a total, an amount, a value, a price, a quantity used
// (keys.txt: generic keys, money key words, quantity key words).
var amountKeyWords = func() map[string]bool {
	m := map[string]bool{}
	for _, sec := range []string{"generic keys", "money key words", "duration words", "quantity key words"} {
		for w := range evidence.LangData.Set(sec) {
			m[w] = true
		}
	}
	return m
}()

// otherKind reports a field the claim's words chose that cannot hold what
// the claim's number m is: a number inside a longer string that gives it
// no unit (a seat "Block C, Row 12, Seat 7", a car's mark "TTGX 962114",
// an application number), or, for a number in a unit that measures a
// quantity (a weight, a length, a volume, energy …), a field of no
// dimension whose key is no total, amount or value and names no such
// unit (a block's number beside "3,075 tons"). Such a binding is not
// about the claim, so it decides nothing.
func otherKind(lf *evidence.Leaf, m *evidence.NumMention) bool {
	if d := leafDim(lf); d != evidence.DimNone {
		// A field whose key states what it measures (fuel_litres,
		// course_time_s) holds no value of another dimension: a sum of
		// money or a count of things is not compared with litres or
		// seconds. The binding is not unambiguous, so not contradicted.
		return m.Unit != nil && m.Unit.Dim != evidence.DimNone && m.Unit.Dim != d
	}
	if lf.Text && !lf.TextShort {
		return true
	}
	if m.Unit == nil {
		return false
	}
	switch m.Unit.Dim {
	case evidence.DimNone, evidence.DimCount, evidence.DimPercent, evidence.DimCurrency, evidence.DimTime, evidence.DimTemp:
		// NB: money, time and temperature are kept in keys of no unit
		// (deductible, avg_rescue_min, low): a field of no dimension may hold them.
		return false
	}
	for _, c := range lf.Own() {
		if amountKeyWords[c] {
			return false
		}
	}
	for _, p := range lang.KeyParts(evidence.LastToken(lf.Ptr())) {
		if amountKeyWords[p] || amountKeyWords[lang.Stem(p)] {
			return false
		}
	}
	return overlap(lf.Own(), evidence.UnitConceptNames(m.Unit)) == 0
}

// numberNamesKey reports whether the number m is written as one of the
// words of the key of a numeric field the claim's concepts name, whatever
// its unit ("five-year average" beside five_year_avg_t_ha, "30-day sales"
// beside sales_30_day): it names the field, it states no value of it.
func (cx *claim) numberNamesKey(m *evidence.NumMention, concepts []string) bool {
	if m.Start < 0 || m.End > len(cx.orig) || m.Start >= m.End {
		return false
	}
	w := strings.ToLower(string(cx.orig[m.Start:m.End]))
	joined := m.End < len(cx.orig) && cx.orig[m.End] == '-'
	if i := strings.IndexByte(w, '-'); i > 0 {
		w, joined = w[:i], true
	}
	if !joined {
		return false // only a word joined to the next by a hyphen, as keys join theirs
	}
	fields := cx.targets(concepts, func(lf *evidence.Leaf) bool { return lf.Kind == evidence.KindNum })
	return slices.ContainsFunc(fields, func(l int32) bool {
		return slices.Contains(lang.KeyParts(evidence.LastToken(cx.ix.Leaves[l].Ptr())), w)
	})
}

// boundElsewhere returns a field in the claim's scope holding m's value
// that the claim may be about as well as best, the field its words chose:
// one whose own words the claim shares. A field sharing only the unit is
// not one: a value that is its reference range's bound ("BUN was 27"
// beside value 32 and ref_high 27) is still contradicted. Then the binding is not unambiguous and the claim is not
// contradicted: "yielded 64.9 bushels per acre" beside bushels 2584 and
// bu_per_acre 64.9, "7.4 t/ha in 2024" beside a five-year average and the
// year's row. Unless the claim names best's key wholly ("total
// outstanding is $65" beside total_outstanding_minor and another row's
// amount of 6500): that binding is the claim's own. A year the scope holds
// is a row's label ("the 2025 yield" beside {"year": 2025, …}), whatever
// words its field has.
func (cx *claim) boundElsewhere(m *evidence.NumMention, concepts []string, in []int32, best int32) (int32, bool) {
	ix := cx.ix
	if namesKeyWholly(ix, concepts, best) {
		return 0, false
	}
	for _, l := range in {
		if l == best {
			continue
		}
		lf := &ix.Leaves[l]
		if lang.IsAllDigits(evidence.LastToken(lf.Ptr())) {
			continue
		}
		if overlap(concepts, lf.Own()) > 0 {
			return l, true
		}
		if m.Unit != nil && leafDim(lf) == m.Unit.Dim && overlap(m.Head, lf.Ctx()) > 0 && overlap(m.Head, ix.Leaves[best].Ctx()) == 0 {
			// "Nine £100,000 prizes" beside prize_fund and prizes[1].value:
			// money said of a noun is what one of the list it names is
			// worth, as much as a field whose key shares the noun.
			return l, true
		}
		if m.Unit == nil && m.Decimals == 0 && m.V >= 1900 && m.V <= 2099 && m.V == math.Trunc(m.V) {
			// A year the scope holds ("the 2025 yield", "in 2024" beside
			// a row's year: 2025) labels the row, no quantity of best's.
			return l, true
		}
	}
	return 0, false
}

// unitBoundDims are the dimensions whose unit alone binds a claim to the
// one field measured in them ("That covered 8.2 miles" beside distance_km
// alone): quantities converted by a factor. Money, counts, percentages,
// time (dates and durations are read elsewhere) and temperature are not.
var unitBoundDims = map[evidence.Dimension]bool{
	evidence.DimMass: true, evidence.DimLength: true, lang.DimVolume: true, lang.DimSpeed: true,
	lang.DimData: true, lang.DimEnergy: true, lang.DimPower: true,
}

// onlyFieldOfDim returns the one field of the evidence measured in a unit
// of m's dimension, when the claim names no field, no value of any field
// is m's in any unit (matches found none), and the claim names nothing
// the evidence does not know: the binding is unambiguous, so the number
// in the other magnitude (8.2 miles for 8.2 km) contradicts it. Two such
// fields, one out of the claim's scope, or a field of unknown unit: none.
func (cx *claim) onlyFieldOfDim(m *evidence.NumMention) (int32, bool) {
	if m.Unit == nil || m.Free || m.IsRange || m.Bound != 0 || !unitBoundDims[m.Unit.Dim] {
		return -1, false
	}
	ix := cx.ix
	_, units := ix.NumValues()
	found := int32(-1)
	for i, nu := range units {
		u := evidence.UnitTable[nu.UnitID]
		if nu.Dim != m.Unit.Dim && (u == nil || u.Dim != m.Unit.Dim) {
			continue
		}
		l := ix.Nums[i]
		lf := &ix.Leaves[l]
		if lf.Text || lf.Scaled || lf.Unit() == nil {
			return -1, false // a number in a text, or of unknown unit: not sure
		}
		if found >= 0 && ix.Leaves[found].Ptr() != lf.Ptr() {
			return -1, false
		}
		found = l
	}
	if found < 0 || len(cx.inScopeOf([]int32{found})) == 0 || cx.namesUnknown(cx.concepts) {
		return -1, false
	}
	return found, true
}

// unitConcepts returns the concepts only m's unit gives the claim: what
// the unit measures and the unit word's own concepts, less those another
// word of the claim says too ("weighs 5 kg": weight is the verb's).
func (cx *claim) unitConcepts(m *evidence.NumMention) []string {
	if m.Unit == nil || m.Free {
		return nil
	}
	cs := slices.Clone(evidence.UnitConceptNames(m.Unit))
	if m.UnitWord != "" {
		us := m.End - len([]rune(m.UnitWord))
		if us >= m.Start {
			cs = append(cs, cx.conceptsIn(us, m.End)...)
			if m.HeadWord == m.UnitWord {
				cs = append(cs, m.Head...)
			}
		}
	}
	if len(cs) == 0 {
		return nil
	}
	cs = evidence.Dedupe(cs)
	other := append(cx.conceptsIn(0, m.Start), cx.conceptsIn(m.End, len(cx.norm))...)
	return slices.DeleteFunc(cs, func(c string) bool { return slices.Contains(other, c) })
}

// oneValue reports whether the leaves hold one value.
func oneValue(ix *evidence.Index, ls []int32) bool {
	for _, l := range ls[1:] {
		if ix.Leaves[l].Num != ix.Leaves[ls[0]].Num {
			return false
		}
	}
	return true
}

func knownDim(lf *evidence.Leaf) bool { return lf.Unit() != nil || lf.Dim != evidence.DimNone }

// oneField reports whether the leaves are one field (one pointer, or one
// key across the copies of a value).
func oneField(ix *evidence.Index, ls []int32) bool {
	for _, l := range ls[1:] {
		if ix.Leaves[l].Ptr() != ix.Leaves[ls[0]].Ptr() {
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
		if !m.Free {
			return false
		}
	}
	return hasAny(cx.concepts, conceptRoles["free"]...)
}

// conceptRoles are the lexicon's [concept roles]: the concepts a rule
// reads by their role (lexicon.txt says each).
var conceptRoles = func() map[string][]string {
	m := map[string][]string{}
	for _, l := range evidence.LangData.Lines("concept roles") {
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

func supported(ix *evidence.Index, reason string, ls ...int32) fact {
	f := fact{verdict: events.VerdictSupported, reason: reason, leaves: ls}
	for _, l := range ls {
		f.refs = append(f.refs, ix.Ref(l))
	}
	return f
}

// near reports whether evidence value x equals claimed value v within the
// tolerance of any of v's candidates (ignoring units: derived values).
func (cx *claim) near(m *evidence.NumMention, x float64, ks []cand) bool {
	for _, k := range ks {
		if math.Abs(x-k.v) <= k.tol {
			return true
		}
	}
	return false
}

// boundFields returns the fields of targets a bound is about: when they
// are of two or more keys ("under 36 minutes" beside swim_s, bike_s and
// total_s of a row), those whose key the claim names ("the bike leg":
// bike_s); when it names none, all of them, and ambiguous: a bound that
// fails for one of them is not known to be about it.
func (cx *claim) boundFields(targets []int32) ([]int32, bool) {
	ix := cx.ix
	key := func(l int32) string { return evidence.LastToken(ix.Leaves[l].Ptr()) }
	if len(targets) < 2 || !slices.ContainsFunc(targets[1:], func(l int32) bool { return key(l) != key(targets[0]) }) {
		return targets, false
	}
	// A concept every field's key has ("took": a duration, as _s says)
	// tells none from another.
	cs := slices.DeleteFunc(slices.Clone(cx.concepts), func(c string) bool {
		return !slices.ContainsFunc(targets, func(l int32) bool { return !slices.Contains(ix.Leaves[l].Own(), c) })
	})
	named := slices.DeleteFunc(slices.Clone(targets), func(l int32) bool { return overlap(cs, ix.Leaves[l].Own()) == 0 })
	if len(named) == 0 {
		return targets, true
	}
	return named, false
}

// checkBound checks "more than 10", "within 3 days", "不超过 5 件": every
// field the claim names must satisfy it; with no such field, the evidence
// stating the same number (a limit of "up to 300 lbs") supports it.
func (cx *claim) checkBound(m *evidence.NumMention, targets []int32) fact {
	ix := cx.ix
	if len(targets) == 0 {
		for _, l := range cx.matches(m, m.V) {
			// The same number stated as a limit ("up to 300 lbs"), strictly:
			// "超过 10 亿" is not "9.8 亿" rounded.
			x, ok := cx.inClaimUnit(m, &ix.Leaves[l])
			if cx.inScope(l) && ok && math.Abs(x-m.V) <= cx.c.cfg.Tolerance*math.Abs(m.V) {
				return supported(ix, "the evidence states the same bound", l)
			}
		}
		if m.Unit != nil && m.Unit.Dim == evidence.DimTime {
			if f, ok := cx.durationAsDates(m); ok {
				return f
			}
		}
		return fact{verdict: events.VerdictUnsupported, reason: "no evidence field for the bound"}
	}
	targets, ambiguous := cx.boundFields(targets)
	tol := cx.c.tolerance(m, m.V)
	var held []int32
	failed := int32(-1) // the first field it fails for, of ambiguous targets
	for _, t := range targets {
		lf := &ix.Leaves[t]
		x, ok := cx.inClaimUnit(m, lf)
		if !ok {
			continue
		}
		// A range in the evidence ("3-5 days") must hold at both ends.
		y := x + (lf.Hi - lf.Num)
		hold := false
		switch m.Bound {
		case evidence.CueGT:
			hold = x > m.V
		case evidence.CueGE:
			hold = x >= m.V-tol
		case evidence.CueLT:
			hold = y < m.V
		case evidence.CueLE:
			hold = y <= m.V+tol
		}
		if !hold && ambiguous {
			if failed < 0 {
				failed = t
			}
			continue
		}
		if !hold {
			return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(t)},
				reason: "bound fails: evidence says " + lf.Raw() + " at " + lf.Ptr()}
		}
		held = append(held, t)
	}
	switch {
	case failed >= 0 && len(held) > 0:
		return fact{verdict: events.VerdictUnsupported, weak: true,
			reason: "bound fails at " + ix.Leaves[failed].Ptr() + " and holds at " + ix.Leaves[held[0]].Ptr() + ", fields the claim may be about, naming neither"}
	case failed >= 0:
		lf := &ix.Leaves[failed] // it fails whichever it is about
		return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(failed)},
			reason: "bound fails: evidence says " + lf.Raw() + " at " + lf.Ptr()}
	case len(held) == 0:
		return fact{verdict: events.VerdictUnsupported, reason: "no comparable evidence value"}
	}
	return supported(ix, "bound holds", held[:min(len(held), cx.c.cfg.EvidenceRefsMax)]...)
}

// inClaimUnit expresses an evidence value in the claim's unit.
func (cx *claim) inClaimUnit(m *evidence.NumMention, lf *evidence.Leaf) (float64, bool) {
	if m.Unit == nil || lf.Unit() == nil {
		if m.Unit != nil && m.Unit.Dim == evidence.DimPercent && lf.Num <= 1 && lf.Unit() == nil {
			return lf.Num * 100, true
		}
		return lf.Num, true
	}
	if m.Unit.Dim == evidence.DimPercent && lf.Unit().Dim == evidence.DimPercent {
		return lf.Num * lf.Unit().Factor * 100, true
	}
	if !evidence.Compatible(m.Unit, lf.Unit()) {
		return 0, false
	}
	if x, ok := evidence.Convert(lf.Num, lf.Unit(), m.Unit); ok {
		return x, true
	}
	return lf.Num, m.Unit.Dim == lf.Unit().Dim
}

// checkRange checks "between 3 and 5 days", "3-5 个工作日".
func (cx *claim) checkRange(m *evidence.NumMention, targets []int32, concepts []string) fact {
	ix := cx.ix
	lo := cx.matches(m, m.V)
	hi := cx.matches(&evidence.NumMention{Unit: m.Unit, Decimals: m.Decimals, Mag: m.Mag, Approx: m.Approx}, m.Hi)
	for _, t := range targets {
		lf := &ix.Leaves[t]
		if lf.Hi != lf.Num && containsLeaf(lo, t) {
			// A range in a string: both ends must match.
			x, _ := cx.inClaimUnit(m, lf)
			y := x + (lf.Hi - lf.Num)
			if math.Abs(y-m.Hi) <= cx.c.tolerance(m, m.Hi) {
				return supported(ix, "range matches", t)
			}
		}
	}
	if loT, hiT := rangeEnds(targets, lo, hi); loT >= 0 && hiT >= 0 {
		return supported(ix, "range matches", loT, hiT)
	}
	for _, t := range targets {
		x, ok := cx.inClaimUnit(m, &ix.Leaves[t])
		if ok && ix.Leaves[t].Hi == ix.Leaves[t].Num && x >= m.V-cx.c.tolerance(m, m.V) && x <= m.Hi+cx.c.tolerance(m, m.Hi) && len(targets) == 1 {
			return supported(ix, "value within the range", t)
		}
	}
	if len(targets) > 0 && cx.scoped {
		// "raises ROUGE-L from 41.2 to 43.5": the ends may belong to two
		// subjects; look for both in the same field of any subject.
		all := cx.widened().targets(concepts, func(lf *evidence.Leaf) bool { return lf.Kind == evidence.KindNum && dimFits(lf, m.Unit) })
		if a, b := rangeEnds(all, lo, hi); a >= 0 && b >= 0 {
			return supported(ix, "range ends match", a, b)
		}
	}
	if len(targets) > 0 {
		return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(targets[0])},
			reason: "range differs: evidence says " + ix.Leaves[targets[0]].Raw() + " at " + ix.Leaves[targets[0]].Ptr()}
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
	if a >= 0 && ix.Leaves[a].Hi != ix.Leaves[a].Num {
		return supported(ix, "range matches", a)
	}
	if m.Unit != nil && m.Unit.Dim == evidence.DimTime {
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
		lf := &ix.Leaves[l]
		if lf.Kind != evidence.KindNum || slices.ContainsFunc(targets, func(t int32) bool { return ix.Leaves[t].Ev == lf.Ev }) {
			continue
		}
		if lf.Node >= 0 && cx.namesSibling(lf.Node, l) {
			return l, true
		}
	}
	return -1, false
}

// namesSibling reports whether the claim's text holds a string value of
// node n other than leaf l (a name, a type, a place of the same object).
func (cx *claim) namesSibling(n, l int32) bool {
	ix := cx.ix
	nd := &ix.Nodes[n]
	text := strings.ToLower(cx.text)
	for s := nd.LeafLo; s < nd.LeafHi; s++ {
		sf := &ix.Leaves[s]
		if s == l || sf.Kind != evidence.KindStr || sf.Text || sf.Node != n {
			continue
		}
		v := sf.Str()
		if len([]rune(v)) >= 2 && strings.Contains(text, v) {
			return true
		}
	}
	return false
}

// measures returns whether a field measures what number m's unit does
// (any field, for a number of no unit or a count): a sibling named by
// its spelled key is the claim's only then ("the run took 12 minutes"
// spells run, an id, not the duration).
func (cx *claim) measures(m *evidence.NumMention) func(int32) bool {
	return func(l int32) bool {
		if m.Unit == nil || m.Unit.Dim == evidence.DimNone || m.Unit.Dim == evidence.DimCount {
			return true
		}
		return numKind(&cx.ix.Leaves[l]) == m.Unit.Dim
	}
}

// unitKeyOnly reports whether field lf's key says nothing but the unit of
// its values (pence, cents, kg: a row's amount written as {"desc": …,
// "pence": 195000}), and m, claimed in a unit, matched it: the claim names
// all the key says, as it does a key whose every concept it names.
func unitKeyOnly(lf *evidence.Leaf, m *evidence.NumMention) bool {
	if m.Unit == nil || m.Free || lf.Unit() == nil && lf.Dim == evidence.DimNone {
		return false
	}
	parts := lang.KeyParts(evidence.LastToken(lf.Ptr()))
	if len(parts) == 0 {
		return false
	}
	for _, p := range parts {
		if !evidence.KeyUnitToken(p) {
			return false
		}
	}
	return true
}

// namesKeyWholly reports whether concepts hold every concept of leaf l's
// own key, and it has some: the claim names that field wholly.
func namesKeyWholly(ix *evidence.Index, concepts []string, l int32) bool {
	own := ix.KeyConcepts(l)
	return len(own) > 0 && overlap(concepts, own) == len(own)
}

// leafDim returns the dimension field lf's key states: its unit's, or
// the one its key words give it (amount_cents: money); DimNone when its
// key states none.
func leafDim(lf *evidence.Leaf) evidence.Dimension {
	if u := lf.Unit(); u != nil && u.Dim != evidence.DimNone {
		return u.Dim
	}
	return lf.Dim
}
