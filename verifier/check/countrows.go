package check

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// countRowsMax is the largest count a claim may state of the members of a
// list that meet its condition ("two vats are still fermenting"): larger
// numbers are amounts more often than counts of rows.
const countRowsMax = 50

// countedMembersMax is the most members a list may have for its members
// meeting a claim's condition to be counted: the claim is checked once for
// each, and a longer list is left to the other checks.
const countedMembersMax = 200

// countedRows decides a claim that counts the members of a list meeting
// its condition ("Two of the tanks are in use", 有两个孩子还没缴费,
// "Harriet has two orders"): the claim without its count is checked for
// each member of the list it ranges over, and the members it holds for
// are counted. A count a field of the evidence already bears out ("South
// has 3 spaces") is left to the number check. It decides only when every
// member's verdict is known: supported when the count is the claim's;
// contradicted only when the counted set is unambiguous — one list the
// claim's words name, no subject named, every member decided with
// confidence, and the condition met by some members and failed by others
// (a condition met by all or none may be misread).
func (cx *claim) countedRows() (fact, bool) {
	if cx.cues&(evidence.CueUniversal|evidence.CueNone|evidence.CueExclusive|evidence.CueExcept|evidence.CueModal|evidence.CueDerive) != 0 || len(cx.Groups) > 1 {
		return fact{}, false
	}
	count, whole := -1, -1
	nums := cx.nums
	if p, ok := cx.partCount(); ok {
		// "Two of the four kilns": the number word before "of" is the count.
		nums = append([]evidence.NumMention{p}, nums...)
	}
	var rest []evidence.NumMention
	for i := range nums {
		m := &nums[i]
		if m.Free {
			rest = append(rest, *m)
			continue
		}
		if m.IsRange || m.Bound != 0 || m.V != math.Trunc(m.V) || m.V < 1 || m.V > countRowsMax || m.Unit != nil && m.Unit.Dim != evidence.DimCount {
			return fact{}, false
		}
		switch {
		case count < 0:
			count = i
		case whole < 0 && (count == 0 && len(nums) > len(cx.nums) || len(cx.pairMates(&nums[count])) > 0):
			whole = i // "three of the five pumps": the whole is the list
		default:
			return fact{}, false
		}
	}
	if count < 0 {
		return fact{}, false
	}
	if whole >= 0 && nums[count].V > nums[whole].V {
		count, whole = whole, count // 四个人里三人: the whole first
	}
	m := &nums[count]
	colls := cx.countedColls(m)
	if len(colls) == 0 {
		return fact{}, false
	}
	cl := colls[0]
	if len(cl.Members) > countedMembersMax {
		return fact{}, false
	}
	if whole >= 0 && int(nums[whole].V) != len(cl.Members) {
		return fact{}, false
	}
	lengthOnly := false
	if f := cx.checkNumber(m); f.verdict == events.VerdictSupported && whole < 0 {
		if lengthOnly = cx.lengthOf(f, cl); !lengthOnly {
			return fact{}, false // a field says it; the list's own length is no such field
		}
	}
	holds, fails, weak := 0, 0, false
	var refs []events.EvidenceRef
	if cl.Node >= 0 {
		refs = append(refs, cx.ix.NodeRef(cl.Node, strconv.Itoa(len(cl.Members))))
	}
	for _, mb := range cl.Members {
		v, ok := cx.memberMeets(mb, rest)
		if !ok {
			return fact{}, false // nothing says whether this member meets it
		}
		weak = weak || v.undecided
		switch v.verdict {
		case events.VerdictSupported:
			holds++
			if len(v.refs) > 0 && len(refs) < cx.c.cfg.EvidenceRefsMax {
				refs = append(refs, v.refs[0])
			}
		case events.VerdictContradicted:
			fails++
		default:
			return fact{}, false
		}
	}
	n := int(m.V)
	of := strconv.Itoa(holds) + " of " + strconv.Itoa(len(cl.Members)) + " members meet the condition"
	switch {
	case len(cx.Groups) == 1 && holds < 2:
		// One row names the subject: the count is a field of that row, or
		// of something the evidence does not list.
		return fact{}, false
	case holds == n && lengthOnly && holds == len(cl.Members):
		return fact{}, false // every member: the list's length says it
	case holds == n:
		return fact{verdict: events.VerdictSupported, refs: refs, reason: of}, true
	case len(colls) == 1 && len(cx.Groups) == 0 && !weak && holds > 0 && fails > 0:
		return fact{verdict: events.VerdictContradicted, refs: refs[:min(1, len(refs))], reason: "the evidence has " + of}, true
	}
	return fact{}, false
}

// partCount reads an English number word the claim's numbers do not hold
// because a part/whole word follows it ("Two of the kilns", "three out
// of five"): the count of a part of a list.
func (cx *claim) partCount() (evidence.NumMention, bool) {
	for i := 0; i+1 < len(cx.words); i++ {
		w := &cx.words[i]
		v, ok := evidence.LangData.NumberWord(w.S)
		if !ok || w.Cjk || v < 2 || !slices.Contains(partWholeEn, strings.ToLower(cx.words[i+1].S)) && !(cx.words[i+1].S == "out" && i+2 < len(cx.words) && cx.words[i+2].S == "of") {
			continue
		}
		if slices.ContainsFunc(cx.nums, func(m evidence.NumMention) bool { return m.Start <= w.Start && w.Start < m.End }) {
			continue
		}
		return evidence.NumMention{Start: w.Start, End: w.End, V: v, Hi: v, Mag: 1}, true
	}
	return evidence.NumMention{}, false
}

// lengthOf reports whether fact f rests on the length of list cl alone:
// "three permits are approved" beside three permits says how many are
// approved, not how many there are.
func (cx *claim) lengthOf(f fact, cl evidence.Coll) bool {
	if cl.Node < 0 || len(f.refs) == 0 {
		return false
	}
	ptr := cx.ix.NodeRef(cl.Node, "").Pointer
	for _, r := range f.refs {
		if r.Pointer != ptr {
			return false
		}
	}
	return true
}

// memberMeets checks the claim, without its count, for one member: a
// claim naming a subject holds for the members holding it; otherwise the
// member's facts decide, and a member no fact is found for is unknown.
func (cx *claim) memberMeets(mb int32, nums []evidence.NumMention) (verdict, bool) {
	named := false
	if len(cx.Groups) == 1 {
		for _, s := range cx.Groups[0] {
			if cx.ix.AncestorOf(mb, s) || s == mb {
				named = true
			}
		}
		if !named {
			return verdict{verdict: events.VerdictContradicted}, true
		}
	}
	sub := cx.member([]int32{mb}, nums)
	fs := sub.facts()
	if len(fs) == 0 {
		if named {
			return verdict{verdict: events.VerdictSupported}, true
		}
		return verdict{}, false
	}
	return sub.combine(fs), true
}

// countedColls returns the lists a count may be of: those whose key (or
// the key of the object holding them) shares a concept with the claim or
// the count's noun, or whose members the noun names; with a named
// subject, the list holding it.
func (cx *claim) countedColls(m *evidence.NumMention) []evidence.Coll {
	ix := cx.ix
	concepts := append(append([]string(nil), cx.concepts...), m.Head...)
	var out []evidence.Coll
	for _, cl := range ix.Colls {
		if len(cl.Members) < 2 || cl.Node < 0 || !cx.nodeInScope(cl.Node) && len(cx.Groups) == 0 {
			continue
		}
		if len(cx.Groups) == 1 {
			for _, mb := range cl.Members {
				for _, s := range cx.Groups[0] {
					if ix.AncestorOf(mb, s) || s == mb {
						return []evidence.Coll{cl}
					}
				}
			}
			continue
		}
		nc := ix.Nodes[cl.Node].Concepts
		if p := ix.Nodes[cl.Node].Parent; p >= 0 {
			nc = append(append([]string(nil), nc...), ix.Nodes[p].Concepts...)
		}
		if overlap(concepts, nc) > 0 || ix.MembersNamed(cl.Node, m.HeadWord) {
			out = append(out, cl)
		}
	}
	return out
}
