package check

import (
	"github.com/toolstream/toolstream/internal/lang"

	"slices"
	"strings"
)

// ---- reading a claim: the lexicon --------------------------------------

// cue is what a word signals about the claim around it.
type cue uint64

const (
	cueNeg         cue = 1 << iota // not, 不, 没有
	cueNegLex                      // a negative state in one word: out of stock, 缺货
	cuePlain                       // contains a negation character but does not negate (非常)
	cueApprox                      // about, 约, 左右
	cueUniversal                   // all, every, 全部, 都
	cueExistential                 // some, 部分
	cueExclusive                   // only, 只, 仅
	cueAlways                      // always, never, 总是
	cueCertain                     // definitely, guaranteed, 一定
	cueDerive                      // total, difference, 一共, 平均
	cueMore                        // more, higher, 贵 (with 比)
	cueLess                        // less, cheaper, 便宜
	cueMost                        // most, highest, 最贵
	cueLeast                       // least, cheapest, 最便宜
	cueThan                        // than, 比
	cueGT                          // more than, 超过 (before a number)
	cueGE                          // at least, 至少
	cueLT                          // less than, 不到
	cueLE                          // up to, within, 以内 (after a number too)
	cueAfterGE                     // 以上, "or more" (after a number)
	cueNonAssert                   // greetings, opinions, discourse (only if nothing is checkable)
	cueOffer                       // offers of help: never checkable
	cueHedge                       // estimated, expected, 预计
	cuePronoun                     // it, they, 它, 该
	cueStop                        // no content
	cueFree                        // free, 免费: a price of zero
	cueFuture                      // will, 将
	cueRespectively
	cueUp     // rose, grew, 增长: a series went up
	cueDown   // fell, dropped, 下降: a series went down
	cueExcept // except, all but, 除了…都: every member but the named one(s)
	cueDebt   // owe, debt, 欠款: an amount owed, a negative balance stated as positive
	cueModal  // may be, might, could, 可能, 也许: a possibility, not a statement
)

// catValue is a value of a closed category: a state of progress, of
// settlement, of approval, the sky's condition. Within a class values
// exclude each other; rank orders the steps of a class (a shipped claim
// holds for a thing delivered).
type catValue struct {
	class, value string
	rank         int
	neg          bool // the word states the negation (未发货)
}

type lexInfo struct {
	concepts []string
	cues     cue
	cats     []catValue
}

// The lexicon is internal/lang's lexicon.txt, read once when the package
// loads; its words are looked up through these tables, never changed.
var (
	theLexicon  = mustLexicon(lang.Default())
	lexConcepts = theLexicon.concepts // every concept name
	enLex       = theLexicon.en
	enPhrases   = theLexicon.phrases // first word -> phrases (words), longest first
	zhLex       = theLexicon.zh
	zhMaxLen    = theLexicon.zhMaxLen // runes of the longest Chinese word
)

var cueNames = map[string]cue{
	"neg": cueNeg, "neglex": cueNegLex, "plain": cuePlain, "approx": cueApprox,
	"universal": cueUniversal, "existential": cueExistential, "exclusive": cueExclusive,
	"always": cueAlways, "certain": cueCertain, "derive": cueDerive, "more": cueMore,
	"modal": cueModal, "less": cueLess, "most": cueMost, "least": cueLeast, "than": cueThan, "gt": cueGT,
	"ge": cueGE, "lt": cueLT, "le": cueLE, "after_ge": cueAfterGE, "nonassert": cueNonAssert,
	"offer": cueOffer, "hedge": cueHedge, "pronoun": cuePronoun, "stop": cueStop,
	"free": cueFree, "future": cueFuture, "respectively": cueRespectively,
	"up": cueUp, "down": cueDown, "except": cueExcept, "debt": cueDebt,
}

// negPrefixed returns the positive word of un-/non-/in- words whose
// positive is in the lexicon ("unpaid" → "paid"), or "".
func negPrefixed(w string) string {
	for _, p := range []string{"non", "un", "in"} {
		if rest, ok := strings.CutPrefix(w, p); ok && len(rest) > 3 {
			rest = strings.TrimPrefix(rest, "-")
			if l := enLex[rest]; l != nil && len(l.concepts) > 0 {
				return rest
			}
			if l := enLex[lang.Stem(rest)]; l != nil && len(l.concepts) > 0 && p != "in" {
				return lang.Stem(rest)
			}
		}
	}
	return ""
}

// wordConcepts returns the concepts of one English word or lexicon word:
// its lexicon concepts, else its stem; nothing for numbers and stop words.
func wordConcepts(w string) []string {
	if l := enLex[w]; l != nil {
		if len(l.concepts) > 0 {
			return l.concepts
		}
		if l.cues&(cueStop|cueNeg) != 0 {
			return nil
		}
	}
	if l := zhLex[w]; l != nil {
		if len(l.concepts) > 0 {
			return l.concepts
		}
		if l.cues != 0 {
			return nil
		}
		return []string{w}
	}
	if w == "" || w[0] >= '0' && w[0] <= '9' {
		return nil
	}
	if lang.IsCJK([]rune(w)[0]) {
		return []string{w}
	}
	s := lang.Stem(w)
	if l := enLex[s]; l != nil {
		if len(l.concepts) > 0 {
			return l.concepts
		}
		if len(l.cats) > 0 {
			return []string{s} // "cleared" is a word to cover, not a stop word
		}
		return nil
	}
	if p := negPrefixed(w); p != "" {
		return enLex[p].concepts
	}
	return []string{lang.TruncStem(s)}
}

// conceptsOf returns the concepts of a JSON key or tool name.
func conceptsOf(key string) []string {
	var out []string
	parts := lang.KeyParts(key)
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		// Multi-word lexicon entries spelled as keys: out_of_stock, check_in.
		if ps, ok := enPhrases[p]; ok {
			matched := false
			for _, ph := range ps {
				if i+len(ph.words) <= len(parts) && slices.Equal(parts[i:i+len(ph.words)], ph.words) {
					out = append(out, enLex[ph.text].concepts...)
					i += len(ph.words) - 1
					matched = true
					break
				}
			}
			if matched {
				continue
			}
		}
		r := []rune(p)
		if lang.IsCJK(r[0]) {
			for _, w := range segmentCJK(r) {
				out = append(out, wordConcepts(w)...)
			}
			continue
		}
		out = append(out, wordConcepts(p)...)
	}
	return dedupe(out)
}

// dedupeOwn is dedupe in s's own memory, for a slice its caller made and
// no one else holds.
func dedupeOwn(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if !slices.Contains(out, x) {
			out = append(out, s[i])
		}
	}
	clear(s[len(out):])
	return out
}

// dedupe returns the strings of s, each once, in order of first
// appearance; s is not changed.
func dedupe(s []string) []string {
	if len(s) < 2 {
		return s
	}
	out := s[:0:0]
	for _, x := range s {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// segmentCJK splits a run of ideographs into lexicon words by longest
// match; unknown ideographs pair up as bigrams (or stand alone).
func segmentCJK(r []rune) []string { return appendCJK(nil, newRuneText(r), 0, len(r)) }

// appendCJK appends the words segmentCJK makes of runes [s, e) of text.
func appendCJK(out []string, text runeText, s, e int) []string {
	u := -1 // where the unknown runes before i start
	flush := func(i int) {
		switch {
		case u < 0:
		case i-u == 1:
			out = append(out, text.sub(u, i))
		default:
			for k := u; k+1 < i; k++ {
				out = append(out, text.sub(k, k+2))
			}
		}
		u = -1
	}
	for i := s; i < e; {
		n := min(zhMaxLen, e-i)
		for ; n > 0; n-- {
			if _, ok := zhLex[text.sub(i, i+n)]; ok {
				break
			}
		}
		if n == 1 {
			// A one-ideograph cue word (小, 大) with no concept pairs up with
			// its neighbours like an unknown one: 大桌 and 小桌 differ.
			if l := zhLex[text.sub(i, i+1)]; len(l.concepts) == 0 && len(l.cats) == 0 && l.cues&(cueStop|cueNeg) == 0 {
				n = 0
			}
		}
		if n == 0 {
			if u < 0 {
				u = i
			}
			i++
			continue
		}
		flush(i)
		out = append(out, text.sub(i, i+n))
		i += n
	}
	flush(e)
	return out
}

// textConcepts returns the concepts of a text's words (string values).
func textConcepts(r []rune, toks []token) []string {
	var out []string
	for i := 0; i < len(toks); i++ {
		tk := toks[i]
		if !tk.cjk {
			out = append(out, wordConcepts(tk.s)...)
			continue
		}
		j := i
		for j < len(toks) && toks[j].cjk && (j == i || toks[j].start == toks[j-1].end) {
			j++
		}
		for _, w := range segmentCJK(r[tk.start:toks[j-1].end]) {
			out = append(out, wordConcepts(w)...)
		}
		i = j - 1
	}
	return out
}

// cword is one word of a claim: an English word or phrase, a number, or a
// Chinese lexicon word (or unknown ideograph).
type cword struct {
	s          string
	start, end int
	info       *lexInfo
	cjk        bool
}

func (w *cword) cues() cue {
	if w.info == nil {
		return 0
	}
	return w.info.cues
}

// claimWords splits a claim's normalised runes into words, matching
// English phrases and Chinese lexicon words longest first.
func claimWords(r []rune) []cword { return claimWordsOf(r, tokenize(r)) }

// claimWordsOf is claimWords over tokens already made.
func claimWordsOf(r []rune, toks []token) []cword {
	return claimWordsInto(nil, newRuneText(r), r, toks)
}

// claimWordsInto is claimWordsOf appending to out; text is r as a
// runeText.
func claimWordsInto(out []cword, text runeText, r []rune, toks []token) []cword {
	out = slices.Grow(out, len(toks))
	for i := 0; i < len(toks); i++ {
		tk := toks[i]
		if tk.cjk {
			j := i
			for j < len(toks) && toks[j].cjk && (j == i || toks[j].start == toks[j-1].end) {
				j++
			}
			for pos, e := tk.start, toks[j-1].end; pos < e; {
				n := cjkKeepLen(text, pos, e)
				w := text.sub(pos, pos+n)
				out = append(out, cword{s: w, start: pos, end: pos + n, info: zhLex[w], cjk: true})
				pos += n
			}
			i = j - 1
			continue
		}
		if ps, ok := enPhrases[tk.s]; ok {
			matched := false
			for _, ph := range ps {
				if i+len(ph.words) > len(toks) {
					continue
				}
				ok := true
				for k, w := range ph.words {
					if toks[i+k].s != w {
						ok = false
						break
					}
				}
				if ok {
					out = append(out, cword{s: ph.text, start: tk.start, end: toks[i+len(ph.words)-1].end, info: enLex[ph.text]})
					i += len(ph.words) - 1
					matched = true
					break
				}
			}
			if matched {
				continue
			}
		}
		info := enLex[tk.s]
		if info == nil {
			if s := lang.Stem(tk.s); enLex[s] != nil && len(enLex[s].concepts) > 0 {
				info = enLex[s]
			}
		}
		out = append(out, cword{s: tk.s, start: tk.start, end: tk.end, info: info})
	}
	return out
}

// segmentCJKKeep is segmentCJK without bigrams: unknown ideographs stay
// single, so words tile the run and keep their offsets.
func segmentCJKKeep(r []rune) []string {
	var out []string
	text := newRuneText(r)
	for i := 0; i < len(r); {
		n := cjkKeepLen(text, i, len(r))
		out = append(out, text.sub(i, i+n))
		i += n
	}
	return out
}

// cjkKeepLen returns the length in runes of the word segmentCJKKeep reads
// at rune i of text, in a run ending at e: the longest lexicon word, or
// one ideograph.
func cjkKeepLen(text runeText, i, e int) int {
	n := min(zhMaxLen, e-i)
	for ; n > 1; n-- {
		if _, ok := zhLex[text.sub(i, i+n)]; ok {
			break
		}
	}
	return n
}

// categoriesOf returns the closed-category values an evidence string
// states ("in_transit", "Light rain", "已发货"): the whole value if it is a
// category word, else every category word inside it.
func categoriesOf(s string) []catValue {
	if len(s) > 60 || s == "" {
		return nil
	}
	s = strings.Map(func(c rune) rune {
		if c == '_' || c == '-' {
			return ' '
		}
		return c
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if l := enLex[s]; l != nil && len(l.cats) > 0 {
		return l.cats
	}
	if l := zhLex[s]; l != nil && len(l.cats) > 0 {
		return l.cats
	}
	// "多云转小雨": cloudy turning to rain — both hold. A negation before
	// a value states its negation (NOT_READY, 未就绪).
	var out []catValue
	negated := false
	for _, w := range claimWords([]rune(s)) {
		if w.info == nil {
			continue
		}
		if w.info.cues&cueNeg != 0 && w.info.cues&cuePlain == 0 {
			negated = !negated
			continue
		}
		for _, c := range w.info.cats {
			if negated {
				c.neg = !c.neg
			}
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
		negated = false
	}
	return out
}
