package check

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// An excerpt (Evidence.Cuts) holds the first rows of each array it cut,
// not the rest: a claim that names no row of its own ("the largest amount
// is 912") may be about a row left out, so a row of the excerpt never
// contradicts it — it is unsupported, unless it counts the array, whose
// whole length the cut gives (cutCount), or states the field's max, min
// or mean, which the summary's statistics give (statFact). A claim naming its row (an order's
// id the excerpt holds) is checked against that row as against a whole
// result; a count is checked against the whole length (cutArrays).

// cutCount contradicts a count of the cut array ("there are 640 orders"
// when /orders has 600): its whole length is known though its rows are not.
func (cx *claim) cutCount(c events.ArrayCut, callID string) (fact, bool) {
	ix := cx.ix
	for _, i := range ix.Arrays {
		n := &ix.Nodes[i]
		if n.Ptr != c.Pointer || ix.Ev[n.Ev].CallID != callID {
			continue
		}
		for _, m := range cx.nums {
			if len(m.Head) == 0 || m.Unit != nil && m.Unit.Dim != evidence.DimCount || m.V != math.Trunc(m.V) || m.V < 0 || m.Bound != 0 || m.Approx || m.IsRange ||
				overlap(m.Head, n.Concepts) == 0 || float64(n.Length) == m.V {
				continue
			}
			return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.NodeRef(i, strconv.Itoa(n.Length))},
				reason: "the list has " + strconv.Itoa(n.Length) + " elements"}, true
		}
	}
	return fact{}, false
}

// excerptFacts makes unsupported each contradiction of a claim that names
// no row of its own by a row of an excerpt, and each superlative the
// excerpt's rows bear out: the rows it left out may hold the value, or a
// more extreme one. A claim of a max, min or mean (an aggregate word) is
// decided by the summary's statistics when they are given, whatever a
// row said: "the largest total is 5000" is not borne out by a row of 5000
// when the statistics say the max is 5210.
func (cx *claim) excerptFacts(fs []fact) {
	for i := range fs {
		f := &fs[i]
		agg := f.verdict == events.VerdictSupported && !cx.scoped && cx.aggregate() != ""
		switch {
		case f.verdict == events.VerdictContradicted && !cx.scoped,
			f.verdict == events.VerdictSupported && f.reason == reasonSuperlativeHolds,
			agg:
		default:
			continue
		}
		c, callID, ok := cx.ix.CutOf(f.refs)
		if !ok {
			continue
		}
		if f.verdict == events.VerdictContradicted {
			if cf, ok := cx.cutCount(c, callID); ok {
				*f = cf
				continue
			}
		}
		if f.verdict == events.VerdictContradicted || agg {
			if sf, ok := cx.statFact(c, callID, f.refs); ok {
				*f = sf
				continue
			}
		}
		if f.verdict == events.VerdictSupported && f.reason != reasonSuperlativeHolds {
			continue // a row holds the value and no statistics say otherwise
		}
		f.verdict, f.weak = events.VerdictUnsupported, true
		f.reason = fmt.Sprintf("the excerpt holds %d of the %d rows of %s; the claim may be about one it left out (%s)", c.Kept, c.Len, c.Pointer, f.reason)
	}
}

// aggregate returns the statistic a claim's aggregate word names ("max"
// for most, "min" for least, "mean" for the average concept), or "".
func (cx *claim) aggregate() string {
	switch {
	case cx.cues&evidence.CueMost != 0:
		return "max"
	case cx.cues&evidence.CueLeast != 0:
		return "min"
	case cx.hasConcept("average"):
		return "mean"
	}
	return ""
}

// statFact checks a claim of a field's max, min or mean ("the largest
// amount is 912", 平均金额) over the rows of a cut array against the
// statistics its summary states (Evidence.Stats): the aggregate word is a
// cue or concept of the lexicon (most, least, average), the field the row
// field the claim was bound to.
func (cx *claim) statFact(c events.ArrayCut, callID string, refs []events.EvidenceRef) (fact, bool) {
	agg := cx.aggregate()
	if agg == "" {
		return fact{}, false
	}
	for _, r := range refs {
		rest, ok := strings.CutPrefix(r.Pointer, c.Pointer+"/")
		if !ok || r.CallID != callID {
			continue
		}
		_, field, ok := strings.Cut(rest, "/")
		if !ok || strings.Contains(field, "/") {
			continue
		}
		st, ok := cx.ix.StatsOf(callID, c.Pointer, evidence.LastKey(field))
		if !ok {
			continue
		}
		x := map[string]float64{"max": st.Max, "min": st.Min, "mean": st.Mean}[agg]
		ref := events.EvidenceRef{CallID: callID, Pointer: c.Pointer, Value: strconv.FormatFloat(x, 'g', -1, 64)}
		why := fmt.Sprintf("the summary's %s of %s over the %d rows of %s is %s", agg, field, st.N, c.Pointer, ref.Value)
		for i := range cx.nums {
			m := &cx.nums[i]
			if m.Unit != nil && m.Unit.Dim == evidence.DimPercent || m.Bound != 0 || m.IsRange {
				continue
			}
			if math.Abs(x-m.V) <= cx.c.tolerance(m, m.V) {
				return fact{verdict: events.VerdictSupported, refs: []events.EvidenceRef{ref}, reason: why}, true
			}
		}
		return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ref}, reason: why}, true
	}
	return fact{}, false
}
