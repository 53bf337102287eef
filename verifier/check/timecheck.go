package check

import (
	"github.com/toolstream/toolstream/events"
	"slices"
	"strings"
)

// Time: dates in claims (2024-05-03, May 3, 5月3日), relative days resolved
// against the answer's event time (today, tomorrow, 明天, 后天, in 3 days),
// weekdays (Friday, 周五), bounds (by Friday, 周五之前) and durations
// checked against evidence dates ("3-5 days" against an eta). Dates are day
// numbers since 1970-01-01; the answer's "today" is now's date in now's
// location, and an evidence timestamp's date is taken in its own offset.

// dateTargetsMax bounds the evidence dates one claim is compared with (a
// year of days, ten times over).
const dateTargetsMax = 4096

// dateTargets returns the evidence dates in scope, best match for concepts
// first: date fields, windows of two date fields (earliest/latest) and day
// counts relative to now (eta_days: 2).
func (cx *claim) dateTargets(concepts []string) []dateTarget {
	ix := cx.ix
	d0 := dayOf(cx.now)
	var out []dateTarget
	windows := map[int32][]int32{} // node -> date leaves
	for _, l := range cx.inScopeOf(ix.dates) {
		if len(out) == dateTargetsMax {
			break // NB: the first dates of the evidence, in document order
		}
		lf := &ix.leaves[l]
		windows[lf.node] = append(windows[lf.node], l)
		out = append(out, dateTarget{leaves: []int32{l}, lo: lf.day, hi: lf.day, score: attrScore(concepts, lf), clock: int(lf.minute)})
	}
	// Two dates of one object that bound a window (earliest/latest, from/to).
	for _, ls := range windows {
		if len(ls) != 2 {
			continue
		}
		a, b := &ix.leaves[ls[0]], &ix.leaves[ls[1]]
		if isWindowPair(a.ptr(), b.ptr()) {
			lo, hi := min(a.day, b.day), max(a.day, b.day)
			out = append(out, dateTarget{leaves: ls, lo: lo, hi: hi, score: max(attrScore(concepts, a), attrScore(concepts, b)) - 1, clock: -1})
		}
	}
	// Day counts: {"eta_days": 2} or {"delivery_days_min": 3, "delivery_days_max": 5}.
	// (In leaf order; the sort below orders them.)
	for _, l := range cx.inScopeOf(ix.numsInOrder()) {
		lf := &ix.leaves[l]
		if lf.unit() == nil || lf.unit().dim != dimTime || lf.text || lf.num < 0 || lf.num > 3650 {
			continue
		}
		if !hasAny(lf.own(), conceptRoles["arrival"]...) && !hasAny(lf.ctx(), conceptRoles["arrival-scope"]...) {
			continue
		}
		days := lf.num * lf.unit().factor / 86400
		if days != float64(int32(days)) {
			continue
		}
		out = append(out, dateTarget{leaves: []int32{l}, lo: d0 + int32(days), hi: d0 + int32(days), score: attrScore(concepts, lf), clock: -1})
	}
	// Best attribute score first; ties by evidence order.
	sortStable(out, func(a, b dateTarget) bool {
		if a.score != b.score {
			return a.score > b.score
		}
		return a.leaves[0] < b.leaves[0]
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
func (cx *claim) localConcepts(te *timeExpr) []string {
	from := 0
	for i := range cx.times {
		if o := &cx.times[i]; o.end <= te.start && o.end > from {
			from = o.end
		}
	}
	var out []string
	for _, w := range cx.words {
		if w.start >= from && w.end <= te.start && w.info != nil {
			out = append(out, w.info.concepts...)
		} else if w.start >= from && w.end <= te.start && !w.cjk {
			out = append(out, wordConcepts(w.s)...)
		}
	}
	return dedupe(out)
}

// checkTime checks one time expression.
func (cx *claim) checkTime(te *timeExpr) fact {
	ix := cx.ix
	concepts := cx.concepts
	if local := cx.localConcepts(te); len(local) > 0 && len(cx.times) > 1 {
		for _, t := range cx.dateTargets(local) {
			if t.score > 0 {
				concepts = local
			}
			break
		}
	}
	targets := cx.dateTargets(concepts)
	if te.onlyClock && len(te.days) == 0 {
		// "11:29 到达", "check-out is at 11 am": a time of day against the
		// times in the evidence, timestamps and times alike.
		for _, l := range cx.inScopeOf(ix.clocks) {
			lf := &ix.leaves[l]
			targets = append(targets, dateTarget{leaves: []int32{l}, score: attrScore(concepts, lf), clock: int(lf.minute)})
		}
		sortStable(targets, func(a, b dateTarget) bool { return a.score > b.score })
		var first *dateTarget
		for i := range targets {
			t := &targets[i]
			if t.clock < 0 {
				continue
			}
			if first != nil && t.score < first.score {
				break
			}
			if first == nil {
				first = t
			}
			if t.clock == te.clock {
				return supported(ix, "time matches", t.leaves...)
			}
		}
		if first != nil && first.score > 0 {
			return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(first.leaves[0])}, reason: "evidence time differs"}
		}
		return fact{}
	}
	if len(targets) == 0 {
		if cx.dayNamedByKey(te) {
			return fact{} // {"today": {"max_c": 19}}: the field is the day's
		}
		return fact{verdict: events.VerdictUnsupported, reason: "no date in the evidence"}
	}
	best := targets[0].score
	var first *dateTarget
	for i := range targets {
		t := &targets[i]
		if t.score < best && best > 0 {
			break
		}
		if first == nil {
			first = t
		}
		if v, ok := dayHolds(te, t); ok {
			if v == events.VerdictSupported && te.clock >= 0 && t.clock >= 0 && te.bound == 0 && te.clock != t.clock {
				continue
			}
			f := supported(ix, "date matches", t.leaves...)
			f.verdict = v
			if v == events.VerdictUnsupported {
				f.reason, f.refs = "the evidence gives a window, not a day", nil
			}
			return f
		}
	}
	refs := []events.EvidenceRef{}
	for _, l := range first.leaves {
		refs = append(refs, ix.ref(l))
	}
	return fact{verdict: events.VerdictContradicted, refs: refs, reason: "evidence date differs at " + ix.leaves[first.leaves[0]].ptr()}
}

// durationAsDates checks a claimed duration ("3 days", "within 2 days",
// "3-5 business days") against evidence dates: the days from now to each.
func (cx *claim) durationAsDates(m *numMention) (fact, bool) {
	if m.unit == nil || m.unit.dim != dimTime || m.unit.factor < 86400 {
		return fact{}, false
	}
	d0 := dayOf(cx.now)
	per := m.unit.factor / 86400
	lo, hi := int32(m.v*per+0.5), int32(m.hi*per+0.5)
	te := &timeExpr{days: []int32{d0 + lo}, lo: d0 + lo, hi: d0 + hi, bound: m.bound}
	if m.bound == cueLT {
		te.bound, te.hi = cueLE, d0+hi-1
	}
	if m.isRange {
		for _, t := range cx.dateTargets(cx.concepts) {
			if t.score == 0 && len(cx.concepts) > 0 {
				continue
			}
			if t.lo >= te.lo && t.hi <= te.hi {
				return supported(cx.ix, "dates fall in the range", t.leaves...), true
			}
			return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{cx.ix.ref(t.leaves[0])}, reason: "evidence date outside the range"}, true
		}
		return fact{}, false
	}
	for _, t := range cx.dateTargets(cx.concepts) {
		if t.score == 0 && len(cx.concepts) > 0 {
			continue
		}
		if v, ok := dayHolds(te, &t); ok && v == events.VerdictSupported {
			return supported(cx.ix, "date matches", t.leaves...), true
		}
		return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{cx.ix.ref(t.leaves[0])}, reason: "evidence date differs"}, true
	}
	return fact{}, false
}

// futureTime reports a time expression on or after the answer's day.
func (cx *claim) futureTime() bool {
	d0 := dayOf(cx.now)
	for _, te := range cx.times {
		if len(te.days) > 0 && te.days[0] >= d0 {
			return true
		}
	}
	return false
}

// dayKeys are the relative days a result may name by a key instead of a
// date ({"today": {…}, "tomorrow": {…}}), each with the key words naming it.
var dayKeys = func() map[string][]string {
	m := map[string][]string{}
	for _, l := range langData.Lines("day keys") {
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
func (cx *claim) dayNamedByKey(te *timeExpr) bool {
	if te.start < 0 || te.end > len(cx.orig) || te.start >= te.end {
		return false
	}
	keys, ok := dayKeys[strings.ToLower(string(cx.orig[te.start:te.end]))]
	if !ok {
		return false
	}
	ix := cx.ix
	for i := range ix.nodes {
		if slices.Contains(keys, strings.ToLower(lastToken(ix.nodes[i].ptr))) && cx.nodeInScope(int32(i)) {
			return true
		}
	}
	return false
}
