package check

import (
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
	"slices"
	"strings"
)

// findSubjects finds the evidence subjects (names, ids, titles) the claim
// mentions, longest first, and makes them the claim's scope.
func (rd *reading) findSubjects(ix *evidence.Index) {
	toks := rd.toks
	keys, at := rd.buf.keys[:0], rd.buf.hits[:0]
	tokHits := rd.buf.tokHits[:0]
	for _, t := range toks {
		th := ix.TokenAt(t.S)
		keys = append(keys, th.Key)
		at = append(at, th.Subj)
		tokHits = append(tokHits, th)
	}
	rd.buf.tokHits = tokHits
	rd.buf.keys, rd.buf.hits = keys, at
	orig := rd.orig
	// The names found (hits, their nodes are hitNodes[lo:hi]) and the
	// nodes of the best name at a token so far (cur), made in the buffers.
	hits, hitNodes, cur := rd.buf.subjHits[:0], rd.buf.hitNodes[:0], rd.buf.curNodes[:0]
	defer func() { rd.buf.subjHits, rd.buf.hitNodes, rd.buf.curNodes = hits[:0], hitNodes[:0], cur[:0] }()
	for pass := 0; pass < 2; pass++ {
		// Pass 0: whole names and codes; pass 1: distinctive parts of names
		// where no whole name matched.
		for i := 0; i < len(toks); i++ {
			if rd.used[toks[i].Start] {
				continue
			}
			var best subjectHitSpan
			cur = cur[:0]
			next := ""
			if i+1 < len(toks) {
				next = keys[i+1]
			}
			at[i].From(next, i+1 < len(toks), pass == 1, func(se *evidence.SubjEntry) {
				n := len(se.Toks)
				if i+n > len(toks) || n < best.e-best.s {
					return
				}
				if n == 1 && se.Exact != se.Toks[0] && yearLike(se.Toks[0]) {
					// A year alone names no subject whose name is more than
					// it: the year of "October 15, 2025" is not the code
					// 2025-19-07 (its first part), and stays a date's. Other
					// numbers do ("尾号 7721" of an account number).
					return
				}
				for k := 0; k < n; k++ {
					if toks[i+k].S != se.Toks[k] && keys[i+k] != se.Keys[k] || rd.used[toks[i+k].Start] ||
						k > 0 && !toks[i+k].Cjk && toks[i+k].Start > toks[i+k-1].End+3 {
						return
					}
				}
				if !subjectCase(toks, i, n, orig, *se) {
					return
				}
				if n > best.e-best.s {
					best = subjectHitSpan{s: i, e: i + n, partial: se.Partial, name: se.Exact}
					cur = cur[:0]
				}
				if !slices.Contains(cur, se.Node) {
					cur = append(cur, se.Node)
				}
			})
			if best.e > best.s {
				for k := toks[best.s].Start; k < toks[best.e-1].End; k++ {
					rd.used[k] = true
				}
				best.lo = len(hitNodes)
				hitNodes = append(hitNodes, cur...)
				best.hi = len(hitNodes)
				hits = append(hits, best)
				i = best.e - 1
			}
		}
	}
	slices.SortFunc(hits, func(a, b subjectHitSpan) int { return a.s - b.s })
	sub := &rd.named
	var all []int32 // the groups' nodes, in one array
	if len(hits) > 0 {
		sub.Groups = make([][]int32, 0, len(hits))
		sub.Names = make([]string, 0, len(hits))
		sub.Spans = make([][2]int, 0, len(hits))
		all = slices.Clone(hitNodes)
	}
	named := rd.buf.namedNodes[:0]
	defer func() { rd.buf.namedNodes = named[:0] }()
	for k, h := range hits {
		s, e := toks[h.s].Start, toks[h.e-1].End
		nodes := all[h.lo:h.hi:h.hi]
		evidence.SortUnique(&nodes)
		// "1月到3月", "from A to C": the members between two named ones.
		if k > 0 && len(sub.Groups) > 0 && isRangeJoin(rd.norm[sub.Spans[len(sub.Spans)-1][1]:s]) {
			prev := sub.Groups[len(sub.Groups)-1]
			for _, between := range ix.MembersBetween(prev, nodes) {
				sub.Groups = append(sub.Groups, []int32{between})
				sub.Names = append(sub.Names, "")
				named = append(named, between)
				sub.Spans = append(sub.Spans, [2]int{s, s})
			}
		}
		sub.Groups = append(sub.Groups, nodes)
		sub.Names = append(sub.Names, h.name)
		sub.Spans = append(sub.Spans, [2]int{s, e})
		named = append(named, nodes...)
	}
	if len(hits) > 0 {
		rd.namedNodes = ix.MostSpecific(named) // NB: a list of its own
	}
	rd.unknown = rd.unknownIdentifier(ix, toks, orig)
}

// subjectHitSpan is a name found in a claim: tokens [s, e), its nodes
// (findSubjects' hitNodes[lo:hi]).
type subjectHitSpan struct {
	s, e, lo, hi int
	partial      bool
	name         string
}

// isRangeJoin reports the text between two subjects of a range.
func isRangeJoin(r []rune) bool {
	switch strings.TrimSpace(string(r)) {
	case "到", "至", "-", "~", "to", "through", "thru", "—", "–":
		return true
	}
	return false
}

// subjectCase guards one-letter and common-word subjects: "A" must be
// written in capitals, and not be the article starting a sentence.
func subjectCase(toks []evidence.Token, i, n int, orig []rune, se evidence.SubjEntry) bool {
	if n != 1 || len([]rune(toks[i].S)) > 2 || toks[i].Cjk {
		return true
	}
	t := toks[i]
	w := string(orig[t.Start:t.End])
	if strings.ToLower(w) == w && strings.ToUpper(se.Exact) != se.Exact {
		return true
	}
	if strings.ToUpper(w) != w {
		return false
	}
	if w == "A" || w == "I" {
		// "A customer …": the article. "A has 12", "Item A" name the item.
		if i == 0 && i+1 < len(toks) {
			next := toks[i+1].S
			return clauseVerbs[next] || next == "costs" || next == "is" || next == "and" || next == "or"
		}
	}
	return true
}

// classNouns precede an identifier: item C, 商品 C, order 555.
var classNouns = evidence.LangData.Set("class nouns")

// unknownIdentifier returns an identifier the claim names that no evidence
// value knows ("Item C" when only A and B were returned), or "".
func (rd *reading) unknownIdentifier(ix *evidence.Index, toks []evidence.Token, orig []rune) string {
	for i, t := range toks {
		if rd.used[t.Start] {
			continue
		}
		// The token as written is one capital letter (as a string, "A").
		capital := t.End-t.Start == 1 && orig[t.Start] >= 'A' && orig[t.Start] <= 'Z'
		isID := false
		switch {
		case capital && i > 0 && classNouns[toks[i-1].S]:
			isID = orig[t.Start] != 'A' || toks[i-1].S != "品" && toks[i-1].S != "item"
			if orig[t.Start] == 'A' {
				isID = true
			}
		case len(t.S) >= 4 && evidence.DigitCount(t.S) >= 3 && strings.ContainsAny(t.S, "abcdefghijklmnopqrstuvwxyz") && !strings.Contains(t.S, ".") && !evidence.IsNumberWithUnit(t.S):
			isID = true // C300, X2000: a code, not PM2.5
		case len(t.S) >= 4 && lang.IsAllDigits(t.S) && i > 0 && (classNouns[toks[i-1].S] || t.Start > 0 && rd.norm[t.Start-1] == '#'):
			isID = true
		}
		if !isID {
			continue
		}
		if _, ok := ix.ValuesAt(t.S); ok {
			continue
		}
		if _, ok := ix.SubjectsAt(t.S); ok {
			continue
		}
		if len(ix.ValueWords(t.S)) > 0 {
			continue
		}
		return string(orig[t.Start:t.End])
	}
	return ""
}

// yearLike reports whether s is four digits from 1900 to 2099.
func yearLike(s string) bool {
	return len(s) == 4 && lang.IsAllDigits(s) && s >= "1900" && s <= "2099"
}
