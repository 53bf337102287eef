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
		return (remainderWords[low] || filled && remainderStates[low]) && !cx.numberRightAfter(w.End)
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
// fields give it (their difference), else unsupported; the whole's own
// value never contradicts it.
func (cx *claim) checkRemainder(m *evidence.NumMention, targets []int32) fact {
	if f, ok := cx.derived(m, targets, true); ok {
		return f
	}
	return fact{verdict: events.VerdictUnsupported, weak: true, reason: "the claim states what is left of a whole that no two fields it names give"}
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
		if remainderWords[t] || remainderStates[t] {
			return true // seats_left, free_docks
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
