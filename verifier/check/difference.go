package check

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// A number stated as a difference from another value ("2.8 m below full",
// "$450 over budget", "up 120 units from last week", 比上周增加了120件) is
// not a value of either operand's field: it is judged as a derived figure
// (derived.go) of the fields in scope, supported when two of them give it,
// and otherwise unsupported: never contradicted by one operand.

// differenceWords are words.txt's [difference words]: "below" in "2.8 m
// below full".
var differenceWords = evidence.LangData.Set("difference words")

// changeCues mark a word before a number that states it as a change (up,
// fell, 增加, 多 after 比).
const changeCues = evidence.CueUp | evidence.CueDown | evidence.CueMore | evidence.CueLess

// statesDifference reports whether number m is stated as a difference:
// the word after it (and its unit or noun) is a difference word or a more
// or less cue ("32 km longer", "7 points more than"), or the word right before it (past "by" or
// 了) is a change or more or less cue ("up 120", "increased by 120",
// 增加了120, 多了) while the claim compares (than, 比) or the word is a
// change or a difference word ("up 120"). "rose to 820" is a value: "to"
// comes between.
func (cx *claim) statesDifference(m *evidence.NumMention) bool {
	if m.Bound != 0 || m.IsRange || m.Unit != nil && m.Unit.Dim == evidence.DimPercent {
		return false
	}
	var prev *evidence.Cword
	after := 0
	for i := range cx.words {
		w := &cx.words[i]
		if w.End <= m.Start && !strings.EqualFold(w.S, "by") && w.S != "了" {
			prev = w
		}
		if w.Start < m.End || after == 2 || w.Start > max(m.End, m.HeadEnd)+1 {
			continue
		}
		// The first two words after the number: its noun, then the word
		// that makes it a difference ("120 units more", "$450 over budget").
		after++
		if !w.Cjk && (differenceWords[strings.ToLower(w.S)] || w.Cues()&(evidence.CueMore|evidence.CueLess|evidence.CueGT|evidence.CueLT) != 0) {
			// "310.2 hours over 260 trips": over another number is across
			// it, no difference.
			return !cx.numberRightAfter(w.End)
		}
	}
	if prev == nil {
		return false
	}
	gap := strings.TrimSpace(string(cx.norm[prev.End:m.Start]))
	if gap != "" && gap != "了" && !strings.EqualFold(gap, "by") {
		return false
	}
	c := prev.Cues()
	switch {
	case !prev.Cjk && differenceWords[strings.ToLower(prev.S)] && c&(evidence.CueGT|evidence.CueGE|evidence.CueLT|evidence.CueLE) == 0:
		return true // "up 120 units"; "over 50" is a bound, or across ("over 260 trips")
	case c&(evidence.CueUp|evidence.CueDown) != 0:
		return true
	case c&(evidence.CueMore|evidence.CueLess) != 0:
		return gap == "了" || cx.cues&evidence.CueThan != 0
	}
	return false
}

// marginWords are words.txt's [margin words]: "won" in "won by 45
// points", 领先 in 领先12分.
var marginWords = evidence.LangData.Set("margin words")

// statesMargin reports whether number m is stated as the margin of a
// contest's result: "by" right before it and a margin word earlier in the
// claim ("won by 45 points", "lost to Hatfield Park by three shots"), or
// a Chinese margin word right before it (领先12分, 赢了3球). A margin is
// the difference of the two sides' scores, never one side's score.
func (cx *claim) statesMargin(m *evidence.NumMention) bool {
	if m.Bound != 0 || m.IsRange || m.Unit != nil && m.Unit.Dim == evidence.DimPercent || m.Start <= 0 || m.Start > len(cx.norm) {
		return false
	}
	before := strings.TrimRight(string(cx.norm[:m.Start]), " ")
	for w := range marginWords {
		if lang.IsCJK([]rune(w)[0]) && strings.HasSuffix(before, w) {
			return true
		}
	}
	low := strings.ToLower(before)
	if !strings.HasSuffix(low, " by") {
		return false
	}
	for i := range cx.words {
		w := &cx.words[i]
		if w.End > m.Start {
			break
		}
		if !w.Cjk && marginWords[strings.ToLower(w.S)] {
			return true
		}
	}
	return false
}

// checkMargin judges number m stated as a contest's margin ("won by 45
// points", 领先12分) against the pairs of sides the evidence holds: two
// numeric fields of one object of one dimension (or one of none) whose
// keys each name a side ({"home": 187, "away": 142}, shots_for and
// shots_against; words.txt [contest sides]), in the objects the claim
// names, else anywhere. Supported when a pair's difference gives m, or one
// field the claim names does in two rows of a list (the matchpoints of two
// pairs); contradicted only when there is one such pair and m counts
// things or has no unit; else unsupported, never judged by one side's
// score.
func (cx *claim) checkMargin(m *evidence.NumMention, targets []int32) fact {
	ix := cx.ix
	var room [8]cand
	ks := cx.c.candidates(room[:0], m, m.V)
	direct := ix.DirectLeaves()
	var pairs [][2]int32
	for n := range ix.Nodes {
		if cx.scoped && !slices.ContainsFunc(cx.nodes, func(s int32) bool {
			return ix.Nodes[s].LeafLo <= ix.Nodes[n].LeafLo && ix.Nodes[n].LeafHi <= ix.Nodes[s].LeafHi
		}) {
			continue
		}
		var nums []int32
		for _, l := range direct.Of(int32(n)) {
			if lf := &ix.Leaves[l]; lf.Kind == evidence.KindNum && !lf.Text && leafDim(lf) != evidence.DimPercent {
				nums = append(nums, l)
			}
		}
		for i, a := range nums {
			for _, b := range nums[i+1:] {
				if da, db := leafDim(&ix.Leaves[a]), leafDim(&ix.Leaves[b]); (da == db || da == evidence.DimNone || db == evidence.DimNone) && namesSide(&ix.Leaves[a]) && namesSide(&ix.Leaves[b]) {
					pairs = append(pairs, [2]int32{a, b})
				}
			}
		}
	}
	for _, p := range pairs {
		if cx.near(m, math.Abs(ix.Leaves[p[0]].Num-ix.Leaves[p[1]].Num), ks) {
			return supported(ix, "the difference of two sides", p[0], p[1])
		}
	}
	for i, a := range targets {
		for _, b := range targets[i+1:] {
			// "beat the runners-up by 12.5 matchpoints": one field the claim
			// names, in two rows.
			if la, lb := &ix.Leaves[a], &ix.Leaves[b]; la.Node != lb.Node && !la.Text && !lb.Text &&
				siblingRows(la.Ptr(), lb.Ptr()) && cx.near(m, math.Abs(la.Num-lb.Num), ks) {
				return supported(ix, "the difference of two rows", a, b)
			}
		}
	}
	if len(pairs) == 1 && (m.Unit == nil || m.Unit.Dim == evidence.DimCount) {
		a, b := &ix.Leaves[pairs[0][0]], &ix.Leaves[pairs[0][1]]
		return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(pairs[0][0]), ix.Ref(pairs[0][1])},
			reason: "the margin of " + a.Raw() + " at " + a.Ptr() + " and " + b.Raw() + " at " + b.Ptr() + " is " + strconv.FormatFloat(math.Abs(a.Num-b.Num), 'g', 6, 64)}
	}
	return fact{verdict: events.VerdictUnsupported, weak: true, reason: "the claim states a margin that no one pair of sides gives"}
}

// siblingRows reports whether pointers a and b name one field of two
// rows of one list (/results/0/matchpoints, /results/1/matchpoints).
func siblingRows(a, b string) bool {
	ia, ib := strings.LastIndexByte(a, '/'), strings.LastIndexByte(b, '/')
	if ia < 0 || ib < 0 || a[ia:] != b[ib:] {
		return false
	}
	ra, rb := a[:ia], b[:ib]
	ja, jb := strings.LastIndexByte(ra, '/'), strings.LastIndexByte(rb, '/')
	return ja >= 0 && jb >= 0 && ra[:ja] == rb[:jb] && lang.IsAllDigits(ra[ja+1:]) && lang.IsAllDigits(rb[jb+1:])
}

// contestSides are words.txt's [contest sides]: home, away, 主队.
var contestSides = evidence.LangData.Set("contest sides")

// namesSide reports whether field lf's key names a side of a contest
// (home, shots_against, 主队得分).
func namesSide(lf *evidence.Leaf) bool {
	key := evidence.LastToken(lf.Ptr())
	for _, p := range lang.KeyParts(key) {
		if contestSides[strings.ToLower(p)] {
			return true
		}
	}
	for w := range contestSides {
		if lang.IsCJK([]rune(w)[0]) && strings.Contains(key, w) {
			return true
		}
	}
	return false
}

// checkDifference judges number m stated as a difference: supported when
// two fields give it (derived); contradicted only when both operands bind
// unambiguously, the one field the claim names in each of two objects
// ("Ours improves ROUGE-L by 5.8 points over the baseline": the two rows'
// ROUGE-L), and their difference is another; else unsupported.
func (cx *claim) checkDifference(m *evidence.NumMention, targets []int32) fact {
	ix := cx.ix
	if f, ok := cx.derived(m, targets, true); ok {
		return f
	}
	if len(targets) == 2 {
		a, b := &ix.Leaves[targets[0]], &ix.Leaves[targets[1]]
		if a.Node != b.Node && !a.Text && !b.Text && evidence.LastToken(a.Ptr()) == evidence.LastToken(b.Ptr()) {
			d := math.Abs(a.Num - b.Num)
			return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(targets[0]), ix.Ref(targets[1])},
				reason: "the difference of " + a.Raw() + " at " + a.Ptr() + " and " + b.Raw() + " at " + b.Ptr() + " is " + strconv.FormatFloat(d, 'g', 6, 64)}
		}
	}
	return fact{verdict: events.VerdictUnsupported, weak: true, reason: "the claim states a difference that no two fields it names give"}
}

// remainderWords are words.txt's [remainder words]: "left" in "six seats
// left", 还剩 in 还剩6个座位.
var remainderWords = evidence.LangData.Set("remainder words")

// remainderAfter are words.txt's [remainder words after]: "owed" in "£945
// is still owed", not in "is owed £75".
var remainderAfter = evidence.LangData.Set("remainder words after")

// remainderFillers are words.txt's [remainder fillers]: "still" in "five
// places still free", "of it" in "18 bars of it are left".
var remainderFillers = evidence.LangData.Set("remainder fillers")

// remainderStates are words.txt's [remainder states]: "free" in "six free
// berths" and "five places are still free", not "three machines are free".
var remainderStates = evidence.LangData.Set("remainder states")

// statesRemainder reports whether number m is stated as what is left of
// a whole: a remainder word is the word right before it ("remaining 6",
// 还剩6) or before its noun there (剩余座位8个), stands between it and its noun ("four spare berths") or is the
// first word after its noun past a copula and fillers (a state word,
// free, counts right after the number or past a filler) ("six seats are
// left", "two places left", "five places are still free", "18 bars of
// it are left"), whatever the number measures (还剩16.5小时, "560 litres
// left").
func (cx *claim) statesRemainder(m *evidence.NumMention) bool {
	if m.Bound != 0 || m.IsRange || m.Unit != nil && m.Unit.Dim == evidence.DimPercent {
		return false // "还剩81%" is a level, a field's own value
	}
	if m.Start <= len(cx.norm) {
		// 还剩7节, 还剩3800元额度: a Chinese remainder word ends right
		// before the number, whatever words follow it.
		before := strings.TrimSpace(string(cx.norm[:m.Start]))
		for w := range remainderWords {
			if r := []rune(w); lang.IsCJK(r[0]) && strings.HasSuffix(before, w) {
				return true
			}
		}
	}
	end := max(m.End, m.HeadEnd)
	var prev, prev2 *evidence.Cword
	filled := false // a filler stood between ("still")
	first := true   // the first word after the number: its adjective ("six free berths")
	for i := range cx.words {
		w := &cx.words[i]
		if w.End <= m.Start {
			prev, prev2 = w, prev
			continue
		}
		if w.Start < m.End {
			continue
		}
		low := strings.ToLower(w.S)
		if first && remainderStates[low] && !cx.numberRightAfter(w.End) {
			return true
		}
		first = false
		if w.Start < end || copulas[low] || remainderFillers[low] {
			if remainderWords[low] || w.Start < end && remainderStates[low] {
				return true // "four spare berths", "six free berths"
			}
			filled = filled || remainderFillers[low]
			continue
		}
		return (remainderWords[low] || remainderAfter[low] || filled && remainderStates[low]) && !cx.numberRightAfter(w.End)
	}
	if prev == nil || strings.TrimSpace(string(cx.norm[prev.End:m.Start])) != "" {
		return false
	}
	if remainderWords[strings.ToLower(prev.S)] {
		return true // "remaining 6", 还剩6
	}
	// "remaining seats 6", 剩余座位8个: the noun between.
	return prev2 != nil && remainderWords[strings.ToLower(prev2.S)] && strings.TrimSpace(string(cx.norm[prev2.End:prev.Start])) == ""
}

// checkRemainder judges number m stated as what is left of a whole whose
// field the claim names (seats beside seats and sold): supported when two
// fields give it (their difference, or the whole less a field of its kind
// beside it in its object), else unsupported; the whole's own value never
// contradicts it.
func (cx *claim) checkRemainder(m *evidence.NumMention, targets []int32) fact {
	if f, ok := cx.derived(m, targets, true); ok {
		return f
	}
	if f, ok := cx.wholeLessPart(m, targets); ok {
		return f
	}
	return fact{verdict: events.VerdictUnsupported, weak: true, reason: "the claim states what is left of a whole that no two fields it names give"}
}

// wholeLessPart finds m as a target (the whole) less a number field of
// the same scale beside it in its object (课时包 48 less 已上 41).
func (cx *claim) wholeLessPart(m *evidence.NumMention, targets []int32) (fact, bool) {
	ix := cx.ix
	var room [8]cand
	ks := cx.c.candidates(room[:0], m, m.V)
	for _, t := range targets {
		tl := &ix.Leaves[t]
		if tl.Kind != evidence.KindNum || tl.Text || tl.Node < 0 {
			continue
		}
		for _, g := range ix.DirectLeaves().Of(tl.Node) {
			gl := &ix.Leaves[g]
			if g == t || gl.Kind != evidence.KindNum || gl.Text || gl.Scaled != tl.Scaled || !dimFits(gl, m.Unit) {
				continue
			}
			if cx.near(m, tl.Num-gl.Num, ks) {
				return supported(ix, "the whole less a field of its kind beside it", t, g), true
			}
		}
	}
	return fact{}, false
}

// holdsRemainder reports whether a field that holds what is left is
// among targets or beside one in its object (seats_left beside seats): it
// decides as any value does.
func (cx *claim) holdsRemainder(targets []int32) bool {
	ix := cx.ix
	for _, t := range targets {
		if n := ix.Leaves[t].Node; n >= 0 && slices.ContainsFunc(ix.DirectLeaves().Of(n), func(l int32) bool {
			return ix.Leaves[l].Kind == evidence.KindNum && namesRemainder(&ix.Leaves[l])
		}) {
			return true
		}
	}
	return false
}

// namesRemainder reports whether leaf lf's key says it holds what is left
// (seats_left, remaining, free_docks, 剩余): its value is the remainder
// itself.
func namesRemainder(lf *evidence.Leaf) bool {
	key := strings.ToLower(evidence.LastToken(lf.Ptr()))
	for _, t := range strings.FieldsFunc(key, func(r rune) bool { return r == '_' || r == '-' || r == ' ' }) {
		if remainderWords[t] || remainderAfter[t] || remainderStates[t] {
			return true // seats_left, free_docks, amount_outstanding
		}
	}
	for _, set := range [2]map[string]bool{remainderWords, remainderStates} {
		for w := range set {
			if r := []rune(w); lang.IsCJK(r[0]) && strings.Contains(key, w) {
				return true
			}
		}
	}
	return slices.Contains(lf.Own(), "stock")
}

// numberRightAfter reports whether a number of the claim starts right
// after rune at (past spaces).
func (cx *claim) numberRightAfter(at int) bool {
	for i := range cx.nums {
		if o := &cx.nums[i]; o.Start >= at && strings.TrimSpace(string(cx.norm[at:o.Start])) == "" {
			return true
		}
	}
	return false
}
