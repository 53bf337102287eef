package check

import (
	"strings"
	"unicode"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// pendingPrefixes are words.txt's [pending prefixes]: a status value they
// lead (awaiting_signature, pending_payment, 待签字) says that what the
// rest of it names has not happened yet.
var pendingPrefixes = evidence.LangData.Set("pending prefixes")

// pendingValueRunesMax bounds the status values read by pendingFacts: a
// short value is a state, a longer one a note that may say anything.
const pendingValueRunesMax = 24

// pendingFacts reads a status value that a pending prefix leads as a false
// flag of what its other words name: "K-2 has been signed" beside status
// awaiting_signature is contradicted, "K-2 has not been signed yet"
// supported, as they would be beside signed: false. The value's other
// words must name one of the claim's concepts. A claim that itself says
// a pending word ("is awaiting signature", 待审批) is left to the status
// check; a claim with a number or another day is about those.
func (cx *claim) pendingFacts() []fact {
	ix := cx.ix
	if cx.saysPending() {
		return nil
	}
	positive := (cx.negs+cx.statedNegatively())%2 == 0
	for _, c := range cx.concepts {
		for _, l := range cx.inScopeOf(ix.ValueWords(c)) {
			lf := &ix.Leaves[l]
			if lf.Kind != evidence.KindStr || lf.Text || cx.aboutOther(l) || !pendingValue(lf.Str()) {
				continue
			}
			if !positive {
				f := supported(ix, "the status says it is still to come", l)
				f.negUsed = true
				return []fact{f}
			}
			return []fact{{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(l)}, negUsed: true,
				reason: "the status says it is still to come: " + lf.Raw()}}
		}
	}
	return nil
}

// pendingValue reports whether status value v starts with a pending
// prefix followed by more words: awaiting_signature, "pending payment",
// 待签字 (not awaiting alone, nor 待 alone).
func pendingValue(v string) bool {
	if v == "" || len([]rune(v)) > pendingValueRunesMax {
		return false
	}
	if r := []rune(v); lang.IsCJK(r[0]) {
		for p := range pendingPrefixes {
			if pr := []rune(p); lang.IsCJK(pr[0]) && len(r) > len(pr) && strings.HasPrefix(v, p) {
				return true
			}
		}
		return false
	}
	words := strings.FieldsFunc(strings.ToLower(v), func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) })
	return len(words) >= 2 && len(words) <= 4 && pendingPrefixes[words[0]]
}

// saysPending reports whether the claim says a pending word itself (is
// awaiting, pending, 待审批, 等待): then it states the pending state, and
// the status check compares it.
func (cx *claim) saysPending() bool {
	for i := range cx.words {
		w := &cx.words[i]
		if !w.Cjk && pendingPrefixes[strings.ToLower(w.S)] {
			return true
		}
	}
	for p := range pendingPrefixes {
		if pr := []rune(p); lang.IsCJK(pr[0]) && strings.Contains(string(cx.norm), p) {
			return true
		}
	}
	return false
}
