package evidence

import (
	bits64 "math/bits"
	"slices"
	"sort"
	"strings"
)

// The lookups of an answer's index: the leaves a concept, a value word or
// a value names, and the subjects a token may start, looked up in each part
// in evidence order when a claim first asks, with the part's ids moved to
// the answer's, and kept for the next claim. The parts are not changed, so
// one part may serve any number of answers at once.

type lookupCache struct {
	direct   *directs
	numIDs   []int32
	numVals  []float64
	numUnits []NumUnit
	bits     []uint64 // sortLeaves' bitmap, all zero between calls
	Matches  map[MatchKey][]int32
	concept  map[string][]int32
	word     map[string][]int32
	tokens   map[string]*TokenHit
	tokSlab  []TokenHit // where tokenAt makes them, a few at a time
	subjects map[string]*SubjectHit
	values   map[string]*valueHit
	// negStates: the state fields holding a negated state (NOT_READY),
	// with each one's base word (negatedStates).
	negStates     []negState
	negStatesRead bool
	// keyConcepts: ConceptsOf each leaf key asked of KeyConcepts.
	keyConcepts map[string][]string
}

// KeyConcepts is ConceptsOf leaf l's own key (its last pointer token,
// unescaped), worked out once per key and answer: a claim's number is
// weighed against many fields of few keys. The list is shared; callers do
// not change it.
func (ix *Index) KeyConcepts(l int32) []string {
	tok := LastToken(ix.Leaves[l].Ptr())
	if c, ok := ix.Cache.keyConcepts[tok]; ok {
		return c
	}
	c := ConceptsOf(ptrUnescaper.Replace(tok))
	if ix.Cache.keyConcepts == nil {
		ix.Cache.keyConcepts = map[string][]string{}
	}
	ix.Cache.keyConcepts[tok] = c
	return c
}

type SubjectHit struct {
	es []SubjEntry
	ok bool
	// Whether any entry is a whole name, and any a partial one (made on
	// first use, with by).
	read          bool
	by            bySecond
	whole, partly bool
}

// bySecond finds the entries of a lookup (names or values starting with
// one token) that may start at a token followed by another: those of one
// token, and those of more whose second token is the next. With eight
// entries or more (a key naming 340 widgets), where they are: the entries
// of one token, and the others sorted by their second token.
type bySecond struct {
	single, more []int32
	second       func(i int32) string
}

// bySecondMin is the fewest entries bySecond indexes: fewer are all
// given, which costs less than finding them.
const bySecondMin = 8

// Index makes b for n entries, at least bySecondMin; second returns entry
// i's second token, "" for an entry of one token.
func (b *bySecond) index(n int, second func(i int32) string) {
	b.second = second
	for i := range int32(n) {
		if second(i) == "" {
			b.single = append(b.single, i)
		} else {
			b.more = append(b.more, i)
		}
	}
	slices.SortStableFunc(b.more, func(x, y int32) int { return strings.Compare(second(x), second(y)) })
}

// each gives f, in order, the entries of n that may start at a token
// followed by next (hasNext: there is a token after).
func (b *bySecond) each(n int, next string, hasNext bool, f func(i int32)) {
	if b.second == nil {
		for i := range int32(n) {
			f(i)
		}
		return
	}
	single, more := b.single, []int32(nil)
	if hasNext {
		lo := sort.Search(len(b.more), func(i int) bool { return b.second(b.more[i]) >= next })
		hi := lo
		for hi < len(b.more) && b.second(b.more[hi]) == next {
			hi++
		}
		more = b.more[lo:hi]
	}
	// Both in order.
	for len(single) > 0 || len(more) > 0 {
		var i int32
		if len(more) == 0 || len(single) > 0 && single[0] < more[0] {
			i, single = single[0], single[1:]
		} else {
			i, more = more[0], more[1:]
		}
		f(i)
	}
}

// noSubjects are the hits of keys without entries, never indexed under
// the key and indexed (all pruned). They are shared and never changed.
var noSubjects = [2]SubjectHit{{}, {ok: true}}

// noValues are the hits of tokens starting no value, shared and never
// changed.
var noValues = [2]valueHit{{}, {ok: true}}

type valueHit struct {
	vs     []valEntry
	ok     bool
	read   bool
	groups []ValGroup // made on first use, with by
	by     bySecond
}

// TokenHit is what a claim's token is looked up by, kept for the claims
// after: its subject key and the subjects there, and (made on first use)
// the values it starts.
type TokenHit struct {
	Key  string
	Subj *SubjectHit
	val  *valueHit
}

// TokenAt returns the lookups of token t.
func (ix *Index) TokenAt(t string) *TokenHit {
	if th, ok := ix.Cache.tokens[t]; ok {
		return th
	}
	if len(ix.Cache.tokSlab) == cap(ix.Cache.tokSlab) {
		ix.Cache.tokSlab = make([]TokenHit, 0, 64) // NB: the full one stays where its hits are
	}
	k := subjectKey(t)
	ix.Cache.tokSlab = append(ix.Cache.tokSlab, TokenHit{Key: k, Subj: ix.subjectHitAt(k)})
	th := &ix.Cache.tokSlab[len(ix.Cache.tokSlab)-1]
	if ix.Cache.tokens == nil {
		ix.Cache.tokens = map[string]*TokenHit{}
	}
	ix.Cache.tokens[t] = th
	return th
}

// Values returns the values token t (th's) starts.
func (th *TokenHit) Values(ix *Index, t string) *valueHit {
	if th.val == nil {
		th.val = ix.valueHitAt(t)
	}
	return th.val
}

// Concept returns the leaves whose keys name concept c, ascending.
func (ix *Index) Concept(c string) []int32 { return ix.leavesOf(&ix.Cache.concept, c, (*Part).concept) }

// ValueWords returns the string leaves whose words name concept c.
func (ix *Index) ValueWords(c string) []int32 {
	return ix.leavesOf(&ix.Cache.word, c, (*Part).valueWord)
}

// leavesOf returns the leaves of key k in every part (get), kept in cache.
func (ix *Index) leavesOf(cache *map[string][]int32, k string, get func(*Part, string) []int32) []int32 {
	if ls, ok := (*cache)[k]; ok {
		return ls
	}
	var out []int32
	for i, p := range ix.parts {
		out = shifted(out, get(p, k), ix.leafBase[i])
	}
	if *cache == nil {
		*cache = map[string][]int32{}
	}
	(*cache)[k] = out
	return out
}

// SubjectsAt returns the subjects whose name starts with subject key k:
// those the parts' walks found, then those their collections' members are
// named by, then the tools' results, less partial names two subjects share
// (nameSet). ok reports whether any subject was ever indexed under k.
func (ix *Index) SubjectsAt(k string) ([]SubjEntry, bool) {
	h := ix.subjectHitAt(k)
	return h.es, h.ok
}

// subjectHitAt returns what subjectsAt returns for k, kept for the claims
// after.
func (ix *Index) subjectHitAt(k string) *SubjectHit {
	if h, ok := ix.Cache.subjects[k]; ok {
		return h
	}
	// Partial names that subjects with different names share name none of
	// them (nameSet): whether they do is read first, from the names alone,
	// so what is dropped is never made (340 widgets share "widget").
	var names nameSet
	found := false
	for _, named := range []bool{false, true} {
		for _, p := range ix.parts {
			found = p.subjectNames(k, named, &names) || found
		}
	}
	tes, ok := ix.toolNamed[k]
	if ok {
		found = true
		names.addAll(tes)
	}
	var es []SubjEntry
	if n := names.kept(); n > 0 {
		es = make([]SubjEntry, 0, n)
	}
	for _, named := range []bool{false, true} {
		for i, p := range ix.parts {
			es = p.appendSubjects(es, k, named, names.several, ix.nodeBase[i])
		}
	}
	for _, e := range tes {
		if !names.several || !e.Partial && !e.alias {
			es = append(es, e)
		}
	}
	// Most keys name no subject: they share one of two hits (from never
	// changes a hit without entries).
	h := &noSubjects[0]
	switch {
	case len(es) > 0:
		h = &SubjectHit{es: es, ok: found}
	case found:
		h = &noSubjects[1]
	}
	if ix.Cache.subjects == nil {
		ix.Cache.subjects = map[string]*SubjectHit{}
	}
	ix.Cache.subjects[k] = h
	return h
}

// From gives each the subjects a name starting at its key may be: those
// of one token, and those of more whose second token's key is next (when
// there is a token after), in the order subjectsAt gives them. The others
// cannot match.
//
// Only entries whose partial is partial are given (a whole name, or a
// distinctive word of one).
func (h *SubjectHit) From(next string, hasNext, partial bool, each func(*SubjEntry)) {
	if len(h.es) == 0 {
		return
	}
	if !h.read {
		h.read = true
		for _, e := range h.es {
			h.whole = h.whole || !e.Partial
			h.partly = h.partly || e.Partial
		}
		if len(h.es) >= bySecondMin {
			h.by.index(len(h.es), func(i int32) string {
				if ks := h.es[i].Keys; len(ks) > 1 {
					return ks[1]
				}
				return ""
			})
		}
	}
	if partial && !h.partly || !partial && !h.whole {
		return
	}
	h.by.each(len(h.es), next, hasNext, func(i int32) {
		if h.es[i].Partial == partial {
			each(&h.es[i])
		}
	})
}

// ValuesAt returns the short string values whose first token is t; ok
// reports whether there is any.
func (ix *Index) ValuesAt(t string) ([]valEntry, bool) {
	h := ix.valueHitAt(t)
	return h.vs, h.ok
}

// ValuesFrom gives each the values of h (valueHitAt of a token) that may
// start at the token followed by next (hasNext: there is one), grouped by
// their words: each group once, its leaves ascending, the groups in the
// order of their first value.
func (ix *Index) ValuesFrom(h *valueHit, next string, hasNext bool, each func(*ValGroup)) {
	if len(h.vs) == 0 {
		return
	}
	if !h.read {
		h.read = true
		h.groups = groupValues(h.vs)
		if len(h.groups) >= bySecondMin {
			h.by.index(len(h.groups), func(i int32) string {
				if ts := h.groups[i].Toks; len(ts) > 1 {
					return ts[1]
				}
				return ""
			})
		}
	}
	h.by.each(len(h.groups), next, hasNext, func(i int32) { each(&h.groups[i]) })
}

// ValGroup is the values of the same words: their leaves, ascending.
type ValGroup struct {
	Toks   []string
	Leaves []int32
}

// groupValues groups values (ascending leaves) whose words are one list of
// a part's tables (a part read back numbers each list once: 340 products
// described by three texts are three groups). Values with lists of their
// own stay alone.
func groupValues(vs []valEntry) []ValGroup {
	of := make([]int32, len(vs)) // each value's group
	var first map[*string]int32  // NB: a list is known by its first string's address and length
	var gs []ValGroup
	for i, v := range vs {
		g := int32(len(gs))
		if len(vs) >= bySecondMin {
			if first == nil {
				first = map[*string]int32{}
			}
			if k, ok := first[&v.toks[0]]; ok && len(gs[k].Toks) == len(v.toks) {
				g = k
			} else {
				first[&v.toks[0]] = g
			}
		}
		if g == int32(len(gs)) {
			gs = append(gs, ValGroup{Toks: v.toks})
		}
		of[i] = g
	}
	leaves := make([]int32, len(vs))
	starts := make([]int32, len(gs)+1)
	for _, g := range of {
		starts[g+1]++
	}
	for g := range gs {
		starts[g+1] += starts[g]
	}
	next := slices.Clone(starts[:len(gs)])
	for i, g := range of {
		leaves[next[g]] = vs[i].leaf
		next[g]++
	}
	for g := range gs {
		gs[g].Leaves = leaves[starts[g]:starts[g+1]:starts[g+1]]
	}
	return gs
}

// valueHitAt returns what valuesAt returns for t, kept for the claims
// after.
func (ix *Index) valueHitAt(t string) *valueHit {
	if h, ok := ix.Cache.values[t]; ok {
		return h
	}
	var vs []valEntry
	found := false
	for i, p := range ix.parts {
		pvs, ok := p.values(t)
		found = found || ok
		for _, v := range pvs {
			v.leaf += ix.leafBase[i]
			vs = append(vs, v)
		}
	}
	// Most tokens start no value: they share one of two hits (valuesFrom
	// never changes a hit without entries).
	h := &noValues[0]
	switch {
	case len(vs) > 0:
		h = &valueHit{vs: vs, ok: found}
	case found:
		h = &noValues[1]
	}
	if ix.Cache.values == nil {
		ix.Cache.values = map[string]*valueHit{}
	}
	ix.Cache.values[t] = h
	return h
}

// HasKey reports whether k is a key (or a column or row label) of the
// evidence.
func (ix *Index) HasKey(k string) bool {
	for _, p := range ix.parts {
		if p.hasKey(k) {
			return true
		}
	}
	return false
}

// TextOf returns the numbers and dates found in string leaf l: the text
// leaves that follow it.
func (ix *Index) TextOf(l int32) []int32 {
	var out []int32
	for t := l + 1; int(t) < len(ix.Leaves) && ix.Leaves[t].Text && ix.Leaves[t].Src == l; t++ {
		out = append(out, t)
	}
	return out
}

// A part's own lookups: its maps while built, its sections once read back.

func (p *Part) concept(c string) []int32 {
	if p.sec == nil {
		return p.ix.byConcept[c]
	}
	return p.sec.postings(&p.sec.byConcept, c)
}

func (p *Part) valueWord(c string) []int32 {
	if p.sec == nil {
		return p.ix.byValue[c]
	}
	return p.sec.postings(&p.sec.byValue, c)
}

// subjectNames adds the names of the part's partial and alias subjects of
// key k (its collections' members' when named) to names, and reports
// whether any subject is indexed under k. A damaged entry adds none, as
// it gives none (appendSubjects).
func (p *Part) subjectNames(k string, named bool, names *nameSet) bool {
	if p.sec == nil {
		es, ok := p.memSubjects(named)[k]
		names.addAll(es)
		return ok
	}
	return p.sec.subjectNames(p.sec.subjectSection(named), k, names)
}

// appendSubjects appends the part's subjects of key k to es, their nodes
// plus base, all but the partial and alias ones when dropPartial.
func (p *Part) appendSubjects(es []SubjEntry, k string, named, dropPartial bool, base int32) []SubjEntry {
	if p.sec == nil {
		for _, e := range p.memSubjects(named)[k] {
			if !dropPartial || !e.Partial && !e.alias {
				e.Node += base
				es = append(es, e)
			}
		}
		return es
	}
	return p.sec.appendSubjectEntries(es, p.sec.subjectSection(named), k, dropPartial, base)
}

func (p *Part) memSubjects(named bool) map[string][]SubjEntry {
	if named {
		return p.ix.named
	}
	return p.ix.subjects
}

func (p *Part) values(t string) ([]valEntry, bool) {
	if p.sec == nil {
		vs, ok := p.ix.values[t]
		return vs, ok
	}
	return p.sec.valueEntries(t)
}

func (p *Part) hasKey(k string) bool {
	if p.sec == nil {
		return p.ix.keys[k] != nil
	}
	return p.sec.hasKey(k)
}

// NumValues returns the values and units of the numeric leaves in the
// order of ix.nums (ascending values), made on first use: a claimed number
// is looked for in them without reading a leaf for every comparison.
func (ix *Index) NumValues() ([]float64, []NumUnit) {
	if ix.Cache.numVals == nil && len(ix.Nums) > 0 {
		ix.Cache.numVals = make([]float64, len(ix.Nums))
		ix.Cache.numUnits = make([]NumUnit, len(ix.Nums))
		for i, l := range ix.Nums {
			lf := &ix.Leaves[l]
			ix.Cache.numVals[i], ix.Cache.numUnits[i] = lf.Num, NumUnit{lf.UnitID, lf.Dim}
		}
	}
	return ix.Cache.numVals, ix.Cache.numUnits
}

// SortLeaves sorts a list of leaves and drops repeats, in place. A long
// list (a claimed number's matches: up to numMatchesMax for each unit it
// may be in) is sorted by marking its leaves in a bitmap of the index's
// leaves, kept for the next.
func (ix *Index) SortLeaves(ls []int32) []int32 {
	if len(ls) < 64 {
		SortUnique(&ls)
		return ls
	}
	words := (len(ix.Leaves) + 63) / 64
	if len(ix.Cache.bits) < words {
		ix.Cache.bits = make([]uint64, words)
	}
	bits := ix.Cache.bits[:words]
	for _, l := range ls {
		bits[l/64] |= 1 << (l % 64)
	}
	out := ls[:0]
	for w, b := range bits {
		for b != 0 {
			k := bits64.TrailingZeros64(b)
			out = append(out, int32(w*64+k))
			b &= b - 1
		}
		bits[w] = 0
	}
	return out
}

// NumsInOrder returns the numeric leaves in leaf order.
func (ix *Index) NumsInOrder() []int32 {
	if ix.Cache.numIDs == nil {
		ix.Cache.numIDs = slices.Clone(ix.Nums)
		slices.Sort(ix.Cache.numIDs)
	}
	return ix.Cache.numIDs
}

// directs lists each node's direct fields (leaves whose node it is), in
// leaf order.
type directs struct {
	start  []int32 // node n's are leaves[start[n]:start[n+1]]
	leaves []int32
}

func (d *directs) Of(n int32) []int32 { return d.leaves[d.start[n]:d.start[n+1]] }

// DirectLeaves returns the direct fields of every node, made on first use.
func (ix *Index) DirectLeaves() *directs {
	if ix.Cache.direct != nil {
		return ix.Cache.direct
	}
	d := &directs{start: make([]int32, len(ix.Nodes)+1)}
	for i := range ix.Leaves {
		if n := ix.Leaves[i].Node; n >= 0 {
			d.start[n+1]++
		}
	}
	for n := range ix.Nodes {
		d.start[n+1] += d.start[n]
	}
	d.leaves = make([]int32, d.start[len(ix.Nodes)])
	next := slices.Clone(d.start[:len(ix.Nodes)])
	for i := range ix.Leaves {
		if n := ix.Leaves[i].Node; n >= 0 {
			d.leaves[next[n]] = int32(i)
			next[n]++
		}
	}
	ix.Cache.direct = d
	return d
}
