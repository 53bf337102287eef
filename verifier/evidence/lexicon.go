package evidence

import (
	"github.com/toolstream/toolstream/internal/lang"

	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ---- reading a claim: the lexicon --------------------------------------

// Cue is what a word signals about the claim around it.
type Cue uint64

const (
	CueNeg         Cue = 1 << iota // not, 不, 没有
	CueNegLex                      // a negative state in one word: out of stock, 缺货
	CuePlain                       // contains a negation character but does not negate (非常)
	CueApprox                      // about, 约, 左右
	CueUniversal                   // all, every, 全部, 都
	CueExistential                 // some, 部分
	CueExclusive                   // only, 只, 仅
	CueAlways                      // always, never, 总是
	CueCertain                     // definitely, guaranteed, 一定
	CueDerive                      // total, difference, 一共, 平均
	CueMore                        // more, higher, 贵 (with 比)
	CueLess                        // less, cheaper, 便宜
	CueMost                        // most, highest, 最贵
	CueLeast                       // least, cheapest, 最便宜
	CueThan                        // than, 比
	CueGT                          // more than, 超过 (before a number)
	CueGE                          // at least, 至少
	CueLT                          // less than, 不到
	CueLE                          // up to, within, 以内 (after a number too)
	CueAfterGE                     // 以上, "or more" (after a number)
	CueNonAssert                   // greetings, opinions, discourse (only if nothing is checkable)
	CueOffer                       // offers of help: never checkable
	cueHedge                       // estimated, expected, 预计
	CuePronoun                     // it, they, 它, 该
	CueStop                        // no content
	CueFree                        // free, 免费: a price of zero
	CueFuture                      // will, 将
	cueRespectively
	CueUp     // rose, grew, 增长: a series went up
	CueDown   // fell, dropped, 下降: a series went down
	CueExcept // except, all but, 除了…都: every member but the named one(s)
	CueDebt   // owe, debt, 欠款: an amount owed, a negative balance stated as positive
	CueModal  // may be, might, could, 可能, 也许: a possibility, not a statement
	CueNone   // none, no, 没有任何, 均未: holds for no member (a negation too)
	CueFreeOf // exempt, waived, 免, 免除: free of what the words beside it name
)

// CatValue is a value of a closed category: a state of progress, of
// settlement, of approval, the sky's condition. Within a class values
// exclude each other; rank orders the steps of a class (a shipped claim
// holds for a thing delivered).
type CatValue struct {
	Class, Value string
	rank         int
	Neg          bool // the word states the negation (未发货)
}

type lexInfo struct {
	Concepts []string
	Cues     Cue
	Cats     []CatValue
}

// The lexicon is internal/lang's lexicon.txt, read once when the package
// loads; its words are looked up through these tables, never changed.
var (
	theLexicon  = mustLexicon(lang.Default())
	LexConcepts = theLexicon.concepts // every concept name
	EnLex       = theLexicon.en
	enPhrases   = theLexicon.phrases // first word -> phrases (words), longest first
	ZhLex       = theLexicon.zh
	ZhMaxLen    = theLexicon.zhMaxLen // runes of the longest Chinese word
)

var cueNames = map[string]Cue{
	"neg": CueNeg, "neglex": CueNegLex, "plain": CuePlain, "approx": CueApprox,
	"universal": CueUniversal, "existential": CueExistential, "exclusive": CueExclusive,
	"always": CueAlways, "certain": CueCertain, "derive": CueDerive, "more": CueMore,
	"modal": CueModal, "less": CueLess, "most": CueMost, "least": CueLeast, "than": CueThan, "gt": CueGT,
	"ge": CueGE, "lt": CueLT, "le": CueLE, "after_ge": CueAfterGE, "nonassert": CueNonAssert,
	"offer": CueOffer, "hedge": cueHedge, "pronoun": CuePronoun, "stop": CueStop,
	"free": CueFree, "future": CueFuture, "respectively": cueRespectively,
	"up": CueUp, "down": CueDown, "except": CueExcept, "debt": CueDebt,
	"none": CueNone, "free_of": CueFreeOf,
}

// NegPrefixed returns the positive word of un-/non-/in- words whose
// positive is in the lexicon ("unpaid" → "paid"), or "".
func NegPrefixed(w string) string {
	for _, p := range []string{"non", "un", "in"} {
		if rest, ok := strings.CutPrefix(w, p); ok && len(rest) > 3 {
			rest = strings.TrimPrefix(rest, "-")
			if l := EnLex[rest]; l != nil && len(l.Concepts) > 0 {
				return rest
			}
			if l := EnLex[lang.Stem(rest)]; l != nil && len(l.Concepts) > 0 && p != "in" {
				return lang.Stem(rest)
			}
		}
	}
	return ""
}

// WordConcepts returns the concepts of one English word or lexicon word:
// its lexicon concepts, else its stem; nothing for numbers and stop words.
func WordConcepts(w string) []string {
	cs, one, isOne := wordConcepts(w)
	if isOne {
		return []string{one}
	}
	return cs
}

// appendWordConcepts appends WordConcepts(w) to dst, without a list of
// its own for a word of one concept (most words of a text: their stems).
func appendWordConcepts(dst []string, w string) []string {
	cs, one, isOne := wordConcepts(w)
	if isOne {
		return append(dst, one)
	}
	return append(dst, cs...)
}

// wordConcepts is WordConcepts(w): a lexicon's list (cs, shared: never
// changed), or one concept made for w (one, when isOne).
func wordConcepts(w string) (cs []string, one string, isOne bool) {
	if l := EnLex[w]; l != nil {
		if len(l.Concepts) > 0 {
			return l.Concepts, "", false
		}
		if l.Cues&(CueStop|CueNeg) != 0 {
			return nil, "", false
		}
	}
	if l := ZhLex[w]; l != nil {
		if len(l.Concepts) > 0 {
			return l.Concepts, "", false
		}
		if l.Cues != 0 {
			return nil, "", false
		}
		return nil, w, true
	}
	if w == "" || w[0] >= '0' && w[0] <= '9' {
		return nil, "", false
	}
	if r, _ := utf8.DecodeRuneInString(w); lang.IsCJK(r) {
		return nil, w, true
	}
	s := lang.Stem(w)
	if l := EnLex[s]; l != nil {
		if len(l.Concepts) > 0 {
			return l.Concepts, "", false
		}
		if len(l.Cats) > 0 {
			return nil, s, true // "cleared" is a word to cover, not a stop word
		}
		return nil, "", false
	}
	if p := NegPrefixed(w); p != "" {
		return EnLex[p].Concepts, "", false
	}
	return nil, lang.TruncStem(s), true
}

// ConceptsOf returns the concepts of a JSON key or tool name.
func ConceptsOf(key string) []string {
	var out []string
	parts := lang.KeyParts(key)
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		// Multi-word lexicon entries spelled as keys: out_of_stock, check_in.
		if ps, ok := enPhrases[p]; ok {
			matched := false
			for _, ph := range ps {
				if i+len(ph.words) <= len(parts) && slices.Equal(parts[i:i+len(ph.words)], ph.words) {
					out = append(out, EnLex[ph.text].Concepts...)
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
			for _, w := range SegmentCJK(r) {
				out = append(out, WordConcepts(w)...)
			}
			continue
		}
		out = append(out, WordConcepts(p)...)
	}
	return Dedupe(out)
}

// DedupeOwn is dedupe in s's own memory, for a slice its caller made and
// no one else holds.
func DedupeOwn(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if !slices.Contains(out, x) {
			out = append(out, s[i])
		}
	}
	clear(s[len(out):])
	return out
}

// Dedupe returns the strings of s, each once, in order of first
// appearance; s is not changed.
func Dedupe(s []string) []string {
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

// SegmentCJK splits a run of ideographs into lexicon words by longest
// match; unknown ideographs pair up as bigrams (or stand alone).
func SegmentCJK(r []rune) []string { return AppendCJK(nil, NewRuneText(r), 0, len(r)) }

// AppendCJK appends the words segmentCJK makes of runes [s, e) of text.
func AppendCJK(out []string, text RuneText, s, e int) []string {
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
		n := min(ZhMaxLen, e-i)
		for ; n > 0; n-- {
			if _, ok := ZhLex[text.sub(i, i+n)]; ok {
				break
			}
		}
		if n == 1 {
			// A one-ideograph cue word (小, 大) with no concept pairs up with
			// its neighbours like an unknown one: 大桌 and 小桌 differ.
			if l := ZhLex[text.sub(i, i+1)]; len(l.Concepts) == 0 && len(l.Cats) == 0 && l.Cues&(CueStop|CueNeg) == 0 {
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

// TextConcepts returns the concepts of a text's words (string values).
func TextConcepts(r []rune, toks []Token) []string {
	var out []string
	for i := 0; i < len(toks); i++ {
		tk := toks[i]
		if !tk.Cjk {
			out = appendWordConcepts(out, tk.S)
			continue
		}
		j := i
		for j < len(toks) && toks[j].Cjk && (j == i || toks[j].Start == toks[j-1].End) {
			j++
		}
		for _, w := range SegmentCJK(r[tk.Start:toks[j-1].End]) {
			out = appendWordConcepts(out, w)
		}
		i = j - 1
	}
	return out
}

// Cword is one word of a claim: an English word or phrase, a number, or a
// Chinese lexicon word (or unknown ideograph).
type Cword struct {
	S          string
	Start, End int
	Info       *lexInfo
	Cjk        bool
}

func (w *Cword) Cues() Cue {
	if w.Info == nil {
		return 0
	}
	return w.Info.Cues
}

// ClaimWords splits a claim's normalised runes into words, matching
// English phrases and Chinese lexicon words longest first.
func ClaimWords(r []rune) []Cword { return claimWordsOf(r, Tokenize(r)) }

// claimWordsOf is claimWords over tokens already made.
func claimWordsOf(r []rune, toks []Token) []Cword {
	return ClaimWordsInto(nil, NewRuneText(r), r, toks)
}

// ClaimWordsInto is claimWordsOf appending to out; text is r as a
// runeText.
func ClaimWordsInto(out []Cword, text RuneText, r []rune, toks []Token) []Cword {
	out = slices.Grow(out, len(toks))
	for i := 0; i < len(toks); i++ {
		tk := toks[i]
		if tk.Cjk {
			j := i
			for j < len(toks) && toks[j].Cjk && (j == i || toks[j].Start == toks[j-1].End) {
				j++
			}
			for pos, e := tk.Start, toks[j-1].End; pos < e; {
				n := cjkKeepLen(text, pos, e)
				w := text.sub(pos, pos+n)
				out = append(out, Cword{S: w, Start: pos, End: pos + n, Info: ZhLex[w], Cjk: true})
				pos += n
			}
			i = j - 1
			continue
		}
		if ps, ok := enPhrases[tk.S]; ok {
			matched := false
			for _, ph := range ps {
				if i+len(ph.words) > len(toks) {
					continue
				}
				ok := true
				for k, w := range ph.words {
					if toks[i+k].S != w {
						ok = false
						break
					}
				}
				if ok {
					out = append(out, Cword{S: ph.text, Start: tk.Start, End: toks[i+len(ph.words)-1].End, Info: EnLex[ph.text]})
					i += len(ph.words) - 1
					matched = true
					break
				}
			}
			if matched {
				continue
			}
		}
		info := EnLex[tk.S]
		if info == nil {
			if s := lang.Stem(tk.S); EnLex[s] != nil && len(EnLex[s].Concepts) > 0 {
				info = EnLex[s]
			}
		}
		out = append(out, Cword{S: tk.S, Start: tk.Start, End: tk.End, Info: info})
	}
	return out
}

// segmentCJKKeep is segmentCJK without bigrams: unknown ideographs stay
// single, so words tile the run and keep their offsets.
func segmentCJKKeep(r []rune) []string {
	var out []string
	text := NewRuneText(r)
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
func cjkKeepLen(text RuneText, i, e int) int {
	n := min(ZhMaxLen, e-i)
	for ; n > 1; n-- {
		if _, ok := ZhLex[text.sub(i, i+n)]; ok {
			break
		}
	}
	return n
}

// CategoriesOf returns the closed-category values an evidence string
// states ("in_transit", "Light rain", "已发货"): the whole value if it is a
// category word, else every category word inside it.
func CategoriesOf(s string) []CatValue {
	if len(s) > 60 || s == "" {
		return nil
	}
	if cs, ok := wholeCategoriesOf(s); ok {
		return cs
	}
	if cs := NotYetCats(s); cs != nil {
		return cs
	}
	return catsOfWords(ClaimWords([]rune(s)))
}

// categoriesOf is CategoriesOf(si.norm) read from the value's tokens. The
// words of norm and of its form with '_' and '-' as spaces and spaces
// collapsed are the same: neither is a letter or digit, so both end a
// token wherever they stand, and no word is ever made across either.
func (w *Walker) categoriesOf(si *strInfo) []CatValue {
	if len(si.norm) > 60 || si.norm == "" {
		return nil
	}
	if cs, ok := wholeCategoriesOf(si.norm); ok {
		return cs
	}
	if cs := NotYetCats(si.norm); cs != nil {
		return cs
	}
	w.cwords = ClaimWordsInto(w.cwords[:0], si.text, si.runes, si.tokensOf())
	return catsOfWords(w.cwords)
}

// A whole value is looked up by its form with '_' and '-' read as spaces
// and every run of spaces one space, trimmed (catWholeAlready,
// appendCatWhole).

// catWholeAlready reports whether s is in its whole form already.
func catWholeAlready(s string) bool {
	space := true // at the start, or after a space
	for _, c := range s {
		if c == '_' || c == '-' || c == utf8.RuneError || unicode.IsSpace(c) && (c != ' ' || space) {
			return false
		}
		space = c == ' '
	}
	return !space || s == ""
}

// appendCatWhole appends the whole form of s to b: strings.Join(strings.Fields(s
// with '_' and '-' as ' '), " "), an invalid byte written as U+FFFD (as
// strings.Map writes it).
func appendCatWhole(b []byte, s string) []byte {
	sep := false
	for _, c := range s {
		if c == '_' || c == '-' || unicode.IsSpace(c) {
			sep = true
			continue
		}
		if sep && len(b) > 0 {
			b = append(b, ' ')
		}
		sep = false
		b = utf8.AppendRune(b, c)
	}
	return b
}

// wholeCategories returns the categories of a whole value that is a
// category word.
func wholeCategories(s string) ([]CatValue, bool) {
	if l := EnLex[s]; l != nil && len(l.Cats) > 0 {
		return l.Cats, true
	}
	if l := ZhLex[s]; l != nil && len(l.Cats) > 0 {
		return l.Cats, true
	}
	return nil, false
}

// wholeCategoriesOf is wholeCategories of the whole form of s, looked up
// without making the form a string of its own.
func wholeCategoriesOf(s string) ([]CatValue, bool) {
	if catWholeAlready(s) {
		return wholeCategories(s)
	}
	var buf [128]byte
	k := appendCatWhole(buf[:0], s)
	if l := EnLex[string(k)]; l != nil && len(l.Cats) > 0 {
		return l.Cats, true
	}
	if l := ZhLex[string(k)]; l != nil && len(l.Cats) > 0 {
		return l.Cats, true
	}
	return nil, false
}

// catsOfWords returns the category values of a value's words.
func catsOfWords(ws []Cword) []CatValue {
	// "多云转小雨": cloudy turning to rain — both hold. A negation before
	// a value states its negation (NOT_READY, 未就绪).
	var out []CatValue
	negated := false
	for i, w := range ws {
		if w.Info == nil {
			continue
		}
		if w.Info.Cues&CueNeg != 0 && w.Info.Cues&CuePlain == 0 {
			negated = !negated
			continue
		}
		notYet := len(w.Info.Cats) > 0 && NotYetWord(ws, i)
		for _, c := range w.Info.Cats {
			if negated != notYet {
				c.Neg = !c.Neg
			}
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
		negated = false
	}
	return out
}

// pendingPrefixes are words.txt's [pending prefixes] (待, 等待, awaiting),
// progressiveSuffixes its [progressive suffixes] (中), statePrefixes its
// [state prefixes] (已), and unreachedTraits the lexicon's category
// traits "unreached": the states a progressive suffix says are not yet
// reached (确认中 is not confirmed; 运行中 is running).
var (
	pendingPrefixes     = LangData.Set("pending prefixes")
	progressiveSuffixes = LangData.List("progressive suffixes")
	statePrefixes       = LangData.List("state prefixes")
	unreachedTraits     = func() map[string]bool {
		m := map[string]bool{}
		for _, l := range LangData.Lines("category traits") {
			if l.Name == "unreached" {
				for _, w := range l.Words {
					m[w] = true
				}
			}
		}
		return m
	}()
)

// stateCats returns the states Chinese word w names, as itself or, a bare
// verb (结算, 退款), as its form with a state prefix (已结算, 已退款): nil
// when neither is a state word of the lexicon, or either negates.
func stateCats(w string) []CatValue {
	if l := ZhLex[w]; l != nil && len(l.Cats) > 0 {
		if l.Cues&CueNegLex != 0 || slices.ContainsFunc(l.Cats, func(c CatValue) bool { return c.Neg }) {
			return nil
		}
		return l.Cats
	}
	for _, pre := range statePrefixes {
		if l := ZhLex[pre+w]; l != nil && len(l.Cats) > 0 && l.Cues&CueNegLex == 0 && !slices.ContainsFunc(l.Cats, func(c CatValue) bool { return c.Neg }) {
			return l.Cats
		}
	}
	return nil
}

// negatedCats returns cs, each stating its negation.
func negatedCats(cs []CatValue) []CatValue {
	out := make([]CatValue, len(cs))
	for i, c := range cs {
		c.Neg = !c.Neg
		out[i] = c
	}
	return out
}

// unreached reports whether a progressive suffix after a word of cs says
// its state is not reached yet: every value is of trait unreached.
func unreached(cs []CatValue) bool {
	for _, c := range cs {
		if !unreachedTraits[c.Class] && !unreachedTraits[c.Class+"/"+c.Value] {
			return false
		}
	}
	return len(cs) > 0
}

// NotYetCats reads a Chinese status value that says a state is still to
// come: a pending prefix before a state word or its bare verb (待结算,
// 等待签收: not settled, not signed for), or a progressive suffix after one
// whose state is reached at its end (确认中, 退款中: not confirmed, not
// refunded). It returns the state's values, each stating its negation, or
// nil for any other value.
func NotYetCats(s string) []CatValue {
	r := []rune(s)
	if len(r) < 2 || len(r) > 12 || !lang.IsCJK(r[0]) {
		return nil
	}
	for p := range pendingPrefixes {
		if rest, ok := strings.CutPrefix(s, p); ok && rest != "" && lang.IsCJK([]rune(p)[0]) {
			if cs := stateCats(rest); cs != nil {
				return negatedCats(cs)
			}
		}
	}
	for _, suf := range progressiveSuffixes {
		if stem, ok := strings.CutSuffix(s, suf); ok && stem != "" {
			if cs := stateCats(stem); cs != nil && unreached(cs) {
				return negatedCats(cs)
			}
		}
	}
	return nil
}

// NotYetWord reports whether state word i of ws is said as still to come:
// a pending prefix right before it (等待审批, 在等签收) or, for a state
// reached at its end, a progressive suffix right after it (确认中).
func NotYetWord(ws []Cword, i int) bool {
	w := &ws[i]
	if !w.Cjk {
		return false
	}
	for p := range pendingPrefixes {
		if strings.HasPrefix(w.S, p) {
			return false // 待审批 after 等 (等待审批 as cut): the word says the pending state itself
		}
	}
	before := ""
	for j := i - 1; j >= 0 && j >= i-2 && ws[j].Cjk && ws[j].End == ws[j+1].Start; j-- {
		before = ws[j].S + before
		if pendingPrefixes[before] {
			return true
		}
	}
	if i+1 < len(ws) && ws[i+1].Cjk && ws[i+1].Start == w.End && slices.Contains(progressiveSuffixes, ws[i+1].S) {
		cs := stateCats(w.S)
		return unreached(cs)
	}
	return false
}

// StateCatsOf returns the states Chinese word w names, as itself or as
// its bare verb (stateCats).
func StateCatsOf(w string) []CatValue { return stateCats(w) }

// NegatedCats returns cs, each stating its negation.
func NegatedCats(cs []CatValue) []CatValue { return negatedCats(cs) }
