package check

import (
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
	"strings"
)

// Direction: "Apple fell 2.86%", 美元中间价小幅上涨. A field holding a signed
// change (change, change_pct, delta, 涨跌, 变化) says which way a value
// moved by its sign; a claim that names the movement must agree with it.

var changeKeyParts = evidence.LangData.List("change key words")

// signedChange reports whether lf is a number whose key names a signed
// change.
func signedChange(lf *evidence.Leaf) bool {
	if lf.Kind != evidence.KindNum || lf.Text {
		return false
	}
	k := strings.ToLower(evidence.LastToken(lf.Ptr()))
	for _, p := range changeKeyParts {
		if strings.Contains(k, p) {
			return true
		}
	}
	return false
}

// direction returns +1 when the claim says a value rose, -1 when it fell,
// and 0 when it says neither or both.
func (cx *claim) direction() int {
	up, down := cx.cues&evidence.CueUp != 0, cx.cues&evidence.CueDown != 0
	switch {
	case up && !down:
		return 1
	case down && !up:
		return -1
	}
	return 0
}

// checkDirection turns a number supported by a signed change field into a
// contradiction when the claim moves the other way ("fell 2.86%" against
// a change of +2.86).
func (cx *claim) checkDirection(f fact) fact {
	d := cx.direction()
	if d == 0 || f.verdict != events.VerdictSupported || len(f.leaves) != 1 {
		return f
	}
	l := f.leaves[0]
	lf := &cx.ix.Leaves[l]
	if !signedChange(lf) || lf.Num == 0 || (lf.Num > 0) == (d > 0) {
		return f
	}
	return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{cx.ix.Ref(l)}, leaves: []int32{l},
		reason: "the evidence moves the other way: " + lf.Raw() + " at " + lf.Ptr()}
}

// directionFact checks a movement claimed without a number (美元中间价小幅
// 上涨, "the euro fell") against the subject's signed change field.
func (cx *claim) directionFact() fact {
	d := cx.direction()
	if d == 0 || len(cx.nums) > 0 || !cx.scoped {
		return fact{}
	}
	found := int32(-1)
	for _, n := range cx.nodes {
		nd := &cx.ix.Nodes[n]
		for l := nd.LeafLo; l < nd.LeafHi; l++ {
			if signedChange(&cx.ix.Leaves[l]) && cx.inScope(l) {
				if found >= 0 {
					return fact{} // several change fields: which one is meant is unclear
				}
				found = l
			}
		}
	}
	if found < 0 {
		return fact{}
	}
	lf := &cx.ix.Leaves[found]
	if lf.Num == 0 {
		return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{cx.ix.Ref(found)}, leaves: []int32{found},
			reason: "the evidence has no change at " + lf.Ptr()}
	}
	if (lf.Num > 0) == (d > 0) {
		return supported(cx.ix, "moves the way the evidence does", found)
	}
	return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{cx.ix.Ref(found)}, leaves: []int32{found},
		reason: "the evidence moves the other way: " + lf.Raw() + " at " + lf.Ptr()}
}
