package verifier

import (
	"slices"
	"strconv"
)

// ---- reading a claim against the evidence index -----------------------------

// readWords collects the claim's cues, negations, categories and content
// concepts from the words outside subjects, dates and numbers.
func (cx *claimCtx) readWords() {
	var unknownRun []rune
	flush := func() {
		for _, c := range segmentCJK(unknownRun) {
			cx.concepts = append(cx.concepts, c)
		}
		unknownRun = unknownRun[:0]
	}
	for i := range cx.words {
		w := &cx.words[i]
		if w.start < len(cx.used) && cx.used[w.start] {
			flush()
			continue
		}
		if i > 0 && cx.words[i-1].s == "per" {
			continue // "points per game": a rate's denominator names no field
		}
		info := w.info
		if w.cjk && len(w.s) <= 3 && info != nil && len(info.concepts) == 0 && info.cues&(cueStop|cueNeg) == 0 && len(info.cats) == 0 {
			// A one-ideograph cue word (小, 高) is still part of the words
			// around it: 小桌 is a small table.
			unknownRun = append(unknownRun, []rune(w.s)...)
			cx.cues |= info.cues
			continue
		}
		if info == nil && !w.cjk {
			if p := negPrefixed(w.s); p != "" {
				cx.negs++
				cx.concepts = append(cx.concepts, enLex[p].concepts...)
				continue
			}
		}
		if info == nil {
			if w.cjk {
				unknownRun = append(unknownRun, []rune(w.s)...)
				continue
			}
			flush()
			cx.concepts = append(cx.concepts, wordConcepts(w.s)...)
			continue
		}
		flush()
		cx.cues |= info.cues
		if info.cues&cueNeg != 0 && info.cues&cuePlain == 0 {
			cx.negs++
		}
		if info.cues&cueNegLex != 0 {
			cx.negs++
			cx.negLex++
		}
		if len(info.cats) > 0 {
			cx.cats = append(cx.cats, catMention{cats: info.cats, start: w.start})
		}
		cx.concepts = append(cx.concepts, info.concepts...)
		if info.cues&cueFree != 0 {
			cx.nums = append(cx.nums, numMention{start: w.start, end: w.end, unit: &unit{name: "money", dim: dimCurrency, factor: 1}, mag: 1, free: true})
		}
	}
	flush()
	// Chinese words the longest-match path cut apart (仓库存 holds 仓库
	// and 库存) still name their concepts.
	cx.concepts = append(cx.concepts, cx.cjkConcepts(0, len(cx.norm))...)
	// "no restocking fee", 退货不收取手续费: the negation is of the fee.
	for i := range cx.words {
		w := &cx.words[i]
		if c := w.cues(); c&cueNeg == 0 || c&cuePlain != 0 {
			continue
		}
		for j := i + 1; j < len(cx.words) && j <= i+3; j++ {
			if feeWords[cx.words[j].s] {
				cx.negs--
				cx.nums = append(cx.nums, numMention{start: cx.words[j].start, end: cx.words[j].end, unit: &unit{name: "money", dim: dimCurrency, factor: 1}, mag: 1, free: true})
				break
			}
		}
	}
	// A year the evidence uses as a field name ("in 2023" of a table with a
	// 2023 column) names the field; it is not a value to find.
	nums := cx.nums[:0]
	for _, m := range cx.nums {
		if k := strconv.Itoa(int(m.v)); !m.free && m.unit == nil && m.decimals == 0 && m.v >= 1900 && m.v <= 2100 && !m.isRange && cx.ix.keys[k] != nil {
			cx.concepts = append(cx.concepts, k)
			continue
		}
		nums = append(nums, m)
	}
	cx.nums = nums
	cx.concepts = dedupe(cx.concepts)
	slices.Sort(cx.concepts)
}

// cjkConcepts returns the concepts of every lexicon word of two or more
// ideographs inside [s, e) that no subject, date or number took and that
// the longest-match words cut across (仓库存 holds 库存; 总金额 is one word
// and does not also say 金额).
func (cx *claimCtx) cjkConcepts(s, e int) []string {
	var out []string
	r := cx.norm
	inWord := func(i, n int) bool {
		for _, w := range cx.words {
			if w.cjk && w.info != nil && w.start <= i && i+n <= w.end {
				return true
			}
		}
		return false
	}
	for i := s; i < e; i++ {
		if !isCJK(r[i]) || cx.used[i] {
			continue
		}
		for n := 2; n <= zhMaxLen && i+n <= e; n++ {
			if cx.used[i+n-1] || !isCJK(r[i+n-1]) {
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
func (cx *claimCtx) conceptsIn(s, e int) []string {
	var out []string
	for _, w := range cx.words {
		if w.start < s || w.end > e || w.start < len(cx.used) && cx.used[w.start] {
			continue
		}
		if w.info != nil {
			out = append(out, w.info.concepts...)
		} else if !w.cjk {
			out = append(out, wordConcepts(w.s)...)
		}
	}
	out = append(out, cx.cjkConcepts(s, e)...)
	return dedupe(out)
}

// hasWord reports whether the claim has one of the words ws.
func (cx *claimCtx) hasWord(ws ...string) bool {
	for _, w := range cx.words {
		if slices.Contains(ws, w.s) {
			return true
		}
	}
	return false
}

// findValues finds the evidence string values the claim names (longest
// first, outside subjects) and takes their runes.
func (cx *claimCtx) findValues() {
	ix := cx.ix
	toks := cx.toks
	for i := 0; i < len(toks); i++ {
		if cx.used[toks[i].start] {
			continue
		}
		var best []int32
		bestN := 0
		for _, ve := range ix.values[toks[i].s] {
			n := len(ve.toks)
			if i+n > len(toks) || n < bestN {
				continue
			}
			ok := true
			for k := 0; k < n; k++ {
				if toks[i+k].s != ve.toks[k] || cx.used[toks[i+k].start] {
					ok = false
					break
				}
			}
			if !ok || !cx.mentionable(&ix.leaves[ve.leaf]) {
				continue
			}
			if n > bestN {
				best, bestN = nil, n
			}
			best = append(best, ve.leaf)
		}
		if bestN == 0 {
			continue
		}
		for k := i; k < i+bestN; k++ {
			for r := toks[k].start; r < toks[k].end; r++ {
				cx.used[r] = true
			}
		}
		i += bestN - 1
		cx.values = append(cx.values, best)
	}
}

// mentionable reports string values distinctive enough to count as named
// when they appear in a claim.
func (cx *claimCtx) mentionable(lf *leaf) bool {
	if lf.subjKey || len(lf.cat) > 0 || lf.hasDay {
		return false
	}
	r := []rune(lf.str)
	if len(r) < 2 || !isCJK(r[0]) && len(r) < 3 {
		return false
	}
	if isAllDigits(lf.str) && len(lf.str) < 5 || unitOfValue(lf.str) != nil {
		return false // "600519", a code, may be named; "12" is a number
	}
	if l := enLex[lf.str]; l != nil && l.cues != 0 {
		return false
	}
	if l := zhLex[lf.str]; l != nil && l.cues != 0 {
		return false
	}
	switch lf.str {
	case "true", "false", "yes", "no", "none", "null", "n/a", "ok":
		return false
	}
	return true
}
