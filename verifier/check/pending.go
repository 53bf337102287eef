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

// perfectAspect and progressiveAspect are words.txt's [perfect aspect]
// and [progressive aspect]: the words by which a claim says, in its own
// language, that what its verb names has happened (has been signed,
// 已经签署) or is under way (is being verified, 正在审核).
var perfectAspect, progressiveAspect = evidence.LangData.Set("perfect aspect"), evidence.LangData.Set("progressive aspect")

// aspectVerbs are words.txt's [aspect verbs]: verbs that take the verb
// after them (finished loading, 开始打磨), true for those that say it is
// under way (begun), false for those that say it has ended (done).
var aspectVerbs = func() map[string]bool {
	m := map[string]bool{}
	for _, l := range evidence.LangData.Lines("aspect verbs") {
		for _, w := range l.Words {
			m[w] = l.Name == "begun"
		}
	}
	return m
}()

// pendingValueRunesMax bounds the status values read by pendingFacts: a
// short value is a state, a longer one a note that may say anything.
const pendingValueRunesMax = 24

// pendingFacts reads a status value that a pending prefix leads as a false
// flag of what its other words name: "K-2 has been signed" beside status
// awaiting_signature is contradicted, "K-2 has not been signed yet"
// supported, as they would be beside signed: false. The value's other
// words must name one of the claim's concepts. A claim that itself says
// a pending word ("is awaiting signature", 待审批) is left to the status
// check; a claim with a number or another day is about those. Only a
// claim that says, by its own aspect words, that the thing has happened
// is contradicted: "is still being verified" and "is held until the
// frost clears" say the pending state in other words.
func (cx *claim) pendingFacts() []fact {
	ix := cx.ix
	if cx.saysWordOf(pendingPrefixes) {
		return nil
	}
	positive := (cx.negs+cx.statedNegatively())%2 == 0
	if positive && (!cx.saysWordOf(perfectAspect) && !cx.saysParticiple() || cx.saysWordOf(progressiveAspect)) {
		return nil
	}
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

// participleEndings are words.txt's [participle endings].
var participleEndings = evidence.LangData.Set("participle endings")

// saysParticiple reports whether the claim says a copula and, right after
// it, a participle of [participle endings] ("is certified", "are signed"):
// a state reached, as a word of [perfect aspect] says.
func (cx *claim) saysParticiple() bool {
	for i := 0; i+1 < len(cx.words); i++ {
		if w := &cx.words[i]; w.Cjk || !copulas[strings.ToLower(w.S)] {
			continue
		}
		next := strings.ToLower(cx.words[i+1].S)
		for e := range participleEndings {
			if len(next) > len(e)+2 && strings.HasSuffix(next, e) {
				return true
			}
		}
	}
	return false
}

// saysWordOf reports whether the claim says a word of set: a Latin word
// as a word of the claim (is awaiting, pending), a Chinese one anywhere in
// its text (待审批, 等待).
func (cx *claim) saysWordOf(set map[string]bool) bool {
	for i := range cx.words {
		if w := &cx.words[i]; !w.Cjk && set[strings.ToLower(w.S)] {
			return true
		}
	}
	for p := range set {
		if pr := []rune(p); len(pr) > 0 && lang.IsCJK(pr[0]) && strings.Contains(cx.nt.S, p) {
			return true
		}
	}
	return false
}

// valueAspect reads the claim's value mention i (a status value it
// names) as a verb in an aspect. After a word of [aspect verbs] (has
// finished loading, 开始打磨) ok is true and begun says which aspect (a
// Chinese marker of not done before the verb turns it: 尚未开始); after
// an English word of [progressive aspect] (is being built), or after a
// count and what it counts (17 samples queued, not after a copula: "Table
// 2 is out of use"), ok is true and noState too: the claim says no state
// of the subject.
func (cx *claim) valueAspect(i int) (begun, noState, ok bool) {
	if i >= len(cx.valueSpans) {
		return false, false, false
	}
	start := cx.valueSpans[i][0]
	var prev string
	for j := len(cx.toks) - 1; j >= 0; j-- {
		if t := &cx.toks[j]; t.End < start {
			prev = strings.ToLower(t.S)
			break
		}
	}
	if b, is := aspectVerbs[prev]; is {
		return b, false, true
	}
	before := string(cx.norm[:start])
	for w, b := range aspectVerbs {
		if lang.IsCJK([]rune(w)[0]) && strings.HasSuffix(before, w) {
			// 尚未开始打磨: a Chinese marker of not done before the verb
			// (read with it as one state word, 尚未开始) turns it
			before = strings.TrimSuffix(before, w)
			for m, done := range aspectMarkers {
				if !done && strings.HasSuffix(before, m) {
					return !b, false, true
				}
			}
			return b, false, true
		}
	}
	if progressiveAspect[prev] && !lang.IsCJK([]rune(prev)[0]) || !copulas[prev] && cx.countedBefore(start) {
		return false, true, true
	}
	return false, false, false
}
