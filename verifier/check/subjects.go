package check

import (
	"github.com/toolstream/toolstream/internal/lang"

	"slices"
	"strings"
)

// findSubjects finds the evidence subjects (names, ids, titles) the claim
// mentions, longest first, and makes them the claim's scope.
func (rd *reading) findSubjects(ix *index) {
	toks := rd.toks
	keys, at := rd.buf.keys[:0], rd.buf.hits[:0]
	tokHits := rd.buf.tokHits[:0]
	for _, t := range toks {
		th := ix.tokenAt(t.s)
		keys = append(keys, th.key)
		at = append(at, th.subj)
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
			if rd.used[toks[i].start] {
				continue
			}
			var best subjectHitSpan
			cur = cur[:0]
			next := ""
			if i+1 < len(toks) {
				next = keys[i+1]
			}
			at[i].from(next, i+1 < len(toks), pass == 1, func(se *subjEntry) {
				n := len(se.toks)
				if i+n > len(toks) || n < best.e-best.s {
					return
				}
				for k := 0; k < n; k++ {
					if toks[i+k].s != se.toks[k] && keys[i+k] != se.keys[k] || rd.used[toks[i+k].start] ||
						k > 0 && !toks[i+k].cjk && toks[i+k].start > toks[i+k-1].end+3 {
						return
					}
				}
				if !subjectCase(toks, i, n, orig, *se) {
					return
				}
				if n > best.e-best.s {
					best = subjectHitSpan{s: i, e: i + n, partial: se.partial, name: se.exact}
					cur = cur[:0]
				}
				if !slices.Contains(cur, se.node) {
					cur = append(cur, se.node)
				}
			})
			if best.e > best.s {
				for k := toks[best.s].start; k < toks[best.e-1].end; k++ {
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
		sub.groups = make([][]int32, 0, len(hits))
		sub.names = make([]string, 0, len(hits))
		sub.spans = make([][2]int, 0, len(hits))
		all = slices.Clone(hitNodes)
	}
	named := rd.buf.namedNodes[:0]
	defer func() { rd.buf.namedNodes = named[:0] }()
	for k, h := range hits {
		s, e := toks[h.s].start, toks[h.e-1].end
		nodes := all[h.lo:h.hi:h.hi]
		sortUnique(&nodes)
		// "1月到3月", "from A to C": the members between two named ones.
		if k > 0 && len(sub.groups) > 0 && isRangeJoin(rd.norm[sub.spans[len(sub.spans)-1][1]:s]) {
			prev := sub.groups[len(sub.groups)-1]
			for _, between := range ix.membersBetween(prev, nodes) {
				sub.groups = append(sub.groups, []int32{between})
				sub.names = append(sub.names, "")
				named = append(named, between)
				sub.spans = append(sub.spans, [2]int{s, s})
			}
		}
		sub.groups = append(sub.groups, nodes)
		sub.names = append(sub.names, h.name)
		sub.spans = append(sub.spans, [2]int{s, e})
		named = append(named, nodes...)
	}
	if len(hits) > 0 {
		rd.namedNodes = ix.mostSpecific(named) // NB: a list of its own
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
func subjectCase(toks []token, i, n int, orig []rune, se subjEntry) bool {
	if n != 1 || len([]rune(toks[i].s)) > 2 || toks[i].cjk {
		return true
	}
	t := toks[i]
	w := string(orig[t.start:t.end])
	if strings.ToLower(w) == w && strings.ToUpper(se.exact) != se.exact {
		return true
	}
	if strings.ToUpper(w) != w {
		return false
	}
	if w == "A" || w == "I" {
		// "A customer …": the article. "A has 12", "Item A" name the item.
		if i == 0 && i+1 < len(toks) {
			next := toks[i+1].s
			return clauseVerbs[next] || next == "costs" || next == "is" || next == "and" || next == "or"
		}
	}
	return true
}

// classNouns precede an identifier: item C, 商品 C, order 555.
var classNouns = langData.Set("class nouns")

// unknownIdentifier returns an identifier the claim names that no evidence
// value knows ("Item C" when only A and B were returned), or "".
func (rd *reading) unknownIdentifier(ix *index, toks []token, orig []rune) string {
	for i, t := range toks {
		if rd.used[t.start] {
			continue
		}
		// The token as written is one capital letter (as a string, "A").
		capital := t.end-t.start == 1 && orig[t.start] >= 'A' && orig[t.start] <= 'Z'
		isID := false
		switch {
		case capital && i > 0 && classNouns[toks[i-1].s]:
			isID = orig[t.start] != 'A' || toks[i-1].s != "品" && toks[i-1].s != "item"
			if orig[t.start] == 'A' {
				isID = true
			}
		case len(t.s) >= 4 && digitCount(t.s) >= 3 && strings.ContainsAny(t.s, "abcdefghijklmnopqrstuvwxyz") && !strings.Contains(t.s, ".") && !isNumberWithUnit(t.s):
			isID = true // C300, X2000: a code, not PM2.5
		case len(t.s) >= 4 && lang.IsAllDigits(t.s) && i > 0 && (classNouns[toks[i-1].s] || t.start > 0 && rd.norm[t.start-1] == '#'):
			isID = true
		}
		if !isID {
			continue
		}
		if _, ok := ix.valuesAt(t.s); ok {
			continue
		}
		if _, ok := ix.subjectsAt(t.s); ok {
			continue
		}
		if len(ix.valueWords(t.s)) > 0 {
			continue
		}
		return string(orig[t.start:t.end])
	}
	return ""
}
