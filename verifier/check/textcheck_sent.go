package check

import (
	"encoding/json"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// sentences splits a long string value into sentences, once per Check.
func sentences(ix *evidence.Index, l int32) []evidence.SentInfo {
	if s, ok := ix.Sents[l]; ok {
		return s
	}
	var out []evidence.SentInfo
	var orig string
	_ = json.Unmarshal([]byte(ix.Leaves[l].Raw()), &orig) // sentences need the original case
	r := lang.Normalize(orig)
	for _, cl := range SplitClaims(orig) {
		sr := r[cl.Start:cl.End]
		si := evidence.SentInfo{Start: cl.Start, End: cl.End, Concepts: evidence.Dedupe(evidence.TextConcepts(sr, evidence.Tokenize(sr)))}
		negs := 0
		for _, w := range evidence.ClaimWords(sr) {
			c := w.Cues()
			if c&evidence.CueNeg != 0 && c&evidence.CuePlain == 0 || c&evidence.CueNegLex != 0 {
				negs++
			}
			si.Up = si.Up || c&evidence.CueUp != 0
			si.Down = si.Down || c&evidence.CueDown != 0
		}
		si.Neg = negs%2 == 1
		out = append(out, si)
		if len(out) >= textSentencesMax {
			break
		}
	}
	ix.Sents[l] = out
	return out
}
