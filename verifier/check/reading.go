package check

import (
	"github.com/toolstream/toolstream/internal/lang"

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
	nt           runeText // norm as a string
	toks         []token
	words        []cword
	question     bool
	endsSentence bool
	cues         cue
	negs         int
	negLex       int    // of negs, the one-word negative states (sold out, 约满)
	negLexCat    int    // of negLex, those that are a category's value (disabled, 已满)
	used         []bool // runes taken by subjects, dates, values and numbers
	named        subjects
	namedNodes   []int32 // the innermost of the objects named
	unknown      string  // an identifier the evidence does not know
	codes        []codeMention
	times        []timeExpr
	values       [][]int32 // evidence values named, one list per mention
	valueSpans   [][2]int  // the runes of each value mention
	nums         []numMention
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
	toks                           []token
	words                          []cword
	keys                           []string      // the tokens' subject keys
	hits                           []*subjectHit // the subjects at each key
	tokHits                        []*tokenHit   // the lookups of each token
	concepts                       []string      // the reading's concepts (clipped: an append copies)
	subjHits                       []subjectHitSpan
	hitNodes, curNodes, namedNodes []int32
	ts                             timeScan
	rd                             reading
	cx                             claim
	afters                         [2]after // the claim before's (check alternates them)
}

// catMention is a closed-category word of a claim (shipped, 晴).
type catMention struct {
	cats  []catValue
	start int
}

// readClaim reads a claim's text against the index; now resolves its
// relative dates. Subjects are read first, then dates, evidence values
// and numbers, each taking its runes from those after it; the words left
// give the cues and concepts, and the words around each number its cues.
func readClaim(ix *index, text string, now time.Time, buf *readBuffers) *reading {
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
	nt := newRuneText(rd.norm)
	rd.nt = nt
	rd.toks = tokenizeInto(buf.toks[:0], nt, rd.norm)
	buf.toks = rd.toks
	rd.words = claimWordsInto(buf.words[:0], nt, rd.norm, rd.toks)
	buf.words = rd.words
	rd.orig = buf.orig
	rd.buf = buf
	last := strings.TrimRight(text, " \"')]}”’）】」』")
	rd.question = strings.HasSuffix(last, "?") || strings.HasSuffix(last, "？") || strings.HasSuffix(last, "吗") || strings.HasSuffix(last, "吗。")
	rd.endsSentence = strings.HasSuffix(last, ".") || strings.HasSuffix(last, "!") || strings.HasSuffix(last, "。") || strings.HasSuffix(last, "！") || rd.question
	rd.findSubjects(ix)
	rd.findCodes(ix)
	rd.times = buf.ts.scan(nt.s, now, rd.used)
	rd.findValues(ix)
	rd.nums = scanNumbersIn(nt.s, rd.norm, rd.used)
	for _, m := range rd.nums {
		for i := m.start; i < m.end && i < len(rd.used); i++ {
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
func (rd *reading) findCodes(ix *index) {
	rd.codes = scanCodes(rd.orig, rd.used)
	if len(rd.codes) == 0 {
		return
	}
	ids, inText := ix.idLeaves(), ix.codesInText()
	for k := range rd.codes {
		m := &rd.codes[k]
		if _, ok := inText[m.canon]; ok || slices.ContainsFunc(ids, func(id idLeaf) bool { return id.canon == m.canon }) {
			continue
		}
		// Unknown: read as an identifier when the evidence has one like it,
		// or it is long (C3000); else ("SST-2", a column whose name the
		// index keeps only in part) the other checks read it.
		if !(digitCount(m.canon) >= 3 && len(m.canon) >= 4) && !slices.ContainsFunc(ids, func(id idLeaf) bool {
			return similarCode(m.canon, id.canon) || rd.namesKeyWord(id.words)
		}) {
			continue
		}
		m.foreign = true
		for i := m.start; i < m.end && i < len(rd.used); i++ {
			rd.used[i] = true
		}
		if rd.unknown != "" && strings.Contains(string(rd.orig[m.start:m.end]), rd.unknown) {
			rd.unknown = ""
		}
	}
}

// namesKeyWord reports whether a token of the claim is one of a key's
// words (keyWords: gate for "gate", confirmation for "confirmation_code").
func (rd *reading) namesKeyWord(words []string) bool {
	for _, w := range words {
		for _, t := range rd.toks {
			if t.s == w {
				return true
			}
		}
	}
	return false
}

// readWords collects the claim's cues, negations, categories and content
// concepts from the words outside subjects, dates and numbers.
func (rd *reading) readWords(ix *index) {
	rd.concepts = rd.buf.concepts[:0]
	// The unknown ideographs in a row: runes [runS, runE) of the text
	// while they follow one another, else (words apart) their runes.
	var unknownRun []rune
	runS, runE := -1, -1
	unknown := func(w *cword) {
		switch {
		case runS < 0 && len(unknownRun) == 0:
			runS, runE = w.start, w.end
		case runS >= 0 && w.start == runE:
			runE = w.end
		default:
			if runS >= 0 {
				unknownRun = append(unknownRun, rd.norm[runS:runE]...)
				runS = -1
			}
			unknownRun = append(unknownRun, rd.norm[w.start:w.end]...)
		}
	}
	flush := func() {
		if runS >= 0 {
			rd.concepts = appendCJK(rd.concepts, rd.nt, runS, runE)
		} else if len(unknownRun) > 0 {
			rd.concepts = append(rd.concepts, segmentCJK(unknownRun)...)
		}
		unknownRun, runS = unknownRun[:0], -1
	}
	for i := range rd.words {
		w := &rd.words[i]
		if w.start < len(rd.used) && rd.used[w.start] {
			flush()
			continue
		}
		if i > 0 && rd.words[i-1].s == "per" {
			continue // "points per game": a rate's denominator names no field
		}
		info := w.info
		if w.cjk && len(w.s) <= 3 && info != nil && len(info.concepts) == 0 && info.cues&(cueStop|cueNeg) == 0 && len(info.cats) == 0 {
			// A one-ideograph cue word (小, 高) is still part of the words
			// around it: 小桌 is a small table.
			unknown(w)
			rd.cues |= info.cues
			continue
		}
		if info == nil && !w.cjk {
			if p := negPrefixed(w.s); p != "" {
				rd.negs++
				rd.concepts = append(rd.concepts, enLex[p].concepts...)
				continue
			}
		}
		if info == nil {
			if w.cjk {
				unknown(w)
				continue
			}
			flush()
			rd.concepts = append(rd.concepts, wordConcepts(w.s)...)
			continue
		}
		flush()
		rd.cues |= info.cues
		if info.cues&cueNeg != 0 && info.cues&cuePlain == 0 {
			rd.negs++
		}
		if info.cues&cueNegLex != 0 {
			rd.negs++
			rd.negLex++
			if len(info.cats) > 0 {
				rd.negLexCat++
			}
		}
		if len(info.cats) > 0 {
			rd.cats = append(rd.cats, catMention{cats: info.cats, start: w.start})
		}
		rd.concepts = append(rd.concepts, info.concepts...)
		if info.cues&cueFree != 0 {
			rd.nums = append(rd.nums, numMention{start: w.start, end: w.end, unit: &unit{name: "money", dim: dimCurrency, factor: 1}, mag: 1, free: true})
		}
	}
	flush()
	// Chinese words the longest-match path cut apart (仓库存 holds 仓库
	// and 库存) still name their concepts.
	rd.concepts = append(rd.concepts, rd.cjkConcepts(0, len(rd.norm))...)
	// "no restocking fee", 退货不收取手续费: the negation is of the fee.
	for i := range rd.words {
		w := &rd.words[i]
		if c := w.cues(); c&cueNeg == 0 || c&cuePlain != 0 {
			continue
		}
		for j := i + 1; j < len(rd.words) && j <= i+3; j++ {
			if feeWords[rd.words[j].s] {
				rd.negs--
				rd.nums = append(rd.nums, numMention{start: rd.words[j].start, end: rd.words[j].end, unit: &unit{name: "money", dim: dimCurrency, factor: 1}, mag: 1, free: true})
				break
			}
		}
	}
	// A year the evidence uses as a field name ("in 2023" of a table with a
	// 2023 column) names the field; it is not a value to find.
	nums := rd.nums[:0]
	for _, m := range rd.nums {
		if k := strconv.Itoa(int(m.v)); !m.free && m.unit == nil && m.decimals == 0 && m.v >= 1900 && m.v <= 2100 && !m.isRange && ix.hasKey(k) {
			rd.concepts = append(rd.concepts, k)
			continue
		}
		nums = append(nums, m)
	}
	rd.nums = nums
	rd.concepts = dedupeOwn(rd.concepts) // NB: appended to from the buffer, no one else's
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
			if w.cjk && w.info != nil && w.start <= i && i+n <= w.end {
				return true
			}
		}
		return false
	}
	for i := s; i < e; i++ {
		if !lang.IsCJK(r[i]) || rd.used[i] {
			continue
		}
		for n := 2; n <= zhMaxLen && i+n <= e; n++ {
			if rd.used[i+n-1] || !lang.IsCJK(r[i+n-1]) {
				break
			}
			if l := zhLex[string(r[i:i+n])]; l != nil && !inWord(i, n) {
				out = append(out, l.concepts...)
			}
		}
	}
	return out
}

// conceptsIn returns the concepts of the words inside [s, e).
func (rd *reading) conceptsIn(s, e int) []string {
	var out []string
	for _, w := range rd.words {
		if w.start < s || w.end > e || w.start < len(rd.used) && rd.used[w.start] {
			continue
		}
		if w.info != nil {
			out = append(out, w.info.concepts...)
		} else if !w.cjk {
			out = append(out, wordConcepts(w.s)...)
		}
	}
	out = append(out, rd.cjkConcepts(s, e)...)
	return dedupe(out)
}

// hasWord reports whether the claim has one of the words ws.
func (rd *reading) hasWord(ws ...string) bool {
	for _, w := range rd.words {
		if slices.Contains(ws, w.s) {
			return true
		}
	}
	return false
}

// findValues finds the evidence string values the claim names (longest
// first, outside subjects) and takes their runes.
func (rd *reading) findValues(ix *index) {
	toks := rd.toks
	for i := 0; i < len(toks); i++ {
		if rd.used[toks[i].start] {
			continue
		}
		var best []int32
		bestN := 0
		next := ""
		if i+1 < len(toks) {
			next = toks[i+1].s
		}
		groups := 0 // that gave best its leaves
		ix.valuesFrom(rd.buf.tokHits[i].values(ix, toks[i].s), next, i+1 < len(toks), func(g *valGroup) {
			n := len(g.toks)
			if i+n > len(toks) || n < bestN {
				return
			}
			for k := 0; k < n; k++ {
				if toks[i+k].s != g.toks[k] || rd.used[toks[i+k].start] {
					return
				}
			}
			took := false
			for _, l := range g.leaves {
				if !mentionable(&ix.leaves[l]) {
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
			for r := toks[k].start; r < toks[k].end; r++ {
				rd.used[r] = true
			}
		}
		rd.valueSpans = append(rd.valueSpans, [2]int{toks[i].start, toks[i+bestN-1].end})
		i += bestN - 1
		rd.values = append(rd.values, best)
	}
}

// mentionable reports string values distinctive enough to count as named
// when they appear in a claim.
func mentionable(lf *leaf) bool {
	if lf.subjKey || len(lf.cat()) > 0 || lf.hasDay {
		return false
	}
	r := []rune(lf.str())
	if len(r) < 2 || !lang.IsCJK(r[0]) && len(r) < 3 {
		return false
	}
	if lang.IsAllDigits(lf.str()) && len(lf.str()) < 5 || unitOfValue(lf.str()) != nil {
		return false // "600519", a code, may be named; "12" is a number
	}
	if l := enLex[lf.str()]; l != nil && l.cues != 0 {
		return false
	}
	if l := zhLex[lf.str()]; l != nil && l.cues != 0 {
		return false
	}
	switch lf.str() {
	case "true", "false", "yes", "no", "none", "null", "n/a", "ok":
		return false
	}
	return true
}
