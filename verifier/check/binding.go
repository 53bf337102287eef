package check

import (
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Binding: a claim is checked only against fields about what it names.
// A field's key says what it is about (its attribute words: zutru of
// zutru_status, gruba of gruba_confirmed) besides the state it holds
// (status, confirmed); a claim names an attribute with its content words.
// A field whose key names an attribute the claim does not, while the claim
// names one that another state field's key has, or a word (of Latin
// letters: an ideograph pair the lexicon lacks is too often an ordinary
// word) the evidence nowhere knows, is about something else: it neither supports nor contradicts
// the claim ("the fitre is approved" beside {"tamogro_status":
// "APPROVED"}). Nothing here names a domain: the rule reads the structure
// of keys and the words of the claim.

// claimAttrs returns the concepts of the claim's content words (not its
// state, cue or unit words), and of those the ones no lexicon entry has
// (a word the rules never saw: a made-up or rare name of an attribute).
func (cx *claim) claimAttrs() (all, unknown []string) {
	var lexical, stateful []string
	for i := range cx.words {
		w := &cx.words[i]
		if w.Start < len(cx.used) && cx.used[w.Start] || w.Info == nil {
			continue
		}
		if len(w.Info.Cats) > 0 || w.Info.Cues != 0 {
			stateful = append(stateful, w.Info.Concepts...)
		} else {
			lexical = append(lexical, w.Info.Concepts...)
		}
	}
	for _, c := range cx.concepts {
		switch {
		case slices.Contains(stateful, c) && !slices.Contains(lexical, c):
		case slices.Contains(lexical, c):
			all = append(all, c)
		default:
			all = append(all, c)
			unknown = append(unknown, c)
		}
	}
	return all, unknown
}

// aboutOther reports whether field l is about something other than what
// the claim names (see above).
func (cx *claim) aboutOther(l int32) bool {
	ix := cx.ix
	fk := cx.fieldKeyOf(l)
	ka := fk.attrs
	if len(ka) == 0 || !fk.state {
		return false // "status", "confirmed": the state of what is in scope
	}
	if !slices.ContainsFunc(ka, func(c string) bool { return !slices.Contains(cx.concepts, c) }) {
		return false // the key says nothing the claim does not (包邮, free_shipping)
	}
	all, _ := cx.claimAttrs()
	ctx := ix.Leaves[l].Ctx()
	own := slices.DeleteFunc(slices.Clone(all), func(c string) bool { return slices.Contains(ka, c) || slices.Contains(ctx, c) })
	if len(own) < len(all) && overlap(all, ctx) > 0 {
		return false // under a key the claim names
	}
	for _, c := range own {
		if cx.otherStateNames(c, l) {
			return true // another state's key names it
		}
	}
	if len(own) < len(all) {
		return false // the claim names this field's attribute too
	}
	return cx.namesUnknown(own)
}

// fieldKey is what a field's key says: its attributes' concepts
// (evidence.Index.KeyAttrs) and whether it holds a state (StateField).
type fieldKey struct {
	attrs []string
	state bool
}

// fieldKeyID is what fieldKey depends on: the field's own key and
// whether it holds a boolean (a state whatever its key).
type fieldKeyID struct {
	key    string
	isBool bool
}

// fieldKeyOf is what field l's key says, read once per answer and key: a
// claim weighed against many state fields asks of each, the next claim
// asks again, and the rows of a list (340 in_stock fields) share a key
// that would be split for each.
func (cx *claim) fieldKeyOf(l int32) fieldKey {
	lf := &cx.ix.Leaves[l]
	id := fieldKeyID{evidence.LastToken(lf.Ptr()), lf.Kind == evidence.KindBool}
	if k, ok := cx.fieldKeys[id]; ok {
		return k // NB: its attrs are shared by the fields of the key; none changes them
	}
	k := fieldKey{cx.ix.KeyAttrs(l), cx.ix.StateField(l)}
	cx.fieldKeys[id] = k
	return k
}

// stateNamer counts the state fields in a claim's scope whose key names
// concept c, up to two, and keeps the first.
type stateNamer struct {
	c     string
	n     int
	first int32
}

// otherStateNames reports whether a state field in the claim's scope other
// than l has a key naming concept c. The fields are looked for once per
// claim and concept, not once per candidate field: a claim weighed against
// many state fields (a list of thousands of statuses) would otherwise walk
// every one of them for each.
func (cx *claim) otherStateNames(c string, l int32) bool {
	i := slices.IndexFunc(cx.stateNamers, func(s stateNamer) bool { return s.c == c })
	if i < 0 {
		s := stateNamer{c: c}
		for _, o := range cx.inScopeOf(cx.ix.Concept(c)) {
			if s.n == 1 && o == s.first {
				continue
			}
			if fk := cx.fieldKeyOf(o); !fk.state || !slices.Contains(fk.attrs, c) {
				continue
			}
			if s.n == 0 {
				s.first = o
			}
			if s.n++; s.n == 2 {
				break
			}
		}
		cx.stateNamers = append(cx.stateNamers, s)
		i = len(cx.stateNamers) - 1
	}
	s := cx.stateNamers[i]
	return s.n >= 2 || s.n == 1 && s.first != l
}

// possessed reports whether ideographs c follow 的 in the claim (X的c): a
// noun named as what X has, not any pair of ideographs.
func (cx *claim) possessed(c string) bool {
	return strings.Contains(string(cx.norm), "的"+c)
}

// namesUnknown reports whether one of concepts cs is a word of the claim
// no lexicon entry has and the evidence nowhere holds (neither a key nor
// a value word): the claim names something the evidence does not know.
// Words of Latin letters count, and ideographs only right after 的 (X的y):
// elsewhere an ideograph pair the lexicon lacks is too often an ordinary
// word.
func (cx *claim) namesUnknown(cs []string) bool {
	if len(cs) == 0 {
		return false
	}
	_, unknown := cx.claimAttrs()
	for _, c := range unknown {
		r := []rune(c)
		if len(r) < 2 || !slices.Contains(cs, c) || len(cx.ix.Concept(c)) > 0 || len(cx.ix.ValueWords(c)) > 0 {
			continue
		}
		if !lang.IsCJK(r[0]) && len(r) >= 3 || lang.IsCJK(r[0]) && cx.possessed(c) {
			return true
		}
	}
	return false
}

// statedNegatively counts the claim's state words that are a negation of
// another word by their form, though the lexicon files them as a state
// of their own: 未支付 (未 + 支付), unpaid (un + paid). A true/false field
// reads them as the negation (the field says paid or not).
//
// A negation inside an evidence value the claim names ("not ready yet",
// the words of a NOT_READY elsewhere) is the claim's too: the value's
// runes are taken from the reading's words, its negation is counted here.
func (cx *claim) statedNegatively() int {
	n := 0
	for i := range cx.words {
		w := &cx.words[i]
		if w.Start < len(cx.used) && cx.used[w.Start] && w.Info != nil && w.Info.Cues&evidence.CueNeg != 0 && w.Info.Cues&evidence.CuePlain == 0 && cx.inValue(w.Start) {
			n++
			continue
		}
		if w.Info == nil || len(w.Info.Cats) == 0 || w.Info.Cues&(evidence.CueNeg|evidence.CueNegLex) != 0 {
			continue
		}
		if w.Cjk {
			if negLeads(w.S) {
				n++
			}
			continue
		}
		if evidence.NegPrefixed(w.S) != "" {
			n++
		}
	}
	return n
}

// negLeads reports whether Chinese state word w starts with a negation
// word of the lexicon followed by a word of it (未发货, 尚未开始, 还没通过):
// the state it names is stated negatively.
func negLeads(w string) bool {
	r := []rune(w)
	for k := 1; k <= 3 && k < len(r); k++ {
		l := evidence.ZhLex[string(r[:k])]
		if l != nil && l.Cues&evidence.CueNeg != 0 && l.Cues&evidence.CuePlain == 0 && evidence.ZhLex[string(r[k:])] != nil {
			return true
		}
	}
	return false
}

// possessives are the verbs that state how many a thing has in all ("X has
// 8 kidrexes", "X 有 8 个"): the count of the whole list, not of a part.
var possessives = evidence.LangData.Set("possessives")

// wholeCount contradicts "X has 8 kidrexes" when the one list in scope the
// noun after the number names has another length: the claim is about the
// whole list (a possessive verb right before the number, nothing after the
// noun), so a list of 5 says otherwise. A part of it ("has 3 items out of
// stock") is not read this way.
func (cx *claim) wholeCount(m *evidence.NumMention) (fact, bool) {
	ix := cx.ix
	if len(m.Head) == 0 || m.HeadEnd <= m.End || m.Unit != nil && m.Unit.Dim != evidence.DimCount || m.V != math.Trunc(m.V) || m.V < 0 || m.Bound != 0 || m.Approx || m.IsRange {
		return fact{}, false
	}
	before := ""
	for i := range cx.words {
		if w := &cx.words[i]; w.End <= m.Start {
			before = w.S
		}
	}
	if !possessives[before] {
		return fact{}, false
	}
	for _, r := range cx.norm[m.HeadEnd:] {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return fact{}, false
		}
	}
	var list int32 = -1
	for _, i := range ix.Arrays {
		n := &ix.Nodes[i]
		if !cx.nodeInScope(i) || overlap(m.Head, n.Concepts) == 0 {
			continue
		}
		if list >= 0 && ix.Nodes[list].Length != n.Length {
			return fact{}, false // two lists it may mean
		}
		list = i
	}
	if list < 0 || float64(ix.Nodes[list].Length) == m.V {
		return fact{}, false
	}
	n := &ix.Nodes[list]
	return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.NodeRef(list, strconv.Itoa(n.Length))},
		reason: "the list has " + strconv.Itoa(n.Length) + " elements"}, true
}

// inValue reports whether rune r is in an evidence value the claim names.
func (cx *claim) inValue(r int) bool {
	for _, sp := range cx.valueSpans {
		if r >= sp[0] && r < sp[1] {
			return true
		}
	}
	return false
}

// stateValueFacts checks a claim stating a state (ready, active, paid)
// against a state field in scope holding its negation by form
// (NOT_READY, INACTIVE, UNPAID): "the bustu is ready" is contradicted by
// bustu_status: NOT_READY, "the bustu is not ready yet" supported. Only
// when no fact before it decided the claim, and only a field about what
// the claim names.
func (cx *claim) stateValueFacts(earlier []fact) []fact {
	ix := cx.ix
	if slices.ContainsFunc(earlier, func(f fact) bool { return !f.soft }) {
		return nil
	}
	positive := (cx.negs-cx.negLex)%2 == 0
	for _, ns := range ix.NegatedStates() {
		l, base := ns.Leaf, ns.Base
		lf := &ix.Leaves[l]
		if !cx.inScope(l) || !slices.ContainsFunc(cx.words, func(w evidence.Cword) bool { return !w.Cjk && (w.S == base || lang.Stem(w.S) == lang.Stem(base)) }) || cx.aboutOther(l) {
			continue
		}
		if positive {
			return []fact{{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(l)}, negUsed: true,
				reason: "the evidence says " + lf.Raw() + " at " + lf.Ptr()}}
		}
		f := supported(ix, "the evidence says "+lf.Raw(), l)
		f.negUsed = true
		return []fact{f}
	}
	return nil
}
