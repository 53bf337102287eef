package check

import (
	"strings"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// partWholeEn and partWholeZh are the words that make two numbers a part
// and its whole ("157 of a target of 240", 完成157个（目标240个）).
var (
	partWholeEn = evidence.LangData.Words("part whole", "en")
	partWholeZh = evidence.LangData.Words("part whole", "zh")
)

// maxPairGap is how many runes may stand between the members of a pair
// ("41 dogs booked against room for 44").
const maxPairGap = 40

// pairMates returns the numbers of the claim that m forms a part/whole
// pair with: the number just before or after it, when the words between
// them hold a word of the "part whole" section and no clause ends there.
func (cx *claim) pairMates(m *evidence.NumMention) []*evidence.NumMention {
	var out []*evidence.NumMention
	for i := range cx.nums {
		if &cx.nums[i] != m {
			continue
		}
		for _, j := range [2]int{i - 1, i + 1} {
			if j < 0 || j >= len(cx.nums) {
				continue
			}
			a, b := &cx.nums[min(i, j)], &cx.nums[max(i, j)]
			if a.Unit != nil && b.Unit != nil && a.Unit.Dim != b.Unit.Dim {
				continue // "34 dB of gain at 2 kHz": two measures, no part and whole
			}
			if cx.pairGap(a.End, b.Start) {
				out = append(out, &cx.nums[j])
			}
		}
	}
	return out
}

// pairGap reports whether the runes [from, to) of the claim join two
// numbers as a part and its whole.
func (cx *claim) pairGap(from, to int) bool {
	if from < 0 || to > len(cx.orig) || from >= to || to-from > maxPairGap {
		return false
	}
	gap := strings.ToLower(string(cx.orig[from:to]))
	if strings.ContainsAny(gap, ",;:.!?，；。！？、") && !strings.ContainsAny(gap, "（(") {
		return false
	}
	for _, w := range partWholeZh {
		if strings.Contains(gap, w) {
			return true
		}
	}
	gap = " " + strings.Join(strings.Fields(strings.ReplaceAll(gap, "/", " / ")), " ") + " "
	for _, w := range partWholeEn {
		if strings.Contains(gap, " "+w+" ") {
			return true
		}
	}
	return false
}

// mateLeaf returns the field a contradiction f of number m cites when it
// holds the value of m's pair mate: "31 of its 38 beds" is not
// contradicted by beds.booked 31 when the check bound 38 there, nor is
// 157 by a target of 240 for "157 of a target of 240".
func (cx *claim) mateLeaf(m *evidence.NumMention, f fact) (int32, bool) {
	if f.verdict != events.VerdictContradicted || len(f.refs) == 0 {
		return 0, false
	}
	for _, o := range cx.pairMates(m) {
		for _, l := range cx.matches(o, o.V) {
			lf := &cx.ix.Leaves[l]
			for _, r := range f.refs {
				if r.Pointer == lf.Ptr() && r.CallID == cx.ix.Ev[lf.Ev].CallID {
					return l, true
				}
			}
		}
	}
	return 0, false
}

// checkPairMember judges number m whose check f cited its pair mate's
// field: the pair's other field beside that one (the same object) holding
// m's value supports it ("96个座位已预约86个" with 座位总数 96 beside
// 已预约座位 86); otherwise m is not contradicted by its mate's value.
func (cx *claim) checkPairMember(m *evidence.NumMention, f fact) (fact, bool) {
	mate, ok := cx.mateLeaf(m, f)
	if !ok {
		return f, false
	}
	ml := &cx.ix.Leaves[mate]
	for _, l := range cx.matches(m, m.V) {
		if lf := &cx.ix.Leaves[l]; l != mate && lf.Ev == ml.Ev && lf.Node == ml.Node {
			return fact{verdict: events.VerdictSupported, refs: []events.EvidenceRef{cx.ix.Ref(l)}, leaves: []int32{l}}, true
		}
	}
	return fact{verdict: events.VerdictUnsupported, weak: true, reason: "the value cited is the other member of the claim's part/whole pair; " + f.reason}, true
}
