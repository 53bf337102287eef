package check

import (
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
	"math"
	"slices"
	"strconv"
)

// quantified checks all / every / 都 / 全部, some / 部分, none / no /
// 没有任何 / 均未 and only / 只 over the members of a collection (or the
// subjects named), checking the claim for each member on its own. A
// negative quantifier is "some" denied: the claim without its negation is
// checked for each member, and a member it holds for (a row whose state
// field holds the state) contradicts it.
func (cx *claim) quantified() (fact, bool) {
	q := cx.cues & (evidence.CueUniversal | evidence.CueExistential | evidence.CueExclusive | evidence.CueNone)
	if q == 0 {
		return fact{}, false
	}
	// A claim naming its subject ("Rome gets no rain") says no of it,
	// not of the rows.
	none := q&evidence.CueNone != 0 && cx.negs > 0 && len(cx.Groups) == 0
	switch {
	case none:
		q = evidence.CueNone
	case q == evidence.CueNone:
		return fact{}, false
	default:
		q &^= evidence.CueNone
	}
	ix := cx.ix
	// "除了 HZ-302，其他房源都…", "all but one": every member but the
	// named one (or but one) holds, and the exception does not.
	except := cx.cues&evidence.CueExcept != 0 && q&evidence.CueUniversal != 0 && q&evidence.CueExclusive == 0
	plainNums := 0
	for _, m := range cx.nums {
		if !m.Free {
			plainNums++
		}
	}
	if q&evidence.CueExclusive != 0 && (plainNums > 0 || len(cx.Groups) != 1) && q&^evidence.CueExclusive == 0 {
		return fact{}, false // "only 3 left" is emphasis
	}
	var members [][]int32
	var own = -1
	switch {
	case len(cx.Groups) >= 2 && q&evidence.CueExclusive == 0 && !except:
		members = cx.Groups
	case len(cx.Groups) == 0 && cx.scoped && len(cx.nodes) >= 2 && q&evidence.CueExclusive == 0:
		for _, n := range cx.nodes { // narrowed by date: the weekend's two days
			members = append(members, []int32{n})
		}
	default:
		cl, ok := cx.collection()
		if !ok {
			if q&evidence.CueUniversal != 0 && len(cx.Groups) < 2 {
				return fact{verdict: events.VerdictUnsupported, reason: "the evidence covers only part of what the claim quantifies"}, true
			}
			return fact{}, false
		}
		if q == evidence.CueUniversal && !except && cx.universalOfRow(cl) {
			return fact{}, false // 红糖馒头全部卖完了: of that row's stock, read as any claim of it
		}
		for i, mb := range cl.Members {
			members = append(members, []int32{mb})
			if len(cx.Groups) == 1 && (q&evidence.CueExclusive != 0 || except) {
				for _, s := range cx.Groups[0] {
					if ix.AncestorOf(mb, s) {
						own = i
					}
				}
			}
		}
	}
	// A number counting the members ("all 3 items", 两天都) is checked as
	// their count, not for each member.
	var nums []evidence.NumMention
	var countFact fact
	exceptions := 1
	for _, m := range cx.nums {
		if except && len(cx.Groups) == 0 && m.Unit == nil && m.Bound == 0 && !m.IsRange && m.V >= 1 && m.V <= 9 && m.V == math.Trunc(m.V) {
			exceptions = int(m.V) // "all but two"
			continue
		}
		if !m.Free && !m.IsRange && m.Bound == 0 && m.V == math.Trunc(m.V) && (m.Unit == nil || m.Unit.Dim == evidence.DimCount || m.Unit == evidence.UDay) && m.V >= 2 && (m.V <= 20 || none && int(m.V) == len(members)) && cx.countsMembers(m, q) {
			if int(m.V) == len(members) {
				countFact = fact{verdict: events.VerdictSupported, reason: "count of members"}
			} else {
				countFact = fact{verdict: events.VerdictContradicted, reason: "the evidence has " + strconv.Itoa(len(members))}
			}
			continue
		}
		nums = append(nums, m)
	}
	if countFact.verdict == events.VerdictContradicted {
		return countFact, true
	}
	verdicts := make([]verdict, len(members))
	for i, mb := range members {
		sub := cx.member(mb, nums)
		if none {
			sub.reading.negs-- // the quantifier's own negation: "was cancelled" of each
		}
		fs := sub.facts()
		if q&(evidence.CueExclusive|evidence.CueNone) == 0 && len(cx.Groups) == 1 && own < 0 {
			// "Both items ship from Denver": each member must have the
			// value the claim named.
			fs = append(fs, cx.memberHas(mb[0], cx.Groups[0]))
		}
		if len(fs) == 0 {
			verdicts[i] = verdict{verdict: events.VerdictUnsupported}
			continue
		}
		verdicts[i] = sub.combine(fs)
	}
	firstOf := func(want events.Verdict) int {
		for i, v := range verdicts {
			if v.verdict == want {
				return i
			}
		}
		return -1
	}
	all := func() fact {
		f := fact{verdict: events.VerdictSupported, reason: "holds for every member"}
		for _, v := range verdicts {
			if len(v.refs) > 0 && len(f.refs) < cx.c.cfg.EvidenceRefsMax {
				f.refs = append(f.refs, v.refs[0])
			}
		}
		return f
	}
	switch {
	case except && own >= 0:
		for i, v := range verdicts {
			if i != own && v.verdict != events.VerdictSupported {
				if v.verdict == events.VerdictContradicted {
					return fact{verdict: events.VerdictContradicted, refs: v.refs, reason: "fails for a member: " + v.reason}, true
				}
				return fact{verdict: events.VerdictUnsupported, reason: "unknown for a member"}, true
			}
		}
		if verdicts[own].verdict == events.VerdictSupported {
			return fact{verdict: events.VerdictContradicted, refs: verdicts[own].refs, reason: "the exception holds too"}, true
		}
		f := all()
		f.reason = "holds for every member but the exception"
		return f, true
	case except && len(cx.Groups) == 0:
		fails := 0
		for _, v := range verdicts {
			switch v.verdict {
			case events.VerdictContradicted:
				fails++
			case events.VerdictUnsupported:
				return fact{verdict: events.VerdictUnsupported, reason: "unknown for a member"}, true
			}
		}
		if fails != exceptions {
			return fact{verdict: events.VerdictContradicted, reason: strconv.Itoa(fails) + " members fail, not " + strconv.Itoa(exceptions)}, true
		}
		f := all()
		f.reason = "holds for all but " + strconv.Itoa(exceptions)
		return f, true
	case q&evidence.CueExclusive != 0 && own >= 0:
		if verdicts[own].verdict != events.VerdictSupported {
			v := verdicts[own]
			return fact{verdict: v.verdict, refs: v.refs, reason: v.reason}, true
		}
		for i, v := range verdicts {
			if i != own && v.verdict == events.VerdictSupported {
				return fact{verdict: events.VerdictContradicted, refs: v.refs, reason: "not the only one"}, true
			}
		}
		return fact{verdict: events.VerdictSupported, refs: verdicts[own].refs, reason: "holds for it alone"}, true
	case q&evidence.CueUniversal != 0:
		if i := firstOf(events.VerdictContradicted); i >= 0 {
			return fact{verdict: events.VerdictContradicted, refs: verdicts[i].refs, reason: "fails for a member: " + verdicts[i].reason}, true
		}
		if i := firstOf(events.VerdictUnsupported); i >= 0 {
			return fact{verdict: events.VerdictUnsupported, reason: "unknown for a member"}, true
		}
		return all(), true
	case none:
		if firstOf(events.VerdictSupported) < 0 && firstOf(events.VerdictContradicted) < 0 {
			// No member's fields say anything of it ("no alerts" of a
			// list of alerts): the claim is read as a whole, as before.
			return fact{}, false
		}
		f := cx.some(verdicts)
		switch f.verdict {
		case events.VerdictSupported:
			f.verdict = events.VerdictContradicted
		case events.VerdictContradicted:
			f.verdict = events.VerdictSupported
		}
		return f, true
	default:
		return cx.some(verdicts), true
	}
}

// some decides "some member" from each member's verdict: supported when
// it holds for one, contradicted when it fails for every one (a negative
// quantifier is its denial).
func (cx *claim) some(verdicts []verdict) fact {
	for _, v := range verdicts {
		if v.verdict == events.VerdictSupported {
			return fact{verdict: events.VerdictSupported, refs: v.refs, reason: "holds for a member"}
		}
	}
	for _, v := range verdicts {
		if v.verdict == events.VerdictUnsupported {
			return fact{verdict: events.VerdictUnsupported, reason: "unknown for the members"}
		}
	}
	return fact{verdict: events.VerdictContradicted, refs: verdicts[0].refs, reason: "holds for no member"}
}

// universalOfRow reports whether the claim's universal word (全部, 都,
// "all") follows the one subject it names, and that subject is one member
// of cl alone ("红糖馒头全部卖完了", "the rye loaf is all sold out"): the
// word quantifies that row's stock or work, not the members of cl, whose
// other names would contradict it. A value named after the word ("都从上海
// 发货", "both ship from Denver") or held by several members is not this.
func (cx *claim) universalOfRow(cl evidence.Coll) bool {
	if len(cx.Groups) != 1 || len(cx.Spans) != 1 || cx.Spans[0][0] < 0 {
		return false
	}
	at := -1
	for i := range cx.words {
		if cx.words[i].Cues()&evidence.CueUniversal != 0 {
			at = cx.words[i].Start
			break
		}
	}
	if at < cx.Spans[0][1] {
		return false
	}
	holders := 0
	for _, mb := range cl.Members {
		if slices.ContainsFunc(cx.Groups[0], func(s int32) bool { return cx.ix.AncestorOf(mb, s) || mb == s }) {
			holders++
		}
	}
	return holders == 1
}

// memberHas checks that member holds the subject value group names (the
// value's field in another member contradicts it).
func (cx *claim) memberHas(member int32, group []int32) fact {
	ix := cx.ix
	for _, n := range group {
		if ix.AncestorOf(member, n) {
			if l := ix.SubjectLeaf([]int32{n}, cx.firstName()); l >= 0 {
				return supported(ix, "has the named value", l)
			}
			return fact{verdict: events.VerdictSupported, reason: "has the named value"}
		}
	}
	if l := ix.SubjectLeaf(group, cx.firstName()); l >= 0 {
		key := evidence.LastToken(ix.Leaves[l].Ptr())
		nd := &ix.Nodes[member]
		for m := nd.LeafLo; m < nd.LeafHi; m++ {
			if evidence.LastToken(ix.Leaves[m].Ptr()) == key && ix.Leaves[m].Node == member {
				return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(m)}, reason: "a member has another value"}
			}
		}
	}
	return fact{verdict: events.VerdictUnsupported, reason: "a member lacks the named value"}
}

// collection finds the collection the quantifier ranges over: the one
// holding the named subject (only A …), else the first in scope whose
// members have fields the claim talks about.
func (cx *claim) collection() (evidence.Coll, bool) {
	ix := cx.ix
	for _, cl := range ix.Colls {
		if len(cx.Groups) == 1 {
			for _, mb := range cl.Members {
				for _, s := range cx.Groups[0] {
					if ix.AncestorOf(mb, s) {
						return cl, true
					}
				}
			}
			continue
		}
		if cl.Node >= 0 && !cx.nodeInScope(cl.Node) {
			continue
		}
		if cl.Node >= 0 && overlap(cx.concepts, ix.Nodes[cl.Node].Concepts) > 0 {
			return cl, true // "all options", "所有座位": the list the claim names
		}
		concepts := cx.concepts
		for i := range cx.nums {
			concepts = append(concepts, cx.numberConcepts(&cx.nums[i])...)
		}
		hits := 0
		for _, mb := range cl.Members {
			if len(cx.within([]int32{mb}).targets(concepts, func(*evidence.Leaf) bool { return true })) > 0 || len(cx.cats) > 0 && cx.hasCat(mb) {
				hits++
			}
		}
		if hits*2 >= len(cl.Members) && hits > 0 {
			return cl, true
		}
	}
	return evidence.Coll{}, false
}

func (cx *claim) hasCat(n int32) bool {
	for _, l := range cx.ix.Cats {
		if cx.ix.InNode(l, n) {
			return true
		}
	}
	return false
}

// coverage decides a claim with no number, date, polarity or status: by
// how many of its content words the evidence in scope has. Such verdicts
// are weak and left to a judge when one is configured.
func (cx *claim) coverage() verdict {
	ix := cx.ix
	if cx.unknown != "" {
		return verdict{verdict: events.VerdictUnsupported, reason: "the evidence does not know " + strconv.Quote(cx.unknown)}
	}
	var content []string
	for _, c := range cx.concepts {
		if l := evidence.EnLex[c]; l != nil && l.Cues&(evidence.CueStop|evidence.CueNonAssert) != 0 && len(l.Concepts) == 0 {
			continue
		}
		if r := []rune(c); len(r) == 1 && lang.IsCJK(r[0]) {
			continue // a lone unknown ideograph says too little
		}
		content = append(content, c)
	}
	if len(content) == 0 {
		if cx.cues&evidence.CueNonAssert != 0 || len(cx.Groups) == 0 {
			return verdict{verdict: events.VerdictNotCheckable, reason: "states nothing checkable", undecided: cx.cues&evidence.CueNonAssert == 0 && len(cx.words) > 3}
		}
		return verdict{verdict: events.VerdictNotCheckable, reason: "names a subject only"}
	}
	if cx.cues&evidence.CueNonAssert != 0 {
		return verdict{verdict: events.VerdictNotCheckable, reason: "an opinion or remark"}
	}
	found, value := 0, int32(-1)
	if len(cx.Groups) > 0 {
		value = ix.SubjectLeaf(cx.Groups[0], cx.firstName())
	}
	named := value >= 0 // the value is the subject's name, not a state
	for _, c := range content {
		hit := false
		if in := cx.inScopeOf(ix.ValueWords(c)); len(in) > 0 {
			hit = true
			if value < 0 {
				value = in[0]
			}
		}
		if !hit {
			hit = len(cx.inScopeOf(ix.Concept(c))) > 0
		}
		if hit {
			found++
		}
	}
	if value >= 0 && !named && found*3 >= len(content)*2 && (cx.negs-cx.negLex)%2 == 1 && !saysNot(ix.Leaves[value].Raw()) {
		// 报告还没出来 beside 报告状态: 已出报告: the same words, negated
		// where the evidence's are not, are no support; what they say is
		// left to the judge.
		return verdict{verdict: events.VerdictUnsupported, refs: []events.EvidenceRef{ix.Ref(value)}, reason: "the evidence says the same words; the claim negates them", undecided: true}
	}
	if value >= 0 && found*3 >= len(content)*2 {
		return verdict{verdict: events.VerdictSupported, refs: []events.EvidenceRef{ix.Ref(value)}, reason: "the evidence says the same words", undecided: true}
	}
	return verdict{verdict: events.VerdictUnsupported, reason: "nothing in the evidence says this", undecided: true}
}

// saysNot reports whether an evidence text holds a negation ("no
// injuries", 没有人员伤亡): a negated claim may repeat it.
func saysNot(s string) bool {
	for _, w := range evidence.ClaimWords([]rune(s)) {
		if w.Info != nil && w.Info.Cues&evidence.CueNeg != 0 && w.Info.Cues&evidence.CuePlain == 0 {
			return true
		}
	}
	return false
}
