package check

import (
	"github.com/toolstream/toolstream/internal/lang"

	"math"
	"strconv"

	"github.com/toolstream/toolstream/events"
)

// quantified checks all / every / 都 / 全部, some / 部分 and only / 只 over
// the members of a collection (or the subjects named), checking the claim
// for each member on its own.
func (cx *claim) quantified() (fact, bool) {
	q := cx.cues & (cueUniversal | cueExistential | cueExclusive)
	if q == 0 {
		return fact{}, false
	}
	ix := cx.ix
	// "除了 HZ-302，其他房源都…", "all but one": every member but the
	// named one (or but one) holds, and the exception does not.
	except := cx.cues&cueExcept != 0 && q&cueUniversal != 0 && q&cueExclusive == 0
	plainNums := 0
	for _, m := range cx.nums {
		if !m.free {
			plainNums++
		}
	}
	if q&cueExclusive != 0 && (plainNums > 0 || len(cx.groups) != 1) && q&^cueExclusive == 0 {
		return fact{}, false // "only 3 left" is emphasis
	}
	var members [][]int32
	var own = -1
	switch {
	case len(cx.groups) >= 2 && q&cueExclusive == 0 && !except:
		members = cx.groups
	case len(cx.groups) == 0 && cx.scoped && len(cx.nodes) >= 2 && q&cueExclusive == 0:
		for _, n := range cx.nodes { // narrowed by date: the weekend's two days
			members = append(members, []int32{n})
		}
	default:
		cl, ok := cx.collection()
		if !ok {
			if q&cueUniversal != 0 && len(cx.groups) < 2 {
				return fact{verdict: events.VerdictUnsupported, reason: "the evidence covers only part of what the claim quantifies"}, true
			}
			return fact{}, false
		}
		for i, mb := range cl.members {
			members = append(members, []int32{mb})
			if len(cx.groups) == 1 && (q&cueExclusive != 0 || except) {
				for _, s := range cx.groups[0] {
					if ix.ancestorOf(mb, s) {
						own = i
					}
				}
			}
		}
	}
	// A number counting the members ("all 3 items", 两天都) is checked as
	// their count, not for each member.
	var nums []numMention
	var countFact fact
	exceptions := 1
	for _, m := range cx.nums {
		if except && len(cx.groups) == 0 && m.unit == nil && m.bound == 0 && !m.isRange && m.v >= 1 && m.v <= 9 && m.v == math.Trunc(m.v) {
			exceptions = int(m.v) // "all but two"
			continue
		}
		if !m.free && !m.isRange && m.bound == 0 && m.v == math.Trunc(m.v) && (m.unit == nil || m.unit.dim == dimCount || m.unit == uDay) && m.v >= 2 && m.v <= 20 && cx.countsMembers(m) {
			if int(m.v) == len(members) {
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
		fs := sub.facts()
		if q&cueExclusive == 0 && len(cx.groups) == 1 && own < 0 {
			// "Both items ship from Denver": each member must have the
			// value the claim named.
			fs = append(fs, cx.memberHas(mb[0], cx.groups[0]))
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
	case except && len(cx.groups) == 0:
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
	case q&cueExclusive != 0 && own >= 0:
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
	case q&cueUniversal != 0:
		if i := firstOf(events.VerdictContradicted); i >= 0 {
			return fact{verdict: events.VerdictContradicted, refs: verdicts[i].refs, reason: "fails for a member: " + verdicts[i].reason}, true
		}
		if i := firstOf(events.VerdictUnsupported); i >= 0 {
			return fact{verdict: events.VerdictUnsupported, reason: "unknown for a member"}, true
		}
		return all(), true
	default: // some
		if i := firstOf(events.VerdictSupported); i >= 0 {
			return fact{verdict: events.VerdictSupported, refs: verdicts[i].refs, reason: "holds for a member"}, true
		}
		if firstOf(events.VerdictUnsupported) < 0 {
			return fact{verdict: events.VerdictContradicted, refs: verdicts[0].refs, reason: "holds for no member"}, true
		}
		return fact{verdict: events.VerdictUnsupported, reason: "unknown for the members"}, true
	}
}

// memberHas checks that member holds the subject value group names (the
// value's field in another member contradicts it).
func (cx *claim) memberHas(member int32, group []int32) fact {
	ix := cx.ix
	for _, n := range group {
		if ix.ancestorOf(member, n) {
			if l := ix.subjectLeaf([]int32{n}, cx.firstName()); l >= 0 {
				return supported(ix, "has the named value", l)
			}
			return fact{verdict: events.VerdictSupported, reason: "has the named value"}
		}
	}
	if l := ix.subjectLeaf(group, cx.firstName()); l >= 0 {
		key := lastToken(ix.leaves[l].ptr())
		nd := &ix.nodes[member]
		for m := nd.leafLo; m < nd.leafHi; m++ {
			if lastToken(ix.leaves[m].ptr()) == key && ix.leaves[m].node == member {
				return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(m)}, reason: "a member has another value"}
			}
		}
	}
	return fact{verdict: events.VerdictUnsupported, reason: "a member lacks the named value"}
}

// collection finds the collection the quantifier ranges over: the one
// holding the named subject (only A …), else the first in scope whose
// members have fields the claim talks about.
func (cx *claim) collection() (coll, bool) {
	ix := cx.ix
	for _, cl := range ix.colls {
		if len(cx.groups) == 1 {
			for _, mb := range cl.members {
				for _, s := range cx.groups[0] {
					if ix.ancestorOf(mb, s) {
						return cl, true
					}
				}
			}
			continue
		}
		if cl.node >= 0 && !cx.nodeInScope(cl.node) {
			continue
		}
		if cl.node >= 0 && overlap(cx.concepts, ix.nodes[cl.node].concepts) > 0 {
			return cl, true // "all options", "所有座位": the list the claim names
		}
		concepts := cx.concepts
		for i := range cx.nums {
			concepts = append(concepts, cx.numberConcepts(&cx.nums[i])...)
		}
		hits := 0
		for _, mb := range cl.members {
			if len(cx.within([]int32{mb}).targets(concepts, func(*leaf) bool { return true })) > 0 || len(cx.cats) > 0 && cx.hasCat(mb) {
				hits++
			}
		}
		if hits*2 >= len(cl.members) && hits > 0 {
			return cl, true
		}
	}
	return coll{}, false
}

func (cx *claim) hasCat(n int32) bool {
	for _, l := range cx.ix.cats {
		if cx.ix.inNode(l, n) {
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
		if l := enLex[c]; l != nil && l.cues&(cueStop|cueNonAssert) != 0 && len(l.concepts) == 0 {
			continue
		}
		if r := []rune(c); len(r) == 1 && lang.IsCJK(r[0]) {
			continue // a lone unknown ideograph says too little
		}
		content = append(content, c)
	}
	if len(content) == 0 {
		if cx.cues&cueNonAssert != 0 || len(cx.groups) == 0 {
			return verdict{verdict: events.VerdictNotCheckable, reason: "states nothing checkable", undecided: cx.cues&cueNonAssert == 0 && len(cx.words) > 3}
		}
		return verdict{verdict: events.VerdictNotCheckable, reason: "names a subject only"}
	}
	if cx.cues&cueNonAssert != 0 {
		return verdict{verdict: events.VerdictNotCheckable, reason: "an opinion or remark"}
	}
	found, value := 0, int32(-1)
	if len(cx.groups) > 0 {
		value = ix.subjectLeaf(cx.groups[0], cx.firstName())
	}
	named := value >= 0 // the value is the subject's name, not a state
	for _, c := range content {
		hit := false
		if in := cx.inScopeOf(ix.valueWords(c)); len(in) > 0 {
			hit = true
			if value < 0 {
				value = in[0]
			}
		}
		if !hit {
			hit = len(cx.inScopeOf(ix.concept(c))) > 0
		}
		if hit {
			found++
		}
	}
	if value >= 0 && !named && found*3 >= len(content)*2 && (cx.negs-cx.negLex)%2 == 1 && !saysNot(ix.leaves[value].raw()) {
		// 报告还没出来 beside 报告状态: 已出报告: the same words, negated
		// where the evidence's are not, are no support; what they say is
		// left to the judge.
		return verdict{verdict: events.VerdictUnsupported, refs: []events.EvidenceRef{ix.ref(value)}, reason: "the evidence says the same words; the claim negates them", undecided: true}
	}
	if value >= 0 && found*3 >= len(content)*2 {
		return verdict{verdict: events.VerdictSupported, refs: []events.EvidenceRef{ix.ref(value)}, reason: "the evidence says the same words", undecided: true}
	}
	return verdict{verdict: events.VerdictUnsupported, reason: "nothing in the evidence says this", undecided: true}
}

// saysNot reports whether an evidence text holds a negation ("no
// injuries", 没有人员伤亡): a negated claim may repeat it.
func saysNot(s string) bool {
	for _, w := range claimWords([]rune(s)) {
		if w.info != nil && w.info.cues&cueNeg != 0 && w.info.cues&cuePlain == 0 {
			return true
		}
	}
	return false
}
