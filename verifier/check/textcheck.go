package check

import (
	"github.com/toolstream/toolstream/events"
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
	up, down := cx.cues&cueUp != 0, cx.cues&cueDown != 0
	opposite := func(s sentInfo) string {
		switch {
		case s.neg != claimNeg:
			return "the evidence says the opposite"
		case up && !down && s.down && !s.up, down && !up && s.up && !s.down:
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
			lf := &ix.leaves[l]
			if up != down && (up && lf.keyDown && !lf.keyUp || down && lf.keyUp && !lf.keyDown) {
				return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(l)}, reason: "the field says it moved the other way"}
			}
			if !lf.text || lf.src < 0 || len(ix.leaves[lf.src].str()) < 40 {
				continue
			}
			for _, s := range sentences(ix, lf.src) {
				if int(lf.textPos) >= s.start && int(lf.textPos) < s.end {
					if why := opposite(s); why != "" && (up || down || overlap(cx.concepts, s.concepts) > 0) {
						return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(lf.src)}, reason: why}
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
		for _, l := range cx.inScopeOf(ix.valueWords(c)) {
			if len(ix.leaves[l].str()) < 40 {
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
			if n := overlap(cx.concepts, s.concepts); n > bestN {
				best, bestN = i, n
			}
		}
		if best < 0 || bestN < 2 || bestN*2 < len(cx.concepts) {
			continue
		}
		if why := opposite(ss[best]); why != "" {
			return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(l)}, reason: why}
		}
	}
	return fact{}
}
