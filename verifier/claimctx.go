package verifier

import (
	"slices"
	"strings"
	"time"

	"github.com/toolstream/toolstream/events"
)

// ---- checking one claim ---------------------------------------------------

// fact is the verdict on one checkable part of a claim: a number, a date, a
// polarity, a status, a named value, a comparison or a quantifier.
type fact struct {
	verdict events.Verdict // "" when the part says nothing checkable
	refs    []events.EvidenceRef
	reason  string
	weak    bool // decided without confidence: a judge may decide instead
	soft    bool // dropped when the claim has other facts
	leaves  []int32
	negUsed bool // the fact consumed the claim's negation
}

// catMention is a closed-category word of a claim (shipped, 晴).
type catMention struct {
	cats  []catValue
	start int
}

// claimCtx is what one claim says, read against the index.
type claimCtx struct {
	c            *Checker
	ix           *index
	cl           Claim
	now          time.Time
	norm         []rune
	toks         []token
	words        []cword
	cues         cue
	negs         int
	negLex       int    // of negs, the one-word negative states (sold out, 约满)
	used         []bool // runes taken by subjects, dates and numbers
	groups       [][]int32
	names        []string // the subject value each group was named by
	spans        [][2]int // subject mentions, rune offsets
	scope        []int32  // nodes the claim is about; all evidence when !scoped
	scoped       bool
	before       []int32 // scope before narrowing by date
	nums         []numMention
	times        []timeExpr
	cats         []catMention
	values       [][]int32 // evidence values named, one list per mention
	concepts     []string
	unknown      string // an identifier the evidence does not know
	question     bool
	endsSentence bool
	soft         bool    // scope inherited through a pronoun from the sentence before
	ownSubjects  bool    // the claim names its subjects itself
	matched      []int32 // fields that supported this claim
	context      []int32 // fields that supported the claims before it in its sentence
}

func (c *Checker) newClaimCtx(ix *index, cl Claim, now time.Time, prev *claimCtx) *claimCtx {
	cx := &claimCtx{c: c, ix: ix, cl: cl, now: now}
	cx.norm = normalize(cl.Text)
	cx.used = make([]bool, len(cx.norm))
	cx.toks = tokenize(cx.norm)
	cx.words = claimWordsOf(cx.norm, cx.toks)
	last := strings.TrimRight(cl.Text, " \"')]}”’）】」』")
	cx.question = strings.HasSuffix(last, "?") || strings.HasSuffix(last, "？") || strings.HasSuffix(last, "吗") || strings.HasSuffix(last, "吗。")
	cx.endsSentence = strings.HasSuffix(last, ".") || strings.HasSuffix(last, "!") || strings.HasSuffix(last, "。") || strings.HasSuffix(last, "！") || cx.question
	cx.findSubjects()
	cx.times = scanTimes(cx.norm, now, cx.used)
	cx.findValues()
	cx.nums = scanNumbers(cx.norm, cx.used)
	for _, m := range cx.nums {
		for i := m.start; i < m.end && i < len(cx.used); i++ {
			cx.used[i] = true
		}
	}
	cx.readWords()
	cx.attachNumberCues()
	// A clause without a subject of its own continues the one before it in
	// the sentence ("Item A costs $5 and has 12 in stock"), and a pronoun
	// continues the previous claim.
	if prev != nil && !prev.endsSentence {
		// "研发投入 14.3 亿元，占营收的约 11%": the sentence so far.
		cx.context = append(slices.Clip(prev.context), prev.matched...)
	}
	ranges := cx.cues&(cueUniversal|cueExistential) != 0 // "some stores": its own set
	if prev != nil && prev.scoped && (!prev.endsSentence || cx.cues&cuePronoun != 0 && !ranges) {
		switch {
		case len(cx.groups) == 0:
			cx.scoped = true
			cx.soft = prev.endsSentence // a pronoun across sentences may mean something else
			cx.groups, cx.names = prev.groups, prev.names
			// Named in the claim before, not in this one.
			cx.spans = make([][2]int, len(prev.groups))
			for i := range cx.spans {
				cx.spans[i] = [2]int{-1, -1}
			}
			if len(cx.times) > 0 {
				cx.scope = prev.before
			} else {
				cx.scope = prev.scope
			}
		case len(cx.groups) == 1 && len(prev.groups) > 0 && cx.cues&(cueThan|cueDerive|cueMore|cueLess) != 0:
			// "It improves BLEU by 4.1 over the baseline", "，比蒙牛贵 5.1
			// 元": the other side of the comparison was named before.
			var groups [][]int32
			var spans [][2]int
			var scope []int32
			var names []string
			for i, g := range prev.groups {
				if !slices.Equal(g, cx.groups[0]) {
					groups = append(groups, g)
					names = append(names, prev.names[i])
					spans = append(spans, [2]int{-1, -1})
					scope = append(scope, g...)
				}
			}
			cx.groups = append(groups, cx.groups...)
			cx.names = append(names, cx.names...)
			cx.spans = append(spans, cx.spans...)
			cx.scope = ix.mostSpecific(append(scope, cx.scope...))
		}
	}
	cx.before = cx.scope
	cx.narrowByDate()
	return cx
}

// inScope reports whether leaf l is about the claim's subjects: inside one
// of them, or a field of an object enclosing one (the order a line item
// belongs to, the msrp next to a list of offers).
func (cx *claimCtx) inScope(l int32) bool {
	if !cx.scoped {
		return true
	}
	ix := cx.ix
	for _, n := range cx.scope {
		if ix.inNode(l, n) {
			return true
		}
	}
	if ln := ix.leaves[l].node; ln >= 0 {
		for _, n := range cx.scope {
			if ix.ancestorOf(ln, n) {
				return true
			}
		}
	}
	return false
}

func (cx *claimCtx) nodeInScope(n int32) bool {
	if !cx.scoped {
		return true
	}
	for _, s := range cx.scope {
		if cx.ix.ancestorOf(s, n) {
			return true
		}
	}
	return false
}

func (cx *claimCtx) hasConcept(c string) bool { return slices.Contains(cx.concepts, c) }

// overlap counts the elements of b that are in a.
func overlap(a, b []string) int {
	n := 0
	for _, x := range b {
		if slices.Contains(a, x) {
			n++
		}
	}
	return n
}

// attrScore scores how well a leaf's keys name what the claim talks about:
// its own key counts most, enclosing keys less, and enclosing keys the
// claim does not mention count against it.
func (cx *claimCtx) attrScore(lf *leaf) int { return attrScore(cx.concepts, lf) }

func attrScore(concepts []string, lf *leaf) int { return attrScoreDF(concepts, lf, nil) }

// attrScoreDF is attrScore with rare concepts weighing more: of "总金额"
// (total, price), the one field named total beats the many prices.
func attrScoreDF(concepts []string, lf *leaf, ix *index) int {
	own := overlap(concepts, lf.own)
	ctx := overlap(concepts, lf.ctx)
	s := 4*own + 2*ctx
	if ix != nil {
		for _, c := range lf.own {
			if !slices.Contains(concepts, c) {
				continue
			}
			switch df := len(ix.byConcept[c]); {
			case df == 1:
				s += 2
			case df <= 3:
				s++
			}
		}
	}
	if own > 0 {
		if len(lf.ctx) > ctx {
			s--
		}
		extra := 0
		for _, c := range lf.own {
			if !slices.Contains(concepts, c) && !unitConcepts[c] {
				extra++
			}
		}
		s -= min(extra, 2)
	}
	return s
}

// targets returns the leaves in scope whose own key names one of concepts
// and that pass keep, best score first (only the best tier).
func (cx *claimCtx) targets(concepts []string, keep func(*leaf) bool) []int32 {
	ix := cx.ix
	var cands []int32
	for _, c := range concepts {
		for _, l := range ix.byConcept[c] {
			lf := &ix.leaves[l]
			if keep(lf) && overlap(concepts, lf.own) > 0 && cx.inScope(l) {
				cands = append(cands, l)
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	sortUnique(&cands)
	if slices.ContainsFunc(cands, cx.inSubject) {
		// The subject's own fields come before those of an enclosing
		// object: "the frothers cost $35.50" is about their unit price.
		cands = slices.DeleteFunc(cands, func(l int32) bool { return !cx.inSubject(l) })
	}
	scoreOf := func(l int32) int { return attrScoreDF(concepts, &ix.leaves[l], ix) }
	best := -1
	for _, l := range cands {
		best = max(best, scoreOf(l))
	}
	out := cands[:0]
	own := false
	for _, l := range cands {
		if scoreOf(l) == best {
			out = append(out, l)
			own = own || cx.inSubject(l)
		}
	}
	if own {
		// A field of the subject itself beats one of an enclosing object.
		out = slices.DeleteFunc(out, func(l int32) bool { return !cx.inSubject(l) })
	}
	return out
}

// inSubject reports whether leaf l lies inside one of the claim's subjects
// (not merely in an enclosing object).
func (cx *claimCtx) inSubject(l int32) bool {
	if !cx.scoped {
		return false
	}
	for _, n := range cx.scope {
		if cx.ix.inNode(l, n) {
			return true
		}
	}
	return false
}

// scopeLeaves returns the leaves in scope that pass keep.
func (cx *claimCtx) scopeLeaves(keep func(*leaf) bool) []int32 {
	ix := cx.ix
	var out []int32
	for _, n := range cx.scope {
		nd := &ix.nodes[n]
		for l := nd.leafLo; l < nd.leafHi; l++ {
			if keep(&ix.leaves[l]) {
				out = append(out, l)
			}
		}
	}
	sortUnique(&out)
	return out
}

func sortStable[T any](s []T, less func(a, b T) bool) {
	slices.SortStableFunc(s, func(a, b T) int {
		switch {
		case less(a, b):
			return -1
		case less(b, a):
			return 1
		}
		return 0
	})
}
