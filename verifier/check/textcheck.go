package check

import (
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
	"slices"
)

// textSentencesMax bounds the sentences read from one string value.
const textSentencesMax = 64

// textPolarity compares a claim with the sentence of evidence text that
// says most nearly the same thing: when that sentence negates what the
// claim asserts ("did not pay a dividend" against "paid a dividend"), or
// moves the other way ("fell to" against "rose to"), the claim is
// contradicted.
func (cx *claim) textPolarity(fs []fact) fact {
	ix := cx.ix
	claimNeg := cx.negs%2 == 1
	up, down := cx.cues&evidence.CueUp != 0, cx.cues&evidence.CueDown != 0
	opposite := func(s evidence.SentInfo) string {
		switch {
		case s.Neg != claimNeg:
			return "the evidence says the opposite"
		case up && !down && s.Down && !s.Up, down && !up && s.Up && !s.Down:
			return "the evidence says it moved the other way"
		}
		return ""
	}
	// The field or sentence a number was matched to: "营业收入同比下降 15.2%"
	// against a field named 同比增长; "net debt rose to $1.6 billion"
	// against "fell to $1.1 billion from $1.6 billion".
	for _, f := range fs {
		if f.verdict != events.VerdictSupported || !up && !down {
			continue
		}
		for _, l := range f.leaves {
			lf := &ix.Leaves[l]
			if up != down && (up && lf.KeyDown && !lf.KeyUp || down && lf.KeyUp && !lf.KeyDown) {
				return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(l)}, reason: "the field says it moved the other way"}
			}
			if !lf.Text || lf.Src < 0 || len(ix.Leaves[lf.Src].Str()) < 40 {
				continue
			}
			for _, s := range sentences(ix, lf.Src) {
				if int(lf.TextPos) >= s.Start && int(lf.TextPos) < s.End {
					if why := opposite(s); why != "" && (up || down || overlap(cx.concepts, s.Concepts) > 0) {
						return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(lf.Src)}, reason: why}
					}
				}
			}
		}
	}
	if len(cx.concepts) < 2 {
		return fact{}
	}
	counts := map[int32]int{}
	var cands []int32
	for _, c := range cx.concepts {
		for _, l := range cx.inScopeOf(ix.ValueWords(c)) {
			if len(ix.Leaves[l].Str()) < 40 {
				continue
			}
			if counts[l] == 0 {
				cands = append(cands, l)
			}
			counts[l]++
		}
	}
	slices.Sort(cands)
	for _, l := range cands {
		if counts[l] < 2 {
			continue
		}
		best, bestN := -1, 0
		ss := sentences(ix, l)
		for i, s := range ss {
			if n := overlap(cx.concepts, s.Concepts); n > bestN {
				best, bestN = i, n
			}
		}
		if best < 0 || bestN < 2 || bestN*2 < len(cx.concepts) {
			continue
		}
		if why := opposite(ss[best]); why != "" {
			return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(l)}, reason: why}
		}
	}
	return fact{}
}
