package check

import (
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
	"slices"
	"strings"
)

// Time: dates in claims (2024-05-03, May 3, 5月3日), relative days resolved
// against the answer's event time (today, tomorrow, 明天, 后天, in 3 days),
// weekdays (Friday, 周五), bounds (by Friday, 周五之前) and durations
// checked against evidence dates ("3-5 days" against an eta). Dates are day
// numbers since 1970-01-01; the answer's "today" is now's date in now's
// location, and an evidence timestamp's date is taken in its own offset.

// fieldsWeighedMax bounds the evidence fields one fact of a claim is
// weighed against, whatever the rows: the dates a date is compared with
// (dateTargets), the status fields of a state word (categoryFacts), the
// fields naming what a number is about (targets) and the identifier
// fields a code is read against (namedIDs). Each takes the first in
// document order, so the work of a claim stays bounded (1 MiB of rows
// against 1 MiB of claims ranked every field of every row per claim).
// What the (N+1)th field changes: a number or a date that only a later
// row holds is still found by its value (supported); more than N
// identifier fields the claim names are several values (unsupported, as
// when they differ); but a state word is weighed against the first N
// status fields only, so "one order was cancelled" when only a later row
// is cancelled is contradicted by the first rows' status.
const fieldsWeighedMax = 4096

// dateTargets returns the evidence dates in scope, best match for concepts
// first: date fields, windows of two date fields (earliest/latest) and day
// counts relative to now (eta_days: 2).
func (cx *claim) dateTargets(concepts []string) []evidence.DateTarget {
	ix := cx.ix
	d0 := evidence.DayOf(cx.now)
	var out []evidence.DateTarget
	windows := map[int32][]int32{} // node -> date leaves
	for _, l := range cx.inScopeOf(ix.Dates) {
		if len(out) == fieldsWeighedMax {
			break // NB: the first dates of the evidence, in document order
		}
		lf := &ix.Leaves[l]
		windows[lf.Node] = append(windows[lf.Node], l)
		out = append(out, evidence.DateTarget{Leaves: []int32{l}, Lo: lf.Day, Hi: lf.Day, Score: attrScore(concepts, lf), Clock: int(lf.Minute)})
	}
	// Two dates of one object that bound a window (earliest/latest, from/to).
	for _, ls := range windows {
		if len(ls) != 2 {
			continue
		}
		a, b := &ix.Leaves[ls[0]], &ix.Leaves[ls[1]]
		if isWindowPair(a.Ptr(), b.Ptr()) {
			lo, hi := min(a.Day, b.Day), max(a.Day, b.Day)
			out = append(out, evidence.DateTarget{Leaves: ls, Lo: lo, Hi: hi, Score: max(attrScore(concepts, a), attrScore(concepts, b)) - 1, Clock: -1})
		}
	}
	// Day counts: {"eta_days": 2} or {"delivery_days_min": 3, "delivery_days_max": 5}.
	// (In leaf order; the sort below orders them.)
	for _, l := range cx.inScopeOf(ix.NumsInOrder()) {
		lf := &ix.Leaves[l]
		if lf.Unit() == nil || lf.Unit().Dim != evidence.DimTime || lf.Text || lf.Num < 0 || lf.Num > 3650 {
			continue
		}
		if !hasAny(lf.Own(), conceptRoles["arrival"]...) && !hasAny(lf.Ctx(), conceptRoles["arrival-scope"]...) {
			continue
		}
		days := lf.Num * lf.Unit().Factor / 86400
		if days != float64(int32(days)) {
			continue
		}
		out = append(out, evidence.DateTarget{Leaves: []int32{l}, Lo: d0 + int32(days), Hi: d0 + int32(days), Score: attrScore(concepts, lf), Clock: -1})
		if ds := windows[lf.Node]; len(ds) == 1 && ix.Leaves[ds[0]].HasDay {
			// {"issued": "2026-12-10", "valid_days": 30}: the count may run
			// from its object's one date as well as from now. After the
			// reading from now, which stays the first of its score.
			from := ix.Leaves[ds[0]].Day + int32(days)
			out = append(out, evidence.DateTarget{Leaves: []int32{l, ds[0]}, Lo: from, Hi: from, Score: attrScore(concepts, lf), Clock: -1})
		}
	}
	// Best attribute score first; ties by evidence order.
	sortStable(out, func(a, b evidence.DateTarget) bool {
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		return a.Leaves[0] < b.Leaves[0]
	})
	return out
}

func isWindowPair(p, q string) bool {
	pairs := [][2]string{{"earliest", "latest"}, {"min", "max"}, {"from", "to"}, {"start", "end"}, {"begin", "end"}, {"lo", "hi"}, {"in", "out"}}
	p, q = strings.ToLower(p), strings.ToLower(q)
	for _, pr := range pairs {
		if strings.Contains(p, pr[0]) && strings.Contains(q, pr[1]) || strings.Contains(p, pr[1]) && strings.Contains(q, pr[0]) {
			return true
		}
	}
	return false
}

// localConcepts returns the concepts of the words between the previous
// time expression (or the claim's start) and te: "departs … on May 6 and
// lands … on May 7" checks May 7 against the landing time.
func (cx *claim) localConcepts(te *evidence.TimeExpr) []string {
	from := 0
	for i := range cx.times {
		if o := &cx.times[i]; o.End <= te.Start && o.End > from {
			from = o.End
		}
	}
	var out []string
	for _, w := range cx.words {
		if w.Start >= from && w.End <= te.Start && w.Info != nil {
			out = append(out, w.Info.Concepts...)
		} else if w.Start >= from && w.End <= te.Start && !w.Cjk {
			out = append(out, evidence.WordConcepts(w.S)...)
		}
	}
	return evidence.Dedupe(out)
}

// checkTime checks one time expression.
func (cx *claim) checkTime(te *evidence.TimeExpr) fact {
	ix := cx.ix
	concepts := cx.concepts
	if local := cx.localConcepts(te); len(local) > 0 && len(cx.times) > 1 {
		for _, t := range cx.dateTargets(local) {
			if t.Score > 0 {
				concepts = local
			}
			break
		}
	}
	targets, byEvent := cx.bindByEvent(te, cx.dateTargets(concepts))
	if te.OnlyClock && len(te.Days) == 0 {
		// "11:29 到达", "check-out is at 11 am": a time of day against the
		// times in the evidence, timestamps and times alike.
		for _, l := range cx.inScopeOf(ix.Clocks) {
			lf := &ix.Leaves[l]
			targets = append(targets, evidence.DateTarget{Leaves: []int32{l}, Score: attrScore(concepts, lf), Clock: int(lf.Minute)})
		}
		sortStable(targets, func(a, b evidence.DateTarget) bool { return a.Score > b.Score })
		var first *evidence.DateTarget
		for i := range targets {
			t := &targets[i]
			if t.Clock < 0 {
				continue
			}
			if first != nil && t.Score < first.Score {
				break
			}
			if first == nil {
				first = t
			}
			if t.Clock == te.Clock {
				if f, ok := cx.timeSwap(te, t.Leaves, targets, func(u *evidence.DateTarget) bool { return u.Clock == te.Clock }, concepts); ok {
					return f
				}
				return supported(ix, "time matches", t.Leaves...)
			}
		}
		if first != nil && first.Score > 0 {
			if ls := cx.clockOfSameRow(te); ls != nil {
				return supported(ix, "time matches a field of the row the claim's other time names", ls...)
			}
			if ls := cx.clockAfterDuration(te); ls != nil {
				return supported(ix, "time matches the start plus the duration", ls...)
			}
			return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(first.Leaves[0])}, reason: "evidence time differs"}
		}
		return fact{}
	}
	if len(targets) == 0 {
		if cx.dayNamedByKey(te) {
			return fact{} // {"today": {"max_c": 19}}: the field is the day's
		}
		return fact{verdict: events.VerdictUnsupported, reason: "no date in the evidence"}
	}
	if f, ok := cx.dateUnbound(te, targets, concepts); ok {
		return f
	}
	best := targets[0].Score
	for _, t := range targets {
		// "valid until 9 January" beside issued and valid_days: the end
		// the count gives from its object's date is the day said, before
		// any day the bound would let hold.
		if len(t.Leaves) == 2 && t.Lo == t.Hi && t.Score == best && (te.Bound == 0 || te.Bound == evidence.CueLE) && slices.Contains(te.Days, t.Lo) {
			return supported(ix, "the date its object's date and day count give", t.Leaves...)
		}
	}
	var first *evidence.DateTarget
	for i := range targets {
		t := &targets[i]
		if t.Score < best && best > 0 {
			break
		}
		if first == nil {
			first = t
		}
		if v, ok := evidence.DayHolds(te, t); ok {
			if v == events.VerdictSupported && te.Clock >= 0 && t.Clock >= 0 && te.Bound == 0 && te.Clock != t.Clock {
				continue
			}
			if v == events.VerdictSupported {
				if f, ok := cx.timeSwap(te, t.Leaves, targets, func(u *evidence.DateTarget) bool {
					h, ok := evidence.DayHolds(te, u)
					return ok && h == events.VerdictSupported && (te.Clock < 0 || u.Clock < 0 || te.Clock == u.Clock)
				}, concepts); ok {
					return f
				}
			}
			f := supported(ix, "date matches", t.Leaves...)
			f.verdict = v
			if v == events.VerdictUnsupported {
				f.reason, f.refs = "the evidence gives a window, not a day", nil
			}
			return f
		}
	}
	if cx.dayNamedByKey(te) {
		return fact{} // "今天切了1240块" beside cut_today: the day names the field, no date of another
	}
	if !byEvent {
		// A field bound by the claim's event is the claim's: another
		// holding the day is another event's.
		if f, ok := cx.dateSiblings(te, first, targets, concepts); ok {
			return f
		}
		if f, ok := cx.dateElsewhere(te, first, targets, concepts); ok {
			return f
		}
	}
	if f, ok := cx.otherRowDate(te, first, targets); ok {
		return f
	}
	if cx.soft {
		// "It is scheduled for 27 March" after a sentence about another
		// row: a pronoun across sentences is a guess, and the date held in
		// the evidence at large is the wider reading (as for a number),
		// unless a row beside the scope's holds it: another row's date.
		if g := cx.widened().checkTime(te); g.verdict == events.VerdictSupported && !slices.ContainsFunc(g.leaves, func(l int32) bool { return cx.siblingRow(l) >= 0 }) {
			return g
		}
	}
	refs := []events.EvidenceRef{}
	for _, l := range first.Leaves {
		refs = append(refs, ix.Ref(l))
	}
	return fact{verdict: events.VerdictContradicted, refs: refs, reason: "evidence date differs at " + ix.Leaves[first.Leaves[0]].Ptr()}
}

// durationAsDates checks a claimed duration ("3 days", "within 2 days",
// "3-5 business days") against evidence dates: the days from now to each.
func (cx *claim) durationAsDates(m *evidence.NumMention) (fact, bool) {
	if m.Unit == nil || m.Unit.Dim != evidence.DimTime || m.Unit.Factor < 86400 {
		return fact{}, false
	}
	d0 := evidence.DayOf(cx.now)
	per := m.Unit.Factor / 86400
	lo, hi := int32(m.V*per+0.5), int32(m.Hi*per+0.5)
	te := &evidence.TimeExpr{Days: []int32{d0 + lo}, Lo: d0 + lo, Hi: d0 + hi, Bound: m.Bound}
	if m.Bound == evidence.CueLT {
		te.Bound, te.Hi = evidence.CueLE, d0+hi-1
	}
	if m.IsRange {
		for _, t := range cx.dateTargets(cx.concepts) {
			if t.Score == 0 && len(cx.concepts) > 0 {
				continue
			}
			if t.Lo >= te.Lo && t.Hi <= te.Hi {
				return supported(cx.ix, "dates fall in the range", t.Leaves...), true
			}
			return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{cx.ix.Ref(t.Leaves[0])}, reason: "evidence date outside the range"}, true
		}
		return fact{}, false
	}
	for _, t := range cx.dateTargets(cx.concepts) {
		if t.Score == 0 && len(cx.concepts) > 0 {
			continue
		}
		if v, ok := evidence.DayHolds(te, &t); ok && v == events.VerdictSupported {
			return supported(cx.ix, "date matches", t.Leaves...), true
		}
		if len(cx.times) > 0 {
			// "filed on 14 May, one day early": a duration beside a date
			// the claim states counts from that date (or another the
			// claim names), not from the answer's day.
			return fact{}, true
		}
		if f, ok := cx.dateElsewhere(te, &t, cx.dateTargets(cx.concepts), cx.concepts); ok {
			return f, true
		}
		return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{cx.ix.Ref(t.Leaves[0])}, reason: "evidence date differs"}, true
	}
	return fact{}, false
}

// dateElsewhere returns an unsupported fact when a date target in scope
// other than first, the one the claim's words chose, holds the claimed
// day, the claim does not name first's key wholly, and the claim names
// that target as well as first or it sits in an object nested below
// first's (a row of a list beside a field of the whole): the binding is
// ambiguous ("blast BL-2291 on 14 October" beside the row's date and
// next_blast; "in two weeks", naming no field, beside two dates), so the
// day is not contradicted. A claim naming every word of first's key ("the
// next blast is on 24 October"), or a field of first's own object better
// than the one holding the day ("the trial runs until 20 October" beside
// trial_ends and fitting_date), is judged by first.
func (cx *claim) dateElsewhere(te *evidence.TimeExpr, first *evidence.DateTarget, targets []evidence.DateTarget, concepts []string) (fact, bool) {
	if len(first.Leaves) == 0 || namesKeyWholly(cx.ix, concepts, first.Leaves[0]) {
		return fact{}, false
	}
	up := parentPtr(cx.ix.Leaves[first.Leaves[0]].Ptr())
	for i := range targets {
		t := &targets[i]
		if slices.Equal(t.Leaves, first.Leaves) {
			continue
		}
		p := cx.ix.Leaves[t.Leaves[0]].Ptr()
		if t.Score < first.Score && (parentPtr(p) == up || !strings.HasPrefix(p, up+"/")) {
			continue
		}
		if v, ok := evidence.DayHolds(te, t); ok && v == events.VerdictSupported && (te.Clock < 0 || t.Clock < 0 || te.Clock == t.Clock) {
			return fact{verdict: events.VerdictUnsupported, weak: true,
				reason: "the date is at " + cx.ix.Leaves[t.Leaves[0]].Ptr() + ", a field the claim may be about as well as " + cx.ix.Leaves[first.Leaves[0]].Ptr()}, true
		}
	}
	return fact{}, false
}

// futureTime reports a time expression on or after the answer's day.
func (cx *claim) futureTime() bool {
	d0 := evidence.DayOf(cx.now)
	for _, te := range cx.times {
		if len(te.Days) > 0 && te.Days[0] >= d0 {
			return true
		}
	}
	return false
}

// dayKeys are the relative days a result may name by a key instead of a
// date ({"today": {…}, "tomorrow": {…}}), each with the key words naming it.
var dayKeys = func() map[string][]string {
	m := map[string][]string{}
	for _, l := range evidence.LangData.Lines("day keys") {
		var keys []string
		for _, w := range l.Words {
			if !strings.HasSuffix(w, "'s") {
				keys = append(keys, w)
			}
		}
		for _, w := range l.Words {
			m[w] = keys
		}
	}
	return m
}()

// dayNamedByKey reports whether te is a relative day ("today", 明天) that
// a key of the evidence in scope names: the values under it are that
// day's, though no date says so.
func (cx *claim) dayNamedByKey(te *evidence.TimeExpr) bool {
	if te.Start < 0 || te.End > len(cx.orig) || te.Start >= te.End {
		return false
	}
	keys, ok := dayKeys[strings.ToLower(string(cx.orig[te.Start:te.End]))]
	if !ok {
		return false
	}
	// A node keyed by the day ({"today": {…}}), or a field whose key has
	// the day as a word (cut_today, visitors_yesterday).
	nodes, leaves := cx.ix.KeysNaming(keys)
	return slices.ContainsFunc(nodes, cx.nodeInScope) || slices.ContainsFunc(leaves, cx.inScope)
}

// dateUnbound binds a claimed date before it is judged against the dates
// of what the claim is about. Two cases are settled here: a
// subject's object with no date the claim names, while a date field
// elsewhere is named ("weighed 18 kg at the visit on March 11" of a
// patient whose one date is the birth date), is judged against the named
// field; and a null field the claim names at least as well as the best
// date ("the next delivery" beside next_delivery: null and
// last_delivery) leaves the binding ambiguous: a differing date is
// unsupported, not contradicted.
func (cx *claim) dateUnbound(te *evidence.TimeExpr, targets []evidence.DateTarget, concepts []string) (fact, bool) {
	ix := cx.ix
	best := targets[0].Score
	if best > 0 {
		for l := range int32(len(ix.Leaves)) {
			if !isNullLeaf(&ix.Leaves[l]) || !cx.inScope(l) {
				continue
			}
			if attrScore(concepts, &ix.Leaves[l]) >= best && !slices.ContainsFunc(targets, func(t evidence.DateTarget) bool {
				v, ok := evidence.DayHolds(te, &t)
				return t.Score == best && ok && v == events.VerdictSupported
			}) {
				return fact{verdict: events.VerdictUnsupported, refs: []events.EvidenceRef{ix.Ref(l)},
					reason: "the field the claim names is null at " + ix.Leaves[l].Ptr()}, true
			}
		}
		return fact{}, false
	}
	if cx.scoped && len(concepts) > 0 {
		wide := cx.widened()
		if ts := wide.dateTargets(concepts); len(ts) > 0 && ts[0].Score > 0 {
			return wide.checkTime(te), true
		}
	}
	return fact{}, false
}

// isNullLeaf reports a null value.
func isNullLeaf(lf *evidence.Leaf) bool {
	return lf.Kind != evidence.KindNum && lf.Kind != evidence.KindStr && lf.Kind != evidence.KindBool
}

// timeSwap is swapJudge for a date or time of day that target leaves ls
// (one field) hold: its rivals are the other one-field targets of its
// object, holds says whether one holds the claimed value too.
func (cx *claim) timeSwap(te *evidence.TimeExpr, ls []int32, targets []evidence.DateTarget, holds func(*evidence.DateTarget) bool, concepts []string) (fact, bool) {
	if len(ls) != 1 {
		return fact{}, false
	}
	l := ls[0]
	node := cx.ix.Leaves[l].Node
	var rivals []int32
	holding := map[int32]bool{}
	for i := range targets {
		u := &targets[i]
		if len(u.Leaves) != 1 || u.Leaves[0] == l || cx.ix.Leaves[u.Leaves[0]].Node != node || slices.Contains(rivals, u.Leaves[0]) {
			continue
		}
		rivals = append(rivals, u.Leaves[0])
		if holds(u) {
			holding[u.Leaves[0]] = true
		}
	}
	return cx.swapJudge([2]int{te.Start, te.End}, l, rivals, func(r int32) bool { return holding[r] }, func(int32) bool { return true }, concepts)
}

// parentPtr is the pointer of the object holding the value at ptr.
func parentPtr(ptr string) string {
	if i := strings.LastIndexByte(ptr, '/'); i >= 0 {
		return ptr[:i]
	}
	return ""
}

// clockOfSameRow returns a time of day field holding te's time in the row
// (object) where another time of the claim is a field, with that field:
// "ran from 2:10 to 7:45", "the 16:40 sailing arrives at 18:05" name one
// row's two times, start and end, and the second binds to the row the first
// names, not to the field the words weigh highest. Nil when no row holds
// both.
func (cx *claim) clockOfSameRow(te *evidence.TimeExpr) []int32 {
	ix := cx.ix
	clocks := cx.inScopeOf(ix.Clocks)
	for i := range cx.times {
		o := &cx.times[i]
		if o == te || !o.OnlyClock || o.Clock < 0 || o.Clock == te.Clock {
			continue
		}
		for _, a := range clocks {
			if int(ix.Leaves[a].Minute) != o.Clock {
				continue
			}
			for _, b := range clocks {
				if b != a && ix.Leaves[b].Node == ix.Leaves[a].Node && int(ix.Leaves[b].Minute) == te.Clock {
					return []int32{b, a}
				}
			}
		}
	}
	return nil
}

// clockAfterDuration returns a row's start time and duration whose sum is
// te's time of day ("will finish at 11:15" beside a start of 07:15 and a
// duration of 240 minutes): the claim's time is the end the row implies.
// Only a claim that names its row (is scoped) is read so. Nil when no
// row's time and duration add up to it.
func (cx *claim) clockAfterDuration(te *evidence.TimeExpr) []int32 {
	ix := cx.ix
	if !cx.scoped {
		return nil // whose start? another row's may add up by chance
	}
	nums := cx.inScopeOf(ix.NumsInOrder())
	for _, a := range cx.inScopeOf(ix.Clocks) {
		for _, d := range nums {
			lf := &ix.Leaves[d]
			if lf.Node != ix.Leaves[a].Node || lf.Text || lf.Unit() == nil || lf.Unit().Dim != evidence.DimTime || lf.Num <= 0 {
				continue
			}
			mins := lf.Num * lf.Unit().Factor / 60
			if mins != float64(int(mins)) || mins >= 24*60 {
				continue
			}
			if (int(ix.Leaves[a].Minute)+int(mins))%(24*60) == te.Clock {
				return []int32{a, d}
			}
		}
	}
	return nil
}
