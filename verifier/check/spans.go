package check

import (
	"math"
	"regexp"
	"slices"
	"strconv"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// Spans: a duration the answer states that no field holds, but two fields
// of one object give: the time between two times of day ("arrive 08:15",
// "depart 09:05": "he spent 50 minutes there"; 报修 07:42, 到达 08:09:
// 27分钟就到了现场), a range of times written in one string ("09:00-12:30":
// 停电三个半小时), or the days between two dates ("reported 2 November",
// "repaired 20 November": "18 days from the report"; inspected and
// next_inspection five years apart: "due in five years"). A span that
// matches is the claim's support. One that does not leaves a number the
// words bound to a field of another object (a limit of the whole,
// 到达时限_分钟, beside the rows' times) unbound: unsupported, unless the
// scope holds one span only, which is then the claim's and contradicts it.

// spanLeavesMax bounds the time and date fields of one object paired into
// spans (their pairs grow as the square).
const spanLeavesMax = 16

// span is the time between two fields of one object, or the two ends of
// a range in one string.
type span struct {
	leaves []int32
	secs   float64
}

// clockRange is a range of times of day written in one string: 09:00-12:30,
// 8:30～16:00, 09:00至17:00.
var clockRange = regexp.MustCompile(`^\s*(\d{1,2})[:：](\d{2})\s*(?:-|–|—|~|～|至|到)\s*(\d{1,2})[:：](\d{2})\s*$`)

// spans returns the spans in scope: between times of day when clock,
// between dates otherwise.
func (cx *claim) spans(clock bool) []span {
	ix := cx.ix
	var list []int32
	if clock {
		list = cx.inScopeOf(ix.Clocks)
	} else {
		list = cx.inScopeOf(ix.Dates)
	}
	byNode := map[int32][]int32{}
	var nodes []int32
	for _, l := range list {
		lf := &ix.Leaves[l]
		if clock && lf.Minute < 0 || !clock && !lf.HasDay {
			continue
		}
		if _, ok := byNode[lf.Node]; !ok {
			nodes = append(nodes, lf.Node)
		}
		if len(byNode[lf.Node]) < spanLeavesMax {
			byNode[lf.Node] = append(byNode[lf.Node], l)
		}
	}
	var out []span
	for _, n := range nodes {
		ls := byNode[n]
		for i, a := range ls {
			for _, b := range ls[i+1:] {
				la, lb := &ix.Leaves[a], &ix.Leaves[b]
				if la.Src >= 0 && la.Src == lb.Src && la.Text {
					continue // two times of one string: its range, below
				}
				var secs float64
				if clock {
					secs = math.Abs(float64(lb.Minute)-float64(la.Minute)) * 60
				} else {
					secs = math.Abs(float64(lb.Day)-float64(la.Day)) * 86400
				}
				if secs > 0 {
					out = append(out, span{leaves: []int32{a, b}, secs: secs})
				}
			}
		}
	}
	if clock {
		for _, l := range cx.scopeLeaves(func(lf *evidence.Leaf) bool { return lf.Kind == evidence.KindStr && !lf.Text }) {
			g := clockRange.FindStringSubmatch(ix.Leaves[l].Str())
			if g == nil {
				continue
			}
			a, b := clockMinutes(g[1], g[2]), clockMinutes(g[3], g[4])
			if a < 0 || b < 0 {
				continue
			}
			d := b - a
			if d < 0 {
				d += 24 * 60 // 22:00-06:00, a night
			}
			if d > 0 {
				out = append(out, span{leaves: []int32{l}, secs: float64(d) * 60})
			}
		}
	}
	return out
}

// clockMinutes is the minute of the day of hour h and minute m, or -1.
func clockMinutes(h, m string) int {
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || hh > 24 || mm > 59 {
		return -1
	}
	return hh*60 + mm
}

// spanHolds reports whether a span of secs seconds bears out the claimed
// duration m: to the second for minutes, hours and days said exactly,
// within half the unit for weeks, months and years ("due in five years"
// of a day two short of it), within a sixth of the value for one said
// about ("about three weeks").
func spanHolds(m *evidence.NumMention, secs float64) bool {
	u := m.Unit.Factor
	got := secs / u
	switch {
	case u >= 7*86400:
		return math.Abs(got-m.V) <= 0.5
	case m.Approx:
		return math.Abs(got-m.V) <= math.Max(m.V/6, 0.5)
	default:
		return math.Abs(secs-m.V*u) < 1
	}
}

// spanJudge judges a claimed duration m that the field the claim's words
// bound it to, f's, does not bear out (f is not supported) by the spans in
// scope. ok is false when the scope has no span of m's kind, or when f
// contradicts it with a field that is what the claim is about: one of the
// object the claim names where no span is (社保连续缴了6个月 beside its
// row's 连续月数, not the application's dates), one holding the claimed
// number in another unit ("436 days" beside hours 436), and, when no span
// matches, one whose key the claim names wholly, whose key has the noun
// the number measures ("40-minute slots" beside bookable_slot_minutes) or
// of the object a span is of.
func (cx *claim) spanJudge(m *evidence.NumMention, f fact) (fact, bool) {
	if m.Unit == nil || m.Unit.Dim != evidence.DimTime || m.IsRange || m.Bound != 0 || m.V <= 0 || f.verdict == events.VerdictSupported {
		return fact{}, false
	}
	ix := cx.ix
	spans := cx.spans(m.Unit.Factor < 86400)
	if len(spans) == 0 {
		return fact{}, false
	}
	var at int32 = -1 // the field f contradicts the claim with
	if f.verdict == events.VerdictContradicted && len(f.refs) > 0 {
		if l, ok := cx.leafOf(f.refs[0]); ok {
			at = l
		}
	}
	if at >= 0 {
		lf := &ix.Leaves[at]
		if lf.Kind == evidence.KindNum && lf.Num == m.V {
			return fact{}, false
		}
		if cx.scoped && cx.inSubject(at) && !slices.ContainsFunc(spans, func(s span) bool { return ix.Leaves[s.leaves[0]].Node == lf.Node }) {
			return fact{}, false
		}
	}
	for _, s := range spans {
		if spanHolds(m, s.secs) {
			return supported(ix, "the span between the fields matches", s.leaves...), true
		}
	}
	if at < 0 {
		return fact{}, false
	}
	if namesKeyWholly(ix, cx.numberConcepts(m), at) || overlap(m.Head, ix.Leaves[at].Own()) > 0 ||
		slices.ContainsFunc(spans, func(s span) bool { return ix.Leaves[s.leaves[0]].Node == ix.Leaves[at].Node }) {
		return fact{}, false
	}
	if len(spans) == 1 && cx.scoped {
		s := spans[0]
		refs := []events.EvidenceRef{}
		for _, l := range s.leaves {
			refs = append(refs, ix.Ref(l))
		}
		return fact{verdict: events.VerdictContradicted, refs: refs,
			reason: "the span at " + ix.Leaves[s.leaves[0]].Ptr() + " is " + strconv.FormatFloat(s.secs/m.Unit.Factor, 'f', -1, 64) + " " + m.Unit.Name}, true
	}
	return fact{verdict: events.VerdictUnsupported, weak: true,
		reason: "no span between the fields in scope matches; " + f.reason}, true
}

// leafOf returns the leaf ref cites.
func (cx *claim) leafOf(ref events.EvidenceRef) (int32, bool) {
	ix := cx.ix
	for l := range int32(len(ix.Leaves)) {
		if ix.Leaves[l].Ptr() == ref.Pointer && ix.Ref(l) == ref {
			return l, true
		}
	}
	return -1, false
}
