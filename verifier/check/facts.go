package check

import (
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// boolFacts checks the claim's polarity against true/false fields named by
// its words (in_stock, refundable, 可退款), and availability against stock
// counts (in stock ⇔ stock > 0).
func (cx *claim) boolFacts() []fact {
	ix := cx.ix
	positive := (cx.negs+cx.statedNegatively())%2 == 0
	ts := cx.targets(cx.concepts, func(lf *evidence.Leaf) bool { return lf.Kind == evidence.KindBool })
	ts = slices.DeleteFunc(ts, cx.aboutOther)
	if len(ts) > 0 {
		var first int32 = -1
		free := cx.statesFree()
		for _, t := range ts {
			lf := &ix.Leaves[t]
			positive := positive
			if n := cx.negsOfOther(t); n%2 == 1 {
				positive = !positive
			}
			val := lf.B != lf.NegKey
			if freeKey(lf) && !free {
				// deposit_free is true when there is none: "requires a
				// deposit" claims it false, "needs no deposit" (read as a
				// price of zero) and "deposit-free" claim it true.
				val = !val
			}
			if val == positive {
				f := supported(ix, "polarity matches", t)
				f.negUsed = true
				return []fact{f}
			}
			if first < 0 {
				first = t
			}
		}
		return []fact{{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(first)}, negUsed: true,
			reason: "polarity differs: evidence says " + ix.Leaves[first].Raw() + " at " + ix.Leaves[first].Ptr()}}
	}
	// "no complaints and no returns": two negations, each of its own
	// count, are no double negation.
	if !positive || cx.negs > 1 {
		if fs := cx.noneCounted(!positive); len(fs) > 0 {
			return fs
		}
	}
	if !cx.hasConcept("stock") {
		return cx.emptiness(positive)
	}
	ts = cx.targets([]string{"stock"}, func(lf *evidence.Leaf) bool {
		return lf.Kind == evidence.KindNum && !lf.Text && (lf.Dim == evidence.DimCount || lf.Dim == evidence.DimNone)
	})
	for _, t := range ts {
		if (ix.Leaves[t].Num > 0) == positive {
			f := supported(ix, "availability matches the stock count", t)
			f.negUsed = true
			return []fact{f}
		}
	}
	if len(ts) > 0 {
		return []fact{{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(ts[0])}, negUsed: true,
			reason: "availability differs: stock is " + ix.Leaves[ts[0]].Raw()}}
	}
	return cx.emptiness(positive)
}

// negsOfOther counts the claim's negation words that negate something
// other than flag t's attribute ("Ada is a newcomer with no badge yet"
// beside newcomer: true): each a word of none (no, nobody, nothing; not
// "not", which negates the predicate), said after every word naming the
// flag's key, and before, in its clause, a word naming something the key
// does not. A flag decides only by the polarity of what names it.
func (cx *claim) negsOfOther(t int32) int {
	if len(cx.negWords) == 0 {
		return 0
	}
	own := cx.ix.Leaves[t].Own()
	names := func(j int) (key, other bool) {
		w := &cx.words[j]
		var cs []string
		switch {
		case w.Info != nil:
			cs = w.Info.Concepts
		case !w.Cjk:
			cs = evidence.WordConcepts(w.S)
		}
		for _, c := range cs {
			if slices.Contains(own, c) {
				key = true
			} else {
				other = true
			}
		}
		return key, other
	}
	n := 0
	for _, i := range cx.negWords {
		if cx.words[i].Cues()&evidence.CueNone == 0 || cx.saidLast(i) {
			continue // "not available" negates what the flag's word is said to be
		}
		before := false
		for j := range cx.words {
			if key, _ := names(j); key {
				if j > i {
					before = false
					break
				}
				before = true
			}
		}
		if !before {
			continue
		}
		for j := i + 1; j < len(cx.words); j++ {
			if clauseEnds(cx.norm[cx.words[j-1].End:cx.words[j].Start]) {
				break
			}
			if _, other := names(j); other {
				n++
				break
			}
		}
	}
	return n
}

// noneCounted checks a negated claim that there is none of a thing ("no
// parts were rejected", 没有投诉, 今天无退款) against the one count field its
// words name (parts_rejected, complaints, refunds_today): zero supports
// it when mayHold; a count above zero leaves it undecided.
func (cx *claim) noneCounted(mayHold bool) []fact {
	ix := cx.ix
	if cx.hasConcept("stock") {
		return nil // availability: read against the stock count below
	}
	ts := cx.targets(cx.concepts, func(lf *evidence.Leaf) bool {
		return lf.Kind == evidence.KindNum && !lf.Text && (lf.Dim == evidence.DimCount || lf.Dim == evidence.DimNone)
	})
	ts = slices.DeleteFunc(ts, cx.aboutOther)
	// A negative state word ("closed" beside open_lifts) says no none.
	plain := cx.negs > cx.negLex
	for _, t := range ts {
		if ix.Leaves[t].Num > 0 && plain {
			// A count above zero does not bear "none" out, but is no
			// contradiction either: the words of a negated claim name a
			// count loosely ("did not change" beside a play count, "closed
			// because of wind" beside a count of lifts). Left undecided.
			return []fact{{verdict: events.VerdictUnsupported, refs: []events.EvidenceRef{ix.Ref(t)}, negUsed: true, weak: true, soft: true,
				reason: "the claim says none; the evidence counts " + ix.Leaves[t].Raw() + " at " + ix.Leaves[t].Ptr()}}
		}
	}
	if len(ts) != 1 || !mayHold {
		return nil // none, or several: not one field it is about
	}
	f := supported(ix, "none, as the count says", ts[0])
	f.negUsed = true
	return []fact{f}
}

// freeKey reports whether lf's key says its other words are waived
// (deposit_free, deposit_exempt, fee_waived, 免押金, 押金免除): its true
// says there is none. The words are the lexicon's free and free_of cues:
// an English key ends in one (a key starting with free, free_shipping,
// names what is free); a Chinese key starts with a free_of word (免押金)
// or ends in one (押金免除), and one starting with a free word (免费停车)
// names what is free.
func freeKey(lf *evidence.Leaf) bool {
	key := evidence.LastToken(lf.Ptr())
	parts := lang.KeyParts(key)
	if len(parts) >= 2 {
		l := evidence.EnLex[parts[len(parts)-1]]
		return l != nil && l.Cues&(evidence.CueFree|evidence.CueFreeOf) != 0
	}
	r := []rune(key)
	if len(r) < 2 || !lang.IsCJK(r[0]) {
		return false
	}
	for n := min(len(r)-1, evidence.ZhMaxLen); n >= 1; n-- {
		if l := evidence.ZhLex[string(r[:n])]; l != nil {
			if l.Cues&evidence.CueFree != 0 {
				return false // 免费停车: what is free
			}
			if l.Cues&evidence.CueFreeOf != 0 {
				return true
			}
		}
		if l := evidence.ZhLex[string(r[len(r)-n:])]; l != nil && l.Cues&evidence.CueFreeOf != 0 {
			return true
		}
	}
	return false
}

// statesFree reports whether the claim says something is free or costs
// nothing ("deposit-free", "no deposit", 免费) or is waived ("exempt from
// the deposit", 免押金).
func (cx *claim) statesFree() bool {
	return cx.cues&(evidence.CueFree|evidence.CueFreeOf) != 0 || slices.ContainsFunc(cx.nums, func(m evidence.NumMention) bool { return m.Free })
}

// emptiness checks "there are no alerts", 没有预警 against a list the
// claim names: an empty list supports the negation, a non-empty one
// contradicts it; an empty list contradicts a claim that there are some.
func (cx *claim) emptiness(positive bool) []fact {
	ix := cx.ix
	for _, n := range ix.Arrays {
		nd := &ix.Nodes[n]
		if overlap(cx.concepts, nd.Concepts) == 0 || !cx.nodeInScope(n) {
			continue
		}
		ref := ix.NodeRef(n, strconv.Itoa(nd.Length))
		switch {
		case !positive && nd.Length == 0:
			return []fact{{verdict: events.VerdictSupported, refs: []events.EvidenceRef{ref}, negUsed: true, reason: "the list is empty"}}
		case !positive:
			return []fact{{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ref}, negUsed: true, reason: "the list is not empty"}}
		case nd.Length == 0:
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
		neg := (cx.negs-cx.negLexCat-cm.negAfter)%2 == 1
		future := cx.cues&evidence.CueFuture != 0
		for _, c := range cm.cats {
			if c.Neg {
				neg = !neg
			}
		}
		if catTrait("dated", cm.cats[0]) && cx.futureTime() {
			continue // "ships today", "arrives tomorrow": a date, not a status
		}
		if cx.hasConcept("chance") && catTrait("chance", cm.cats[0]) {
			continue // "a 30% chance of rain" does not say it rains
		}
		if cx.amountFollows(cm.start) {
			continue // "is paid €320 a day", "was charged $40": the verb of an amount, no state
		}
		if catTrait("timed", cm.cats[0]) && len(cx.times) > 0 && (len(cx.inScopeOf(ix.Dates)) > 0 || len(cx.inScopeOf(ix.Clocks)) > 0) {
			// "started at 6:30 pm", "began on 3 May": when, not whether,
			// when the evidence has a date or time to weigh the when
			// against; with none, the state word is what is checked
			// ("the Mural started at 9 am" beside a job not started).
			continue
		}
		if cx.countedBefore(cm.start) {
			continue // "412 tests passed", "3 pumps failed": how many are in the state, not the subject's state
		}
		// A flag named by the status ("delivered": false) decides it.
		if f, ok := cx.statusFlag(cm, neg); ok {
			out = append(out, f)
			continue
		}
		// The subject's own status fields come before an enclosing one's.
		cands := make([]int32, 0, 4)
		inScope := cx.inScopeOf(ix.Cats)
		for _, l := range inScope {
			if cx.inSubject(l) {
				cands = append(cands, l)
			}
		}
		if len(cands) == 0 {
			cands = append(cands, inScope...)
		}
		if len(cands) > fieldsWeighedMax {
			cands = cands[:fieldsWeighedMax] // NB: the first, in document order
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
			lf := &ix.Leaves[l]
			match, same := false, false
			for _, c := range cm.cats {
				if future && catTrait("future", c) {
					continue
				}
				for _, e := range lf.Cat() {
					if c.Class != e.Class && !(catTrait("ends", c) && classHasEnd[e.Class]) {
						continue
					}
					same = true
					if c.Class != e.Class {
						// "已完成" of an order, a payment, a booking: its end.
						match = match || catTrait("ends", c) && catTrait("end", e) && !e.Neg
						continue
					}
					// An evidence value that states a negation (NOT_READY)
					// holds for no claim of its value.
					if !e.Neg && (c.Value == e.Value || catCovers[c.Class+"/"+c.Value][e.Class+"/"+e.Value]) {
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
			out = append(out, fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(first)}, negUsed: true,
				reason: "status differs: evidence says " + ix.Leaves[first].Raw()})
			continue
		}
		if future && catTrait("future", cm.cats[0]) {
			continue
		}
		if f, ok := cx.lapsedFact(cm, neg); ok {
			out = append(out, f)
			continue
		}
		if f, ok := cx.vocabularyFact(cm, neg); ok {
			out = append(out, f)
			continue
		}
		if cm.verb {
			continue // 没有退货 beside no status: the words are read as a whole
		}
		out = append(out, fact{verdict: events.VerdictUnsupported, reason: "no status in the evidence", weak: true, soft: true})
	}
	return out
}

// vocabularyFact reads a status field whose value the lexicon has no
// word of the claim's class for (provisional, in_exam, 待检) through the
// values its key holds in the other rows: when another row's field of
// the same key holds the very state the claim says (confirmed, in
// service, 合格), the field's vocabulary has that state, and this row's
// field holds another of its values. So "Omar's move is confirmed"
// beside his status provisional, the others' confirmed, is contradicted,
// and "is not confirmed" supported. Only the claim's subject's own field
// is read, and only a value no class of the claim's states, of a claim
// that says no number or time.
func (cx *claim) vocabularyFact(cm catMention, neg bool) (fact, bool) {
	ix := cx.ix
	if !cx.scoped || len(cx.nums) > 0 || len(cx.times) > 0 {
		// "took half an hour longer than planned", 要求两天内修好: a
		// quantity or a time is what the claim says, the state word
		// qualifies it
		return fact{}, false
	}
	for _, l := range cx.scopeLeaves(func(lf *evidence.Leaf) bool { return lf.Kind == evidence.KindStr && !lf.Text }) {
		if !cx.inSubject(l) || !ix.StateField(l) || cx.aboutOther(l) {
			continue
		}
		lf := &ix.Leaves[l]
		if slices.ContainsFunc(lf.Cat(), func(e evidence.CatValue) bool {
			return slices.ContainsFunc(cm.cats, func(c evidence.CatValue) bool { return c.Class == e.Class })
		}) {
			continue // a value of the claim's class: compared as such
		}
		key := evidence.LastToken(lf.Ptr())
		for _, o := range ix.Cats {
			of := &ix.Leaves[o]
			if of.Node == lf.Node || evidence.LastToken(of.Ptr()) != key {
				continue
			}
			held := slices.ContainsFunc(of.Cat(), func(e evidence.CatValue) bool {
				return !e.Neg && slices.ContainsFunc(cm.cats, func(c evidence.CatValue) bool { return c.Class == e.Class && c.Value == e.Value })
			})
			if !held {
				continue
			}
			if neg {
				f := supported(ix, "the field holds another value of its vocabulary", l)
				f.negUsed = true
				return f, true
			}
			return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(l)}, negUsed: true,
				reason: "status differs: evidence says " + lf.Raw() + ", another row's " + of.Raw()}, true
		}
	}
	return fact{}, false
}

// catCovers and catTraits are the lexicon's [category covers] and
// [category traits]: what a category claim holds for besides its own value,
// and how some categories are read (lexicon.txt says each trait).
var catCovers, catTraits = func() (map[string]map[string]bool, map[string]map[string]bool) {
	covers := map[string]map[string]bool{}
	for _, l := range evidence.LangData.Lines("category covers") {
		if covers[l.Name] == nil {
			covers[l.Name] = map[string]bool{}
		}
		for _, w := range l.Words {
			covers[l.Name][w] = true
		}
	}
	traits := map[string]map[string]bool{}
	for _, l := range evidence.LangData.Lines("category traits") {
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
func catTrait(t string, c evidence.CatValue) bool {
	return catTraits[t][c.Class] || catTraits[t][c.Class+"/"+c.Value]
}

// statusFlag checks a status word against a true/false field named by it
// ("delivered": true, "is_shipped": false, "cancelled": true).
func (cx *claim) statusFlag(cm catMention, neg bool) (fact, bool) {
	ix := cx.ix
	var best int32 = -1
	bestOther, bestKeyNeg := false, false
	for _, l := range cx.inScopeOf(ix.Bools) {
		lf := &ix.Leaves[l]
		if cx.aboutOther(l) {
			continue
		}
		kc := evidence.CategoriesOf(strings.Join(lang.KeyParts(evidence.LastToken(lf.Ptr())), " "))
		named, other, keyNeg := false, false, false
		for _, c := range cm.cats {
			for _, k := range kc {
				if c.Class == k.Class && c.Value == k.Value {
					// a key stating the negation (is_overdue of paid) is
					// true when the value does not hold
					named, keyNeg = true, k.Neg
				}
				// Another state of the class, one that does not cover the
				// flag's or is covered by it ("disabled" of is_enabled,
				// 无效 of active, 审批中 of approved), is the flag's
				// negation: a class's values exclude each other.
				other = other || c.Class == k.Class && c.Value != k.Value &&
					!catCovers[c.Class+"/"+c.Value][k.Class+"/"+k.Value] && !catCovers[k.Class+"/"+k.Value][c.Class+"/"+c.Value]
			}
		}
		if (named || other) && (best < 0 || cx.inSubject(l) && !cx.inSubject(best) || ix.Leaves[best].Node < lf.Node && cx.inSubject(l) == cx.inSubject(best)) {
			best, bestOther, bestKeyNeg = l, other && !named, keyNeg && named
		}
	}
	if best < 0 {
		return fact{}, false
	}
	lf := &ix.Leaves[best]
	if bestOther != bestKeyNeg {
		neg = !neg
	}
	if (lf.B != lf.NegKey) != neg {
		f := supported(ix, "status flag matches", best)
		f.negUsed = true
		return f, true
	}
	return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(best)}, negUsed: true, reason: "status flag says " + lf.Raw()}, true
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
	for i, vm := range cx.values {
		if begun, noState, ok := cx.valueAspect(i); ok && !slices.ContainsFunc(vm, func(l int32) bool { return !ix.StateField(l) }) {
			if !noState {
				out = append(out, cx.verbAspectFact(vm, begun, negated)...)
			}
			continue // "is being built", "17 samples queued": no state of the subject
		}
		var in, outside []int32
		for _, l := range vm {
			if cx.inScope(l) {
				in = append(in, l)
			} else {
				outside = append(outside, l)
			}
		}
		if i := slices.IndexFunc(in, func(l int32) bool { return !ix.StateField(l) || !cx.aboutOther(l) }); i >= 0 {
			if negated && ix.StateField(in[i]) {
				out = append(out, fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(in[i])}, negUsed: true,
					reason: "negated, but the evidence says " + ix.Leaves[in[i]].Raw() + " at " + ix.Leaves[in[i]].Ptr()})
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
			key := evidence.LastToken(ix.Leaves[l].Ptr())
			for _, s := range cx.scopeLeaves(func(lf *evidence.Leaf) bool { return lf.Kind == evidence.KindStr && !lf.SubjKey }) {
				if evidence.LastToken(ix.Leaves[s].Ptr()) == key {
					if negated {
						// "B is no longer curing" beside B's status ready,
						// another row's curing: the subject's field holds
						// another value, as the negation says.
						f = supported(ix, "negated, and the field holds another value", s)
						f.negUsed = true
						break
					}
					f = fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(s)},
						reason: "evidence says " + ix.Leaves[s].Raw() + " at " + ix.Leaves[s].Ptr()}
					break
				}
			}
			if f.verdict != events.VerdictUnsupported {
				break
			}
		}
		out = append(out, f)
	}
	return out
}

// verbAspectFact checks a status value the claim names as a verb in an
// aspect (has finished loading, has started glazing, 尚未开始上桐油)
// against the subject's own field holding that value, a verb under way:
// begun agrees with it, done (has finished) disagrees, and a negation
// turns either. Another row's field of the value says nothing of the
// subject.
func (cx *claim) verbAspectFact(vm []int32, begun, negated bool) []fact {
	ix := cx.ix
	i := slices.IndexFunc(vm, func(l int32) bool { return cx.inScope(l) && !cx.aboutOther(l) })
	if i < 0 {
		return nil
	}
	l := vm[i]
	if begun != negated {
		f := supported(ix, "the status says the verb is under way", l)
		f.negUsed = negated
		return []fact{f}
	}
	return []fact{{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(l)}, negUsed: negated,
		reason: "the status says the verb is under way: " + ix.Leaves[l].Raw() + " at " + ix.Leaves[l].Ptr()}}
}

// countedBefore reports whether the state word at rune start follows a
// count and what it counts ("412 tests passed", "37 units passed
// inspection", 37件产品检验合格): the claim says how many things are in
// the state, not what state the subject is in. What it counts is one
// word, or the count's unit of count and the ideographs after it (units,
// 件产品检验). A number joined to a letter, digit or mark before it
// (RCT-0417, a model's number) is no count; an ideograph before it is a
// Chinese sentence's word (有37件). A number with no unit of count before
// ideographs (3号泵故障, 412项测试通过: 项 is no unit) and a head noun
// further away ("Lane 3 has a pinsetter fault") are not read as a count.
func (cx *claim) countedBefore(start int) bool {
	for i := range cx.nums {
		n := &cx.nums[i]
		if n.End > start || n.Unit != nil && n.Unit.Dim != evidence.DimCount {
			continue
		}
		if n.Start > 0 && cx.orig[n.Start-1] != ' ' && !lang.IsCJK(cx.orig[n.Start-1]) {
			continue
		}
		gap := cx.orig[n.End:start]
		switch {
		case n.Unit != nil && strings.TrimSpace(string(gap)) == "":
			return true // "37 units passed", 37件合格
		case n.Unit != nil && len(gap) <= 6 && !slices.ContainsFunc(gap, func(c rune) bool { return !lang.IsCJK(c) }):
			return true // 37件产品检验合格
		}
		words := strings.Fields(string(gap))
		if len(words) == 1 && !slices.ContainsFunc([]rune(words[0]), func(c rune) bool { return !unicode.IsLetter(c) || lang.IsCJK(c) }) {
			return true // "412 tests passed"
		}
	}
	return false
}

// amountFollows reports whether the word at rune start is followed, after
// spaces, by an amount of money the claim states ("paid €320", "refunded
// 20 元"): the word is then the verb of that amount, not a state of
// anything ("the courier is paid €320 a day" says nothing of a decision).
func (cx *claim) amountFollows(start int) bool {
	e := start
	for e < len(cx.orig) && unicode.IsLetter(cx.orig[e]) && !lang.IsCJK(cx.orig[e]) {
		e++
	}
	if e == start {
		return false
	}
	for e < len(cx.orig) && cx.orig[e] == ' ' {
		e++
	}
	for i := range cx.nums {
		n := &cx.nums[i]
		if n.Unit != nil && n.Unit.Dim == evidence.DimCurrency && n.Start >= e && n.Start <= e+4 {
			return true
		}
	}
	return false
}
