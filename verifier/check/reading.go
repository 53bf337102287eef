package check

import (
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ---- reading a claim against the evidence index -----------------------------

// reading is what one claim says, read once against the index: its words
// and cues, the subjects, dates, numbers and evidence values it names, and
// the concepts of its other words. Nothing changes a reading once
// readClaim returns it.
type reading struct {
	text         string
	buf          *readBuffers // what it is made in (while it is read)
	orig         []rune       // the text's runes as written
	norm         []rune
	nt           evidence.RuneText // norm as a string
	toks         []evidence.Token
	words        []evidence.Cword
	question     bool
	endsSentence bool
	cues         evidence.Cue
	negs         int
	negLex       int    // of negs, the one-word negative states (sold out, 约满)
	negLexCat    int    // of negLex, those that are a category's value (disabled, 已满)
	negWords     []int  // the words of negs that are a negation word alone (no, not, 没有)
	used         []bool // runes taken by subjects, dates, values and numbers
	named        evidence.Subjects
	namedNodes   []int32 // the innermost of the objects named
	unknown      string  // an identifier the evidence does not know
	codes        []evidence.CodeMention
	times        []evidence.TimeExpr
	values       [][]int32 // evidence values named, one list per mention
	valueSpans   [][2]int  // the runes of each value mention
	nums         []evidence.NumMention
	cats         []catMention
	concepts     []string
}

// readBuffers are the slices a claim's reading is made in, handed from
// one claim of an answer to the next: nothing keeps a reading after the
// claim is decided (what it leaves the next claim, after, holds none of
// them), so the next reading may take them over.
type readBuffers struct {
	orig, norm                     []rune
	used                           []bool
	toks                           []evidence.Token
	words                          []evidence.Cword
	keys                           []string               // the tokens' subject keys
	hits                           []*evidence.SubjectHit // the subjects at each key
	tokHits                        []*evidence.TokenHit   // the lookups of each token
	concepts                       []string               // the reading's concepts (clipped: an append copies)
	subjHits                       []subjectHitSpan
	hitNodes, curNodes, namedNodes []int32
	ts                             evidence.TimeScan
	rd                             reading
	// nameLeaves are, by array, the leaves of its rows under a key of
	// their own name (ownNameLeaves) keyed by value, for this answer's
	// index: every claim naming a row asks again.
	nameLeaves map[int32]*nameLeaves
	// keySides are, by key, the side of each opposed pair the key holds
	// (keySide), for this answer: every claim binding a field asks again.
	keySides map[string][]int8
	// fieldKeys are, by key, what it says (fieldKeyOf), for this
	// answer: every claim weighing a state field asks again.
	fieldKeys map[fieldKeyID]fieldKey
	cx        claim
	afters    [2]after // the claim before's (check alternates them)
}

// catMention is a closed-category word of a claim (shipped, 晴).
type catMention struct {
	cats  []evidence.CatValue
	start int
	// negAfter counts the negations said after the word ("in service
	// with no open defects", 故障尚未修复): they negate what follows
	// them, not this state.
	negAfter int
	// verb marks a bare verb read as its state word (没缴费, stateVerbCats):
	// with no status field in the evidence it says nothing of one.
	verb bool
}

// negation counts the claim's negation word i, and notes it after every
// state word read before it (catMention.negAfter) unless it is said last
// in its clause: "P-7 is running no longer", "running: no" negate the
// state before them.
func (rd *reading) negation(i int) {
	rd.negs++
	if rd.saidLast(i) {
		return
	}
	for k := range rd.cats {
		rd.cats[k].negAfter++
	}
}

// negationClosers are the words that may follow a negation said last
// ("no longer", "not anymore", 不再了).
var negationClosers = evidence.LangData.Set("negation closers")

// statePrefixes are words.txt's [state prefixes] (已).
var statePrefixes = evidence.LangData.List("state prefixes")

// stateVerbCats returns the states word i names as a bare verb (缴费)
// whose prefixed form (已缴费) is a state word of the lexicon, when it
// follows a negation (没, 还没有, 尚未) or a word of having done (已经)
// with nothing between, or, each stating its negation, when a pending
// prefix is right before it or a progressive suffix right after it
// (等待签收, 退款中: evidence.NotYetWord): nil for any other word, and for
// a word that is a state word itself.
func stateVerbCats(words []evidence.Cword, i int) []evidence.CatValue {
	w := &words[i]
	if !w.Cjk || i == 0 || w.Info != nil && len(w.Info.Cats) > 0 {
		return nil
	}
	p := &words[i-1]
	if !p.Cjk || p.End != w.Start {
		return nil
	}
	if evidence.NotYetWord(words, i) {
		if cs := evidence.StateCatsOf(w.S); cs != nil {
			return evidence.NegatedCats(cs) // 等待签收, 退款中: the state is still to come
		}
	}
	if c := p.Cues(); (c&evidence.CueNeg == 0 || c&evidence.CuePlain != 0) && !slices.Contains(statePrefixes, string([]rune(p.S)[:1])) {
		return nil
	}
	for _, pre := range statePrefixes {
		if l := evidence.ZhLex[pre+w.S]; l != nil && len(l.Cats) > 0 && l.Cues&evidence.CueNegLex == 0 && !slices.ContainsFunc(l.Cats, func(c evidence.CatValue) bool { return c.Neg }) {
			return l.Cats
		}
	}
	return nil
}

// saidLast reports whether only negation closers follow word i up to the
// end of its clause (a comma, semicolon, full stop or the claim's end).
func (rd *reading) saidLast(i int) bool {
	for j := i + 1; j < len(rd.words); j++ {
		if clauseEnds(rd.norm[rd.words[j-1].End:rd.words[j].Start]) {
			return true
		}
		if !negationClosers[strings.ToLower(rd.words[j].S)] {
			return false
		}
	}
	return true
}

// clauseEnds reports whether the runes between two words end a clause.
func clauseEnds(between []rune) bool {
	return slices.ContainsFunc(between, func(r rune) bool {
		return strings.ContainsRune(",;.!?，；。！？、", r)
	})
}

// readClaim reads a claim's text against the index; now resolves its
// relative dates. Subjects are read first, then dates, evidence values
// and numbers, each taking its runes from those after it; the words left
// give the cues and concepts, and the words around each number its cues.
func readClaim(ix *evidence.Index, text string, now time.Time, buf *readBuffers) *reading {
	rd := &buf.rd
	*rd = reading{text: text}
	buf.orig = buf.orig[:0]
	for _, c := range text {
		buf.orig = append(buf.orig, c)
	}
	rd.norm = buf.norm[:0]
	for _, c := range buf.orig {
		rd.norm = append(rd.norm, lang.NormRune(c))
	}
	buf.norm = rd.norm
	if cap(buf.used) < len(rd.norm) {
		buf.used = make([]bool, len(rd.norm))
	}
	rd.used = buf.used[:len(rd.norm)]
	clear(rd.used)
	nt := evidence.NewRuneText(rd.norm)
	rd.nt = nt
	rd.toks = evidence.TokenizeInto(buf.toks[:0], nt, rd.norm)
	buf.toks = rd.toks
	rd.words = evidence.ClaimWordsInto(buf.words[:0], nt, rd.norm, rd.toks)
	buf.words = rd.words
	rd.orig = buf.orig
	rd.buf = buf
	last := strings.TrimRight(text, " \"')]}”’）】」』")
	rd.question = strings.HasSuffix(last, "?") || strings.HasSuffix(last, "？") || strings.HasSuffix(last, "吗") || strings.HasSuffix(last, "吗。")
	rd.endsSentence = strings.HasSuffix(last, ".") || strings.HasSuffix(last, "!") || strings.HasSuffix(last, "。") || strings.HasSuffix(last, "！") || rd.question
	rd.findSubjects(ix)
	rd.findCodes(ix)
	rd.times = buf.ts.Scan(nt.S, now, rd.used)
	rd.findValues(ix)
	rd.monthsOfYear()
	rd.nums = evidence.ScanNumbersIn(nt.S, rd.norm, rd.used)
	for _, m := range rd.nums {
		for i := m.Start; i < m.End && i < len(rd.used); i++ {
			rd.used[i] = true
		}
	}
	rd.readWords(ix)
	rd.attachNumberCues()
	return rd
}

// findCodes finds the identifiers written outside the subjects named
// (identifiers.go). One the evidence has nowhere (no value, key or word of
// a text holds it) is not read as a date or number again, and the
// identifier check decides it.
func (rd *reading) findCodes(ix *evidence.Index) {
	rd.codes = evidence.ScanCodes(rd.orig, rd.used)
	if len(rd.codes) == 0 {
		return
	}
	ids, inText := ix.IdLeaves(), ix.CodesInText()
	for k := range rd.codes {
		m := &rd.codes[k]
		if _, ok := inText[m.Canon]; ok || slices.ContainsFunc(ids, func(id evidence.IdLeaf) bool { return id.Canon == m.Canon }) {
			continue
		}
		// Unknown: read as an identifier when the evidence has one like it,
		// or it is long (C3000); else ("SST-2", a column whose name the
		// index keeps only in part) the other checks read it.
		if !(evidence.DigitCount(m.Canon) >= 3 && len(m.Canon) >= 4) && !slices.ContainsFunc(ids, func(id evidence.IdLeaf) bool {
			return similarCode(m.Canon, id.Canon) || rd.namesKeyWord(id.Words)
		}) {
			continue
		}
		m.Foreign = true
		for i := m.Start; i < m.End && i < len(rd.used); i++ {
			rd.used[i] = true
		}
		if rd.unknown != "" && strings.Contains(string(rd.orig[m.Start:m.End]), rd.unknown) {
			rd.unknown = ""
		}
	}
}

// negatedFlag returns the concepts of w without its negative prefix
// ("unresolved", "non-exclusive") when they name a true/false field of
// the evidence (resolved, exclusive): the word states that flag negated,
// though the lexicon does not know it. Else nil.
func negatedFlag(ix *evidence.Index, w string) []string {
	for _, p := range []string{"non", "un"} {
		rest, ok := strings.CutPrefix(w, p)
		if rest = strings.TrimPrefix(rest, "-"); !ok || len(rest) <= 3 {
			continue
		}
		if cs := evidence.WordConcepts(rest); flagNamed(ix, cs) {
			return cs
		}
	}
	return nil
}

// flagNamed reports whether concepts cs name a true/false field of the
// evidence.
func flagNamed(ix *evidence.Index, cs []string) bool {
	if len(cs) == 0 {
		return false
	}
	for _, l := range ix.Bools {
		if overlap(ix.Leaves[l].Own(), cs) > 0 {
			return true
		}
	}
	return false
}

// fieldNamed reports whether concepts cs name a field of the evidence.
func fieldNamed(ix *evidence.Index, cs []string) bool {
	if len(cs) == 0 {
		return false
	}
	for l := range ix.Leaves {
		if overlap(ix.Leaves[l].Own(), cs) > 0 {
			return true
		}
	}
	return false
}

// namesKeyWord reports whether a token of the claim is one of a key's
// words (keyWords: gate for "gate", confirmation for "confirmation_code").
func (rd *reading) namesKeyWord(words []string) bool {
	for _, w := range words {
		for _, t := range rd.toks {
			if t.S == w {
				return true
			}
		}
	}
	return false
}

// readWords collects the claim's cues, negations, categories and content
// concepts from the words outside subjects, dates and numbers.
func (rd *reading) readWords(ix *evidence.Index) {
	rd.concepts = rd.buf.concepts[:0]
	// The unknown ideographs in a row: runes [runS, runE) of the text
	// while they follow one another, else (words apart) their runes.
	var unknownRun []rune
	runS, runE := -1, -1
	unknown := func(w *evidence.Cword) {
		switch {
		case runS < 0 && len(unknownRun) == 0:
			runS, runE = w.Start, w.End
		case runS >= 0 && w.Start == runE:
			runE = w.End
		default:
			if runS >= 0 {
				unknownRun = append(unknownRun, rd.norm[runS:runE]...)
				runS = -1
			}
			unknownRun = append(unknownRun, rd.norm[w.Start:w.End]...)
		}
	}
	flush := func() {
		if runS >= 0 {
			rd.concepts = evidence.AppendCJK(rd.concepts, rd.nt, runS, runE)
		} else if len(unknownRun) > 0 {
			rd.concepts = append(rd.concepts, evidence.SegmentCJK(unknownRun)...)
		}
		unknownRun, runS = unknownRun[:0], -1
	}
	for i := range rd.words {
		w := &rd.words[i]
		if w.Start < len(rd.used) && rd.used[w.Start] {
			flush()
			continue
		}
		if i > 0 && rd.words[i-1].S == "per" {
			continue // "points per game": a rate's denominator names no field
		}
		info := w.Info
		if cs := stateVerbCats(rd.words, i); cs != nil {
			// 没缴费, 已经缴费: the bare verb states what its prefixed form
			// does; its words are still read below.
			rd.cats = append(rd.cats, catMention{cats: cs, start: w.Start, verb: true})
		}
		if w.Cjk && len(w.S) <= 3 && info != nil && len(info.Concepts) == 0 && info.Cues&(evidence.CueStop|evidence.CueNeg) == 0 && len(info.Cats) == 0 {
			// A one-ideograph cue word (小, 高) is still part of the words
			// around it: 小桌 is a small table.
			unknown(w)
			rd.cues |= info.Cues
			continue
		}
		if info == nil && !w.Cjk {
			if p := evidence.NegPrefixed(w.S); p != "" {
				rd.negation(i)
				rd.concepts = append(rd.concepts, evidence.EnLex[p].Concepts...)
				continue
			}
			if cs := negatedFlag(ix, w.S); cs != nil {
				rd.negation(i)
				rd.concepts = append(rd.concepts, cs...)
				continue
			}
		}
		if w.S == "out" && i+2 < len(rd.words) && rd.words[i+1].S == "of" && flagNamed(ix, evidence.WordConcepts(rd.words[i+2].S)) {
			// "out of service" beside in_service: not in it, as "out of
			// stock" is. A number after it is a scale ("out of 50").
			rd.negs++
			continue
		}
		if info == nil {
			if w.Cjk {
				unknown(w)
				continue
			}
			flush()
			rd.concepts = append(rd.concepts, evidence.WordConcepts(w.S)...)
			continue
		}
		flush()
		rd.cues |= info.Cues
		if info.Cues&evidence.CueNeg != 0 && info.Cues&evidence.CuePlain == 0 {
			rd.negation(i)
			rd.negWords = append(rd.negWords, i)
		}
		if info.Cues&evidence.CueNegLex != 0 {
			rd.negLex++
			if len(info.Cats) > 0 {
				rd.negs++ // a state of its own: compared as its value, not as a negation
				rd.negLexCat++
			} else {
				rd.negation(i)
			}
		}
		if len(info.Cats) > 0 {
			cs := info.Cats
			if evidence.NotYetWord(rd.words, i) {
				cs = evidence.NegatedCats(cs) // 等待审批, 还在确认中: not approved, not confirmed yet
			}
			rd.cats = append(rd.cats, catMention{cats: cs, start: w.Start})
		}
		rd.concepts = append(rd.concepts, info.Concepts...)
		if info.Cues&evidence.CueFree != 0 {
			rd.nums = append(rd.nums, evidence.NumMention{Start: w.Start, End: w.End, Unit: &evidence.Unit{Name: "money", Dim: evidence.DimCurrency, Factor: 1}, Mag: 1, Free: true})
		}
	}
	flush()
	// A compound joined by a hyphen names what its joined form names too
	// ("e-bikes" beside ebikes, "pre-order" beside preorder).
	for i := 1; i < len(rd.words); i++ {
		p, w := &rd.words[i-1], &rd.words[i]
		if !p.Cjk && !w.Cjk && w.Start == p.End+1 && rd.norm[p.End] == '-' && !lang.IsAllDigits(p.S) && !lang.IsAllDigits(w.S) {
			if cs := evidence.WordConcepts(p.S + w.S); fieldNamed(ix, cs) {
				rd.concepts = append(rd.concepts, cs...)
			}
		}
	}
	// Chinese words the longest-match path cut apart (仓库存 holds 仓库
	// and 库存) still name their concepts.
	rd.concepts = append(rd.concepts, rd.cjkConcepts(0, len(rd.norm))...)
	// "no restocking fee", 退货不收取手续费: the negation is of the fee.
	for i := range rd.words {
		w := &rd.words[i]
		if c := w.Cues(); c&evidence.CueNeg == 0 || c&evidence.CuePlain != 0 {
			continue
		}
		noNeed := noNeedWords[strings.ToLower(w.S)]
		if w.Cjk && !noNeed && saysPaying(w.S) {
			continue // 没交定金: the paying is negated, not the fee
		}
		for j := i + 1; j < len(rd.words) && j <= i+3; j++ {
			if noNeedWords[strings.ToLower(rd.words[j].S)] {
				noNeed = true // "no need to pay a deposit": a charge of zero
			}
			if payVerbs[strings.ToLower(rd.words[j].S)] && !noNeed {
				break // "has not paid the deposit": the paying is negated, not the fee
			}
			if feeWords[rd.words[j].S] {
				rd.negs--
				rd.negWords = slices.DeleteFunc(rd.negWords, func(k int) bool { return k == i })
				for k := range rd.cats {
					if rd.cats[k].start < w.Start {
						rd.cats[k].negAfter--
					}
				}
				rd.nums = append(rd.nums, evidence.NumMention{Start: rd.words[j].Start, End: rd.words[j].End, Unit: &evidence.Unit{Name: "money", Dim: evidence.DimCurrency, Factor: 1}, Mag: 1, Free: true})
				break
			}
		}
	}
	// A year the evidence uses as a field name ("in 2023" of a table with a
	// 2023 column) names the field; it is not a value to find.
	nums := rd.nums[:0]
	for _, m := range rd.nums {
		if k := strconv.Itoa(int(m.V)); !m.Free && m.Unit == nil && m.Decimals == 0 && m.V >= 1900 && m.V <= 2100 && !m.IsRange && ix.HasKey(k) {
			rd.concepts = append(rd.concepts, k)
			continue
		}
		nums = append(nums, m)
	}
	rd.nums = nums
	rd.concepts = evidence.DedupeOwn(rd.concepts) // NB: appended to from the buffer, no one else's
	slices.Sort(rd.concepts)
	rd.buf.concepts = rd.concepts[:0]
	rd.concepts = slices.Clip(rd.concepts)
}

// cjkConcepts returns the concepts of every lexicon word of two or more
// ideographs inside [s, e) that no subject, date or number took and that
// the longest-match words cut across (仓库存 holds 库存; 总金额 is one word
// and does not also say 金额).
func (rd *reading) cjkConcepts(s, e int) []string {
	var out []string
	r := rd.norm
	inWord := func(i, n int) bool {
		for _, w := range rd.words {
			if w.Cjk && w.Info != nil && w.Start <= i && i+n <= w.End {
				return true
			}
		}
		return false
	}
	for i := s; i < e; i++ {
		if !lang.IsCJK(r[i]) || rd.used[i] {
			continue
		}
		for n := 2; n <= evidence.ZhMaxLen && i+n <= e; n++ {
			if rd.used[i+n-1] || !lang.IsCJK(r[i+n-1]) {
				break
			}
			if l := evidence.ZhLex[string(r[i:i+n])]; l != nil && !inWord(i, n) {
				out = append(out, l.Concepts...)
			}
		}
	}
	return out
}

// conceptsIn returns the concepts of the words inside [s, e).
func (rd *reading) conceptsIn(s, e int) []string {
	var out []string
	for _, w := range rd.words {
		if w.Start < s || w.End > e || w.Start < len(rd.used) && rd.used[w.Start] {
			continue
		}
		if w.Info != nil {
			out = append(out, w.Info.Concepts...)
		} else if !w.Cjk {
			out = append(out, evidence.WordConcepts(w.S)...)
		}
	}
	out = append(out, rd.cjkConcepts(s, e)...)
	return evidence.Dedupe(out)
}

// hasWord reports whether the claim has one of the words ws.
func (rd *reading) hasWord(ws ...string) bool {
	for _, w := range rd.words {
		if slices.Contains(ws, w.S) {
			return true
		}
	}
	return false
}

// findValues finds the evidence string values the claim names (longest
// first, outside subjects) and takes their runes.
func (rd *reading) findValues(ix *evidence.Index) {
	toks := rd.toks
	for i := 0; i < len(toks); i++ {
		if rd.used[toks[i].Start] {
			continue
		}
		var best []int32
		bestN := 0
		next := ""
		if i+1 < len(toks) {
			next = toks[i+1].S
		}
		groups := 0 // that gave best its leaves
		ix.ValuesFrom(rd.buf.tokHits[i].Values(ix, toks[i].S), next, i+1 < len(toks), func(g *evidence.ValGroup) {
			n := len(g.Toks)
			if i+n > len(toks) || n < bestN {
				return
			}
			for k := 0; k < n; k++ {
				if toks[i+k].S != g.Toks[k] || rd.used[toks[i+k].Start] {
					return
				}
			}
			took := false
			for _, l := range g.Leaves {
				if !mentionable(&ix.Leaves[l]) {
					continue
				}
				if n > bestN {
					best, bestN, groups = nil, n, 0
				}
				best = append(best, l)
				took = true
			}
			if took {
				groups++
			}
		})
		if bestN == 0 {
			continue
		}
		if groups > 1 {
			slices.Sort(best) // in leaf order, as the values are
		}
		for k := i; k < i+bestN; k++ {
			for r := toks[k].Start; r < toks[k].End; r++ {
				rd.used[r] = true
			}
		}
		rd.valueSpans = append(rd.valueSpans, [2]int{toks[i].Start, toks[i+bestN-1].End})
		i += bestN - 1
		rd.values = append(rd.values, best)
	}
}

// mentionable reports string values distinctive enough to count as named
// when they appear in a claim.
func mentionable(lf *evidence.Leaf) bool {
	if lf.SubjKey || len(lf.Cat()) > 0 || lf.HasDay {
		return false
	}
	r := []rune(lf.Str())
	if len(r) < 2 || !lang.IsCJK(r[0]) && len(r) < 3 {
		return false
	}
	if lang.IsAllDigits(lf.Str()) && len(lf.Str()) < 5 || evidence.UnitOfValue(lf.Str()) != nil || evidence.IsClockDuration(lf.Str()) {
		return false // "600519", a code, may be named; "12" and "1:44.6" are numbers
	}
	if l := evidence.EnLex[lf.Str()]; l != nil && l.Cues != 0 {
		return false
	}
	if l := evidence.ZhLex[lf.Str()]; l != nil && l.Cues != 0 {
		return false
	}
	switch lf.Str() {
	case "true", "false", "yes", "no", "none", "null", "n/a", "ok":
		return false
	}
	return true
}

// monthsOfYear takes the runes of a Chinese month of the year (10月,
// 十月份, 2026年10月) that the time scanner left: a month qualifies what
// the claim is about (10月账单应付金额为3256.8元, 陈晨10月的应发工资), it is
// not a number the claim states, as "October" is none in English. A
// duration (10个月) does not end in 月 right after its numeral, a date
// (10月5日) is the time scanner's, and a numeral outside 1-12 or inside a
// longer number is no month.
func (rd *reading) monthsOfYear() {
	r := rd.norm
	if !slices.Contains(r, '月') {
		return // NB: every month read below ends in 月
	}
	numeral := func(c rune) bool { return c >= '0' && c <= '9' || evidence.ZhNumeralRune(c) }
	for i := 0; i < len(r); i++ {
		if rd.used[i] || (i > 0 && numeral(r[i-1])) {
			continue
		}
		var v float64
		j := i
		switch {
		case r[i] >= '0' && r[i] <= '9':
			for j < len(r) && r[j] >= '0' && r[j] <= '9' {
				j++
			}
			v, _ = strconv.ParseFloat(string(r[i:j]), 64)
		case evidence.ZhNumeralRune(r[i]):
			x, e, ok := evidence.LangData.ParseZhNumber(r, i)
			if !ok {
				continue
			}
			v, j = x, e
		default:
			continue
		}
		if j >= len(r) || r[j] != '月' || v < 1 || v > 12 || j-i > 2 || slices.Contains(rd.used[i:j+1], true) {
			continue
		}
		end := j + 1
		if k := end; k < len(r) && numeral(r[k]) {
			for k < len(r) && (numeral(r[k]) || r[k] == ' ') {
				k++
			}
			if k < len(r) && (r[k] == '日' || r[k] == '号') {
				continue // a date the time scanner did not take
			}
		}
		if end < len(r) && r[end] == '份' {
			end++
		}
		start := i
		if i >= 5 && r[i-1] == '年' && lang.IsAllDigits(string(r[i-5:i-1])) && !slices.Contains(rd.used[i-5:i-1], true) {
			start = i - 5 // 2026年10月
		}
		for k := start; k < end; k++ {
			rd.used[k] = true
		}
		i = end - 1
	}
}
