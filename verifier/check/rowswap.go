package check

import (
	"slices"
	"strings"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// A claim that names one row of an array (by its own name, an id, a
// label, a value only that row has) is judged by that row's fields. When
// the number it states is not its row's but another row's value of one
// field, and its row's own value of that field differs ("Lou Marsh rented
// a boat for 2 hours" beside Lou's 5 hours and Kit's 2), the claim carries
// another row's value: its row's field contradicts it. That holds only
// when the binding is unambiguous: the claim names its row itself (not a
// pronoun's guess), one row, and the other rows hold the value in one
// field only, which its row has too, of a kind the number may be. A
// comparison, a derived value or a negation says something else of the
// other row, and is left to the checks that read them.

// rowSwap returns the fact of number m (all: the evidence values it
// matches) when the claim's row holds another value of the one field
// other rows of its array hold m's value in; ok is false otherwise.
func (cx *claim) rowSwap(m *evidence.NumMention, all []int32) (fact, bool) {
	ix := cx.ix
	if !cx.scoped || !cx.own || cx.soft || len(cx.nodes) != 1 || len(cx.Groups) != 1 || len(all) == 0 ||
		(cx.negs-cx.negLex)%2 == 1 ||
		cx.cues&(evidence.CueThan|evidence.CueMore|evidence.CueLess|evidence.CueMost|evidence.CueLeast|evidence.CueDerive) != 0 {
		return fact{}, false
	}
	row := cx.nodes[0]
	a := ix.Nodes[row].Parent
	if a < 0 || !ix.Nodes[a].Array || ix.Nodes[a].Length < 2 {
		return fact{}, false
	}
	rowPtr := ix.Nodes[row].Ptr + "/"
	// A number of a unit (2 hours) is a field of that unit's, not one of
	// unknown kind that happens to hold 2 (paddles), when the rows have one.
	known := m.Unit != nil && m.Unit.Dim != evidence.DimCount && slices.ContainsFunc(all, func(l int32) bool {
		return !ix.Leaves[l].Text && ix.InNode(l, a) && knownDim(&ix.Leaves[l])
	})
	field, other := "", int32(-1)
	for _, l := range all {
		lf := &ix.Leaves[l]
		if lf.Text || ix.InNode(l, row) || !ix.InNode(l, a) || known && !knownDim(lf) {
			continue
		}
		r := cx.siblingRow(l)
		if r < 0 || ix.Nodes[r].Parent != a {
			continue
		}
		rel := strings.TrimPrefix(lf.Ptr(), ix.Nodes[r].Ptr+"/")
		if field != "" && rel != field {
			return fact{}, false // other rows hold it in two fields: which one the claim means is unclear
		}
		field, other = rel, l
	}
	if other < 0 {
		return fact{}, false
	}
	nd := &ix.Nodes[row]
	for l := nd.LeafLo; l < nd.LeafHi; l++ {
		lf := &ix.Leaves[l]
		if lf.Ptr() != rowPtr+field {
			continue
		}
		if lf.Kind != evidence.KindNum || lf.Text || !dimFits(lf, m.Unit) || containsLeaf(all, l) {
			return fact{}, false
		}
		return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(l)},
			reason: "evidence says " + lf.Raw() + " at " + lf.Ptr() + "; the value is another row's, at " + ix.Leaves[other].Ptr()}, true
	}
	return fact{}, false
}
