package check

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// A number said net of a deduction ("after fees the café received
// £3,138.60", "net of VAT", 扣除手续费后到账8548元) is the gross less the
// deduction: the noun after the deduction word names what was taken off,
// not the number's field. It is judged by a field whose key says net
// (net_pence, 净收入), else as a derived figure (gross − fees), else it
// is unsupported: the deduction's own value never contradicts it.

// deductionEn and deductionZh are words.txt's [deduction words]; netKeyWords its
// [net key words].
var (
	deductionEn = evidence.LangData.Words("deduction words", "en")
	deductionZh = evidence.LangData.Words("deduction words", "zh")
	netKeyWords = evidence.LangData.Set("net key words")
)

// deductedConcepts returns the concepts of the noun after a deduction
// word of the claim ("fees" in "after fees"), when that noun names a
// number field in the evidence: "after the storm" deducts nothing.
func (cx *claim) deductedConcepts() []string {
	var out []string
	for i := range cx.words {
		w := &cx.words[i]
		if w.Cjk || !deductionFirst[strings.ToLower(w.S)] {
			continue
		}
		for _, d := range deductionEn {
			parts := strings.Fields(strings.ReplaceAll(d, "_", " "))
			if i+len(parts) >= len(cx.words) || !wordsAre(cx.words[i:i+len(parts)], parts) {
				continue
			}
			// The noun, past an article or two ("after the fees").
			for _, n := range cx.words[i+len(parts) : min(len(cx.words), i+len(parts)+3)] {
				if n.Cues()&evidence.CueStop != 0 {
					continue
				}
				if !n.Cjk && !lang.IsAllDigits(n.S) {
					out = append(out, cx.conceptsIn(n.Start, n.End)...)
				}
				break
			}
		}
	}
	if cx.hasCJK() {
		text := string(cx.norm)
		for _, d := range deductionZh {
			for from := 0; ; {
				i := strings.Index(text[from:], d)
				if i < 0 {
					break
				}
				// The noun is the few runes after the word (扣除手续费后).
				at := utf8.RuneCountInString(text[:from+i]) + utf8.RuneCountInString(d)
				out = append(out, cx.conceptsIn(at, min(len(cx.norm), at+4))...)
				from += i + len(d)
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	out = evidence.Dedupe(out)
	return slices.DeleteFunc(out, func(c string) bool {
		return !slices.ContainsFunc(cx.ix.Concept(c), func(l int32) bool { return cx.ix.Leaves[l].Kind == evidence.KindNum })
	})
}

// deductionFirst holds the first word of each English deduction word.
var deductionFirst = func() map[string]bool {
	out := map[string]bool{}
	for _, d := range deductionEn {
		if f := strings.Fields(strings.ReplaceAll(d, "_", " ")); len(f) > 0 {
			out[strings.ToLower(f[0])] = true
		}
	}
	return out
}()

// hasCJK reports whether the claim holds a Chinese word.
func (cx *claim) hasCJK() bool {
	return slices.ContainsFunc(cx.words, func(w evidence.Cword) bool { return w.Cjk })
}

// wordsAre reports whether ws are the words parts, case aside.
func wordsAre(ws []evidence.Cword, parts []string) bool {
	for i, p := range parts {
		if !strings.EqualFold(ws[i].S, p) {
			return false
		}
	}
	return true
}

// netLeaves returns the number fields in scope whose key says they hold an
// amount net of deductions, of a kind that fits m.
func (cx *claim) netLeaves(m *evidence.NumMention) []int32 {
	keep := func(lf *evidence.Leaf) bool {
		return lf.Kind == evidence.KindNum && dimFits(lf, m.Unit) && namesNet(lf)
	}
	if cx.scoped {
		return cx.scopeLeaves(keep)
	}
	var out []int32
	for l := range cx.ix.Leaves {
		if keep(&cx.ix.Leaves[l]) {
			out = append(out, int32(l))
		}
	}
	return out
}

// namesNet reports whether leaf lf's key holds a net key word (net_pence,
// 净收入).
func namesNet(lf *evidence.Leaf) bool {
	key := strings.ToLower(evidence.LastToken(lf.Ptr()))
	for _, t := range strings.FieldsFunc(key, func(r rune) bool { return r == '_' || r == '-' || r == ' ' }) {
		if netKeyWords[t] {
			return true
		}
	}
	for w := range netKeyWords {
		if r := []rune(w); lang.IsCJK(r[0]) && strings.Contains(key, w) {
			return true
		}
	}
	return false
}

// checkNet judges number m said net of a deduction: by the one net field
// in scope when there is one, else supported when two fields give it
// (gross − fees), else unsupported.
func (cx *claim) checkNet(m *evidence.NumMention, targets []int32, deducted []string) fact {
	ix := cx.ix
	if nets := cx.netLeaves(m); len(nets) > 0 {
		for _, l := range nets {
			if slices.Contains(cx.matches(m, m.V), l) {
				return supported(ix, "value matches the net field", l)
			}
		}
		if len(nets) == 1 {
			lf := &ix.Leaves[nets[0]]
			return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(nets[0])}, leaves: []int32{nets[0]},
				reason: "the net field says " + lf.Raw() + " at " + lf.Ptr()}
		}
	}
	if f, ok := cx.derived(m, targets, true); ok {
		return f
	}
	if f, ok := cx.lessDeduction(m, deducted); ok {
		return f
	}
	return fact{verdict: events.VerdictUnsupported, weak: true, reason: "the claim states an amount net of a deduction that no field or two fields it names give"}
}

// lessDeduction finds m as a field less the deduction field beside it in
// its object (gross_cents − fees_cents), the deduction being a field in
// scope that the deducted concepts name.
func (cx *claim) lessDeduction(m *evidence.NumMention, deducted []string) (fact, bool) {
	ix := cx.ix
	var room [8]cand
	ks := cx.c.candidates(room[:0], m, m.V)
	for _, c := range deducted {
		for _, d := range cx.inScopeOf(ix.Concept(c)) {
			dl := &ix.Leaves[d]
			if dl.Kind != evidence.KindNum || dl.Text || dl.Node < 0 {
				continue
			}
			for _, g := range ix.DirectLeaves().Of(dl.Node) {
				gl := &ix.Leaves[g]
				if g == d || gl.Kind != evidence.KindNum || gl.Text || gl.Scaled != dl.Scaled || gl.Ptr() == dl.Ptr() || !dimFits(gl, m.Unit) {
					continue
				}
				if cx.near(m, gl.Num-dl.Num, ks) {
					return supported(ix, "a field less the deduction beside it", g, d), true
				}
			}
		}
	}
	return fact{}, false
}
