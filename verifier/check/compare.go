package check

import (
	"cmp"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
	"slices"
	"strconv"
	"strings"
)

// ---- comparisons between subjects, superlatives, trends -------------------

// numberOf returns the best numeric field for concepts within nodes.
func (cx *claim) numberOf(nodes []int32, concepts []string) int32 {
	ts := cx.within(nodes).targets(concepts, func(lf *evidence.Leaf) bool {
		return lf.Kind == evidence.KindNum && (!lf.Text || lf.TextShort) && !lf.Scaled
	})
	if len(ts) == 0 {
		return -1
	}
	return ts[0]
}

// comparison checks "A is cheaper than B", "A 比 B 贵".
func (cx *claim) comparison() fact {
	if cx.cues&(evidence.CueMore|evidence.CueLess) == 0 {
		return fact{}
	}
	if cx.cues&evidence.CueThan == 0 || len(cx.Groups) < 2 {
		return cx.comparedToOther()
	}
	ix := cx.ix
	dir, thanAt := 0, -1
	for _, w := range cx.words {
		c := w.Cues()
		if c&evidence.CueThan != 0 && thanAt < 0 {
			thanAt = w.Start
		}
		if dir == 0 && c&(evidence.CueGT|evidence.CueGE|evidence.CueLT|evidence.CueLE) == 0 {
			if c&evidence.CueMore != 0 {
				dir = 1
			} else if c&evidence.CueLess != 0 {
				dir = -1
			}
		}
	}
	if dir == 0 {
		return fact{}
	}
	left, right := cx.Groups[0], cx.Groups[1]
	if slices.Equal(left, right) || cx.Spans[0][0] < 0 && cx.Spans[1][0] < 0 {
		// "…, and the price is higher than before": the subjects of the
		// clause before are not what this one compares.
		return fact{}
	}
	if thanAt >= 0 && cx.Spans[0][0] > thanAt && cx.Spans[1][0] < thanAt {
		left, right = right, left
	} else if thanAt >= 0 && cx.Spans[0][0] > thanAt && cx.Spans[1][0] > thanAt {
		// "Compared with B, A is cheaper": the reference comes first.
		left, right = right, left
	}
	a, b := cx.numberOf(left, cx.concepts), cx.numberOf(right, cx.concepts)
	if a < 0 || b < 0 {
		// No field the comparison names: say nothing, and let the claim's
		// other parts (a difference "by 4 points") decide.
		return fact{}
	}
	dir *= cx.speedSign(a)
	x, y := ix.Leaves[a].Num, ix.Leaves[b].Num
	if (dir > 0 && x > y) || (dir < 0 && x < y) {
		return supported(ix, "comparison holds", a, b)
	}
	return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(a), ix.Ref(b)}, reason: "comparison fails"}
}

// comparedToOther checks "B's rating is higher", 钱塘江景酒店评分更高 with
// no "than": of two members of a collection, against the other one.
func (cx *claim) comparedToOther() fact {
	if len(cx.Groups) != 1 || len(cx.nums) > 0 {
		return fact{}
	}
	ix := cx.ix
	dir := 0
	for _, w := range cx.words {
		c := w.Cues()
		if c&(evidence.CueGT|evidence.CueGE|evidence.CueLT|evidence.CueLE|evidence.CueMost|evidence.CueLeast) != 0 || w.S == "多" || w.S == "少" || w.S == "高" || w.S == "低" || w.S == "大" || w.S == "小" {
			continue // bare 多/高 are not comparatives without 更 or 比
		}
		if c&evidence.CueMore != 0 {
			dir = 1
			break
		}
		if c&evidence.CueLess != 0 {
			dir = -1
			break
		}
	}
	if dir == 0 {
		return fact{}
	}
	for _, cl := range ix.Colls {
		if len(cl.Members) != 2 {
			continue
		}
		own, other := int32(-1), int32(-1)
		for _, mb := range cl.Members {
			if slices.ContainsFunc(cx.Groups[0], func(s int32) bool { return ix.AncestorOf(mb, s) }) {
				own = mb
			} else {
				other = mb
			}
		}
		if own < 0 || other < 0 {
			continue
		}
		a, b := cx.numberOf([]int32{own}, cx.concepts), cx.numberOf([]int32{other}, cx.concepts)
		if a < 0 || b < 0 {
			return fact{}
		}
		dir *= cx.speedSign(a)
		if x, y := ix.Leaves[a].Num, ix.Leaves[b].Num; dir > 0 && x > y || dir < 0 && x < y {
			return supported(ix, "comparison with the other holds", a, b)
		}
		return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(a), ix.Ref(b)}, reason: "comparison with the other fails"}
	}
	return fact{}
}

// fastWords and slowWords speak of time: faster is less time but more
// speed.
var fastWords = evidence.LangData.Set("speed words")

// speedSign returns -1 when the claim says fast/slow of a field that
// measures speed (faster is then more), else 1.
func (cx *claim) speedSign(l int32) int {
	if !slices.Contains(cx.ix.Leaves[l].Own(), "speed") && !slices.Contains(cx.ix.Leaves[l].Ctx(), "speed") {
		return 1
	}
	for _, w := range cx.words {
		if fastWords[w.S] {
			return -1
		}
	}
	return 1
}

// trend checks "revenue rose in 2023", "营收下降" against a series: the
// numeric fields of the subject whose keys are years or periods (a table
// row with 2022 and 2023 columns), compared in key order — the year the
// claim names against the one before it, else the last against the first.
func (cx *claim) trend() fact {
	up, down := cx.cues&evidence.CueUp != 0, cx.cues&evidence.CueDown != 0
	if up == down || !cx.scoped || len(cx.nodes) != 1 {
		return fact{}
	}
	ix := cx.ix
	n := cx.nodes[0]
	type point struct {
		key float64
		l   int32
	}
	var series []point
	nd := &ix.Nodes[n]
	for l := nd.LeafLo; l < nd.LeafHi; l++ {
		lf := &ix.Leaves[l]
		if lf.Node != n || lf.Kind != evidence.KindNum || lf.Text || lf.Scaled {
			continue
		}
		key := cx.keyOf(l)
		if !maybeNumber(key) {
			continue // NB: what ParseFloat would refuse, without the error it allocates
		}
		k, err := strconv.ParseFloat(key, 64)
		if err != nil {
			continue
		}
		series = append(series, point{k, l})
	}
	if len(series) < 2 {
		return fact{}
	}
	slices.SortFunc(series, func(a, b point) int { return cmp.Compare(a.key, b.key) })
	from, to := series[0], series[len(series)-1]
	for i, p := range series {
		if i > 0 && cx.hasConcept(strconv.FormatFloat(p.key, 'f', -1, 64)) {
			from, to = series[i-1], p
		}
	}
	x, y := ix.Leaves[from.l].Num, ix.Leaves[to.l].Num
	if up && y > x || down && y < x {
		return supported(ix, "the series moves that way", from.l, to.l)
	}
	return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(from.l), ix.Ref(to.l)}, reason: "the series moves the other way"}
}

// maybeNumber reports whether s may be a number strconv.ParseFloat reads:
// after a sign, a digit, a point, or the start of inf, infinity or nan.
func maybeNumber(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	return s != "" && (evidence.IsDigitByte(s[0]) || strings.IndexByte(".iInN", s[0]) >= 0)
}

// keyOf returns the field name of leaf l: its key, or for a table cell its
// column name.
func (cx *claim) keyOf(l int32) string {
	lf := &cx.ix.Leaves[l]
	if len(lf.Own()) == 1 && lang.IsAllDigits(lf.Own()[0]) {
		return lf.Own()[0]
	}
	k := evidence.LastToken(lf.Ptr())
	if lang.IsAllDigits(k) && lf.Node >= 0 && !cx.ix.Nodes[lf.Node].Array {
		return "" // a table cell under a column that is not a period
	}
	return k
}

// reasonSuperlativeHolds is a superlative's reason when the other members
// bear it out (excerptFacts reads it).
const reasonSuperlativeHolds = "superlative holds"

// superlative checks "B has the most stock", "A 最便宜" against the other
// members of the subject's collection.
func (cx *claim) superlative() fact {
	if cx.cues&(evidence.CueMost|evidence.CueLeast) == 0 {
		return fact{}
	}
	subj := []int32(nil)
	switch {
	case len(cx.Groups) == 1:
		subj = cx.Groups[0]
	case len(cx.Groups) == 0 && cx.scoped && len(cx.nodes) == 1:
		subj = cx.nodes // "Wednesday will be the coldest day": the day named
	default:
		return fact{}
	}
	for _, m := range cx.nums {
		if !m.Free {
			return fact{}
		}
	}
	ix := cx.ix
	dir := 1
	for _, w := range cx.words {
		if c := w.Cues(); c&evidence.CueLeast != 0 {
			dir = -1
			break
		} else if c&evidence.CueMost != 0 {
			break
		}
	}
	for _, cl := range ix.Colls {
		var own int32 = -1
		for _, mb := range cl.Members {
			for _, s := range subj {
				if ix.AncestorOf(mb, s) {
					own = mb
				}
			}
		}
		if own < 0 {
			continue
		}
		a := cx.numberOf([]int32{own}, cx.concepts)
		if a < 0 {
			continue
		}
		dir := dir * cx.speedSign(a)
		for _, mb := range cl.Members {
			if mb == own {
				continue
			}
			b := cx.numberOf([]int32{mb}, cx.concepts)
			if b < 0 {
				continue
			}
			x, y := ix.Leaves[a].Num, ix.Leaves[b].Num
			if dir > 0 && y > x || dir < 0 && y < x {
				return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(a), ix.Ref(b)}, reason: "another member is more extreme"}
			}
		}
		return supported(ix, reasonSuperlativeHolds, a)
	}
	return fact{verdict: events.VerdictUnsupported, reason: "nothing to compare with"}
}

// countsMembers reports a number written next to the quantifier ("all 3
// items", "these 3 days", 三款牛奶都, 两天都; "none of the 100 orders" when
// the quantifier is q's).
func (cx *claim) countsMembers(m evidence.NumMention, q evidence.Cue) bool {
	at := -1
	for i, w := range cx.words {
		if w.End > m.Start {
			at = i
			break
		}
	}
	if at < 0 {
		return false
	}
	for i, w := range cx.words {
		if w.Cues()&(evidence.CueUniversal|q&evidence.CueNone) != 0 && (i < at && at-i <= 3 || i > at && i-at <= 3) {
			return true
		}
	}
	return false
}
