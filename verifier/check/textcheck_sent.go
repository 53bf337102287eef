package check

import (
	"encoding/json"
	"github.com/toolstream/toolstream/internal/lang"
)

// sentences splits a long string value into sentences, once per Check.
func sentences(ix *index, l int32) []sentInfo {
	if s, ok := ix.sents[l]; ok {
		return s
	}
	var out []sentInfo
	var orig string
	_ = json.Unmarshal([]byte(ix.leaves[l].raw()), &orig) // sentences need the original case
	r := lang.Normalize(orig)
	for _, cl := range SplitClaims(orig) {
		sr := r[cl.Start:cl.End]
		si := sentInfo{start: cl.Start, end: cl.End, concepts: dedupe(textConcepts(sr, tokenize(sr)))}
		negs := 0
		for _, w := range claimWords(sr) {
			c := w.cues()
			if c&cueNeg != 0 && c&cuePlain == 0 || c&cueNegLex != 0 {
				negs++
			}
			si.up = si.up || c&cueUp != 0
			si.down = si.down || c&cueDown != 0
		}
		si.neg = negs%2 == 1
		out = append(out, si)
		if len(out) >= textSentencesMax {
			break
		}
	}
	ix.sents[l] = out
	return out
}
