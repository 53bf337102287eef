package check

import (
	"github.com/toolstream/toolstream/internal/lang"

	"slices"
	"strconv"
	"strings"

	"github.com/toolstream/toolstream/events"
)

// boolFacts checks the claim's polarity against true/false fields named by
// its words (in_stock, refundable, 可退款), and availability against stock
// counts (in stock ⇔ stock > 0).
func (cx *claim) boolFacts() []fact {
	ix := cx.ix
	positive := (cx.negs+cx.statedNegatively())%2 == 0
	ts := cx.targets(cx.concepts, func(lf *leaf) bool { return lf.kind == kindBool })
	ts = slices.DeleteFunc(ts, cx.aboutOther)
	if len(ts) > 0 {
		var first int32 = -1
		for _, t := range ts {
			lf := &ix.leaves[t]
			val := lf.b != lf.negKey
			if val == positive {
				f := supported(ix, "polarity matches", t)
				f.negUsed = true
				return []fact{f}
			}
			if first < 0 {
				first = t
			}
		}
		return []fact{{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(first)}, negUsed: true,
			reason: "polarity differs: evidence says " + ix.leaves[first].raw() + " at " + ix.leaves[first].ptr()}}
	}
	if !cx.hasConcept("stock") {
		return cx.emptiness(positive)
	}
	ts = cx.targets([]string{"stock"}, func(lf *leaf) bool {
		return lf.kind == kindNum && !lf.text && (lf.dim == dimCount || lf.dim == dimNone)
	})
	for _, t := range ts {
		if (ix.leaves[t].num > 0) == positive {
			f := supported(ix, "availability matches the stock count", t)
			f.negUsed = true
			return []fact{f}
		}
	}
	if len(ts) > 0 {
		return []fact{{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(ts[0])}, negUsed: true,
			reason: "availability differs: stock is " + ix.leaves[ts[0]].raw()}}
	}
	return cx.emptiness(positive)
}

// emptiness checks "there are no alerts", 没有预警 against a list the
// claim names: an empty list supports the negation, a non-empty one
// contradicts it; an empty list contradicts a claim that there are some.
func (cx *claim) emptiness(positive bool) []fact {
	ix := cx.ix
	for _, n := range ix.arrays {
		nd := &ix.nodes[n]
		if overlap(cx.concepts, nd.concepts) == 0 || !cx.nodeInScope(n) {
			continue
		}
		ref := ix.nodeRef(n, strconv.Itoa(nd.length))
		switch {
		case !positive && nd.length == 0:
			return []fact{{verdict: events.VerdictSupported, refs: []events.EvidenceRef{ref}, negUsed: true, reason: "the list is empty"}}
		case !positive:
			return []fact{{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ref}, negUsed: true, reason: "the list is not empty"}}
		case nd.length == 0:
			return []fact{{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ref}, negUsed: true, reason: "the list is empty"}}
		}
	}
	return nil
}

// categoryFacts checks status and condition words (shipped, delivered,
// 已发货, sunny, 小雨) against the status fields in scope.
func (cx *claim) categoryFacts() []fact {
	ix := cx.ix
	var out []fact
	for _, cm := range cx.cats {
		// A one-word negative state that is itself a value ("disabled",
		// 已满) is compared as that value, not as a negation of it.
		neg := (cx.negs-cx.negLexCat)%2 == 1
		future := cx.cues&cueFuture != 0
		for _, c := range cm.cats {
			if c.neg {
				neg = !neg
			}
		}
		if catTrait("dated", cm.cats[0]) && cx.futureTime() {
			continue // "ships today", "arrives tomorrow": a date, not a status
		}
		if cx.hasConcept("chance") && catTrait("chance", cm.cats[0]) {
			continue // "a 30% chance of rain" does not say it rains
		}
		// A flag named by the status ("delivered": false) decides it.
		if f, ok := cx.statusFlag(cm, neg); ok {
			out = append(out, f)
			continue
		}
		// The subject's own status fields come before an enclosing one's.
		cands := make([]int32, 0, 4)
		inScope := cx.inScopeOf(ix.cats)
		for _, l := range inScope {
			if cx.inSubject(l) {
				cands = append(cands, l)
			}
		}
		if len(cands) == 0 {
			cands = append(cands, inScope...)
		}
		if n := len(cands); n > 0 {
			cands = slices.DeleteFunc(cands, cx.aboutOther)
			if len(cands) == 0 {
				out = append(out, fact{verdict: events.VerdictUnsupported, reason: "no status field is about what the claim names", weak: true})
				continue
			}
		}
		var first int32 = -1
		decided := false
		for _, l := range cands {
			lf := &ix.leaves[l]
			match, same := false, false
			for _, c := range cm.cats {
				if future && catTrait("future", c) {
					continue
				}
				for _, e := range lf.cat() {
					if c.class != e.class && !(catTrait("ends", c) && classHasEnd[e.class]) {
						continue
					}
					same = true
					if c.class != e.class {
						// "已完成" of an order, a payment, a booking: its end.
						match = match || catTrait("ends", c) && catTrait("end", e)
						continue
					}
					// An evidence value that states a negation (NOT_READY)
					// holds for no claim of its value.
					if !e.neg && (c.value == e.value || catCovers[c.class+"/"+c.value][e.class+"/"+e.value]) {
						match = true
					}
				}
			}
			if !same {
				continue
			}
			if match != neg {
				f := supported(ix, "status matches", l)
				f.negUsed = true
				out = append(out, f)
				decided = true
				break
			}
			if first < 0 {
				first = l
			}
		}
		if decided {
			continue
		}
		if first >= 0 {
			out = append(out, fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(first)}, negUsed: true,
				reason: "status differs: evidence says " + ix.leaves[first].raw()})
			continue
		}
		if future && catTrait("future", cm.cats[0]) {
			continue
		}
		out = append(out, fact{verdict: events.VerdictUnsupported, reason: "no status in the evidence", weak: true, soft: true})
	}
	return out
}

// catCovers and catTraits are the lexicon's [category covers] and
// [category traits]: what a category claim holds for besides its own value,
// and how some categories are read (lexicon.txt says each trait).
var catCovers, catTraits = func() (map[string]map[string]bool, map[string]map[string]bool) {
	covers := map[string]map[string]bool{}
	for _, l := range langData.Lines("category covers") {
		if covers[l.Name] == nil {
			covers[l.Name] = map[string]bool{}
		}
		for _, w := range l.Words {
			covers[l.Name][w] = true
		}
	}
	traits := map[string]map[string]bool{}
	for _, l := range langData.Lines("category traits") {
		if traits[l.Name] == nil {
			traits[l.Name] = map[string]bool{}
		}
		for _, w := range l.Words {
			traits[l.Name][w] = true
		}
	}
	return covers, traits
}()

// classHasEnd are the classes with a value of trait end.
var classHasEnd = func() map[string]bool {
	m := map[string]bool{}
	for w := range catTraits["end"] {
		class, _, _ := strings.Cut(w, "/")
		m[class] = true
	}
	return m
}()

// catTrait reports whether category value c, or its class, has trait t.
func catTrait(t string, c catValue) bool {
	return catTraits[t][c.class] || catTraits[t][c.class+"/"+c.value]
}

// statusFlag checks a status word against a true/false field named by it
// ("delivered": true, "is_shipped": false, "cancelled": true).
func (cx *claim) statusFlag(cm catMention, neg bool) (fact, bool) {
	ix := cx.ix
	var best int32 = -1
	bestOther, bestKeyNeg := false, false
	for _, l := range cx.inScopeOf(ix.bools) {
		lf := &ix.leaves[l]
		if cx.aboutOther(l) {
			continue
		}
		kc := categoriesOf(strings.Join(lang.KeyParts(lastToken(lf.ptr())), " "))
		named, other, keyNeg := false, false, false
		for _, c := range cm.cats {
			for _, k := range kc {
				if c.class == k.class && c.value == k.value {
					// a key stating the negation (is_overdue of paid) is
					// true when the value does not hold
					named, keyNeg = true, k.neg
				}
				// Another state of the class, one that does not cover the
				// flag's or is covered by it ("disabled" of is_enabled,
				// 无效 of active, 审批中 of approved), is the flag's
				// negation: a class's values exclude each other.
				other = other || c.class == k.class && c.value != k.value &&
					!catCovers[c.class+"/"+c.value][k.class+"/"+k.value] && !catCovers[k.class+"/"+k.value][c.class+"/"+c.value]
			}
		}
		if (named || other) && (best < 0 || cx.inSubject(l) && !cx.inSubject(best) || ix.leaves[best].node < lf.node && cx.inSubject(l) == cx.inSubject(best)) {
			best, bestOther, bestKeyNeg = l, other && !named, keyNeg && named
		}
	}
	if best < 0 {
		return fact{}, false
	}
	lf := &ix.leaves[best]
	if bestOther != bestKeyNeg {
		neg = !neg
	}
	if (lf.b != lf.negKey) != neg {
		f := supported(ix, "status flag matches", best)
		f.negUsed = true
		return f, true
	}
	return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(best)}, negUsed: true, reason: "status flag says " + lf.raw()}, true
}

// valueFacts checks the evidence values the claim names (a carrier, a
// colour, a city): in scope they support it; named for another subject
// while this subject's field says otherwise they contradict it.
//
// A negated claim naming a state field's value ("the rigrevum is not
// enabled" beside rigrevum_status: ENABLED) is contradicted by it: the
// negation is read before the value is compared, unless a fact before it
// read the negation.
func (cx *claim) valueFacts(earlier []fact) []fact {
	ix := cx.ix
	negated := (cx.negs-cx.negLex)%2 == 1 && !slices.ContainsFunc(earlier, func(f fact) bool { return f.negUsed })
	var out []fact
	for _, vm := range cx.values {
		var in, outside []int32
		for _, l := range vm {
			if cx.inScope(l) {
				in = append(in, l)
			} else {
				outside = append(outside, l)
			}
		}
		if i := slices.IndexFunc(in, func(l int32) bool { return !ix.stateField(l) || !cx.aboutOther(l) }); i >= 0 {
			if negated && ix.stateField(in[i]) {
				out = append(out, fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(in[i])}, negUsed: true,
					reason: "negated, but the evidence says " + ix.leaves[in[i]].raw() + " at " + ix.leaves[in[i]].ptr()})
				continue
			}
			out = append(out, supported(ix, "value named in the evidence", in[i]))
			continue
		} else if len(in) > 0 {
			out = append(out, fact{verdict: events.VerdictUnsupported, reason: "the value is of a field about something else", weak: true})
			continue
		}
		f := fact{verdict: events.VerdictUnsupported, reason: "the value belongs to another subject"}
		for _, l := range outside {
			key := lastToken(ix.leaves[l].ptr())
			for _, s := range cx.scopeLeaves(func(lf *leaf) bool { return lf.kind == kindStr && !lf.subjKey }) {
				if lastToken(ix.leaves[s].ptr()) == key {
					f = fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(s)},
						reason: "evidence says " + ix.leaves[s].raw() + " at " + ix.leaves[s].ptr()}
					break
				}
			}
			if f.verdict == events.VerdictContradicted {
				break
			}
		}
		out = append(out, f)
	}
	return out
}
