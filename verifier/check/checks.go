package check

import (
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
	"slices"
	"strconv"
)

// fact is the verdict on one checkable part of a claim: a number, a date, a
// polarity, a status, a named value, a comparison or a quantifier.
type fact struct {
	verdict events.Verdict // "" when the part says nothing checkable
	refs    []events.EvidenceRef
	reason  string
	weak    bool // decided without confidence: a judge may decide instead
	soft    bool // dropped when the claim has other facts
	leaves  []int32
	negUsed bool   // the fact read the claim's negation: no later check reads it again
	span    [2]int // runes of the claim the fact decided (an identifier), if any
	unknown bool   // the claim names an identifier the evidence does not know
}

// verdict is a claim's decided verdict.
type verdict struct {
	verdict   events.Verdict
	refs      []events.EvidenceRef
	reason    string
	undecided bool
	leaves    []int32 // the fields that support it
}

// check is one kind of fact a claim may state. run returns the facts it
// finds; earlier holds the facts the checks before it found.
type check struct {
	name string
	run  func(cx *claim, earlier []fact) []fact
}

// checks are run in this order. Five read the facts before them:
// numbers (a "free" decided by a flag before it is not a price to find),
// times and values (a negation a polarity or status fact read is not the
// date's or the value's), negated states (only a claim nothing else
// decided) and
// text (the fields the facts before it were matched to).
var checks = []check{
	{"unknown identifier", (*claim).unknownFacts},
	{"identifiers", (*claim).codeFacts},
	{"polarity", (*claim).polarityFacts},
	{"status", alone((*claim).categoryFacts)},
	{"aspect", alone((*claim).aspectFacts)},
	{"outcome", (*claim).failureFacts},
	{"numbers", (*claim).numberFacts},
	{"times", (*claim).timeFacts},
	{"values", (*claim).valueFacts},
	{"attributes", (*claim).attributeFacts},
	{"negated states", (*claim).stateValueFacts},
	{"plain values", (*claim).plainValueFacts},
	{"comparison", one((*claim).comparison)},
	{"superlative", one((*claim).superlative)},
	{"trend", one((*claim).trend)},
	{"direction", one((*claim).directionFact)},
	{"text", (*claim).textFacts},
	{"generalisation", (*claim).alwaysFacts},
}

// alone adapts a check that needs no earlier facts; one, a check that
// also finds at most one.
func alone(f func(*claim) []fact) func(*claim, []fact) []fact {
	return func(cx *claim, _ []fact) []fact { return f(cx) }
}

func one(f func(*claim) fact) func(*claim, []fact) []fact {
	return func(cx *claim, _ []fact) []fact {
		if f := f(cx); f.verdict != "" {
			return []fact{f}
		}
		return nil
	}
}

// decide gives the claim its verdict: not checkable (a question, an offer,
// a remark), else a quantifier over the members of a collection, else the
// facts of the checks, else (no fact) how much of the claim's words the
// evidence has.
func (cx *claim) decide() verdict {
	switch {
	case cx.question:
		return verdict{verdict: events.VerdictNotCheckable, reason: "a question"}
	case cx.cues&evidence.CueOffer != 0:
		return verdict{verdict: events.VerdictNotCheckable, reason: "an offer of help"}
	case cx.cues&evidence.CueNonAssert != 0 && len(cx.times) == 0 && !slices.ContainsFunc(cx.nums, func(m evidence.NumMention) bool { return !m.Free }):
		return verdict{verdict: events.VerdictNotCheckable, reason: "a greeting, opinion or remark"}
	}
	var facts []fact
	if f, ok := cx.quantified(); ok {
		facts = []fact{f}
	} else if f, ok := cx.countedRows(); ok {
		facts = []fact{f}
	} else {
		facts = cx.facts()
	}
	if len(facts) == 0 {
		return cx.coverage()
	}
	v := cx.combine(facts)
	if v.verdict == events.VerdictSupported && cx.own {
		// The fields naming what the claim is about belong to its evidence.
		for i := range cx.Groups {
			if l := cx.ix.SubjectLeaf(cx.Groups[i], cx.Names[i]); l >= 0 && len(v.refs) < cx.c.cfg.EvidenceRefsMax {
				if r := cx.ix.Ref(l); !slices.Contains(v.refs, r) {
					v.refs = append(v.refs, r)
				}
			}
		}
	}
	return v
}

// facts runs the checks. A promise (definitely, 一定) over an estimate is
// unsupported; soft facts count only when there is no other.
func (cx *claim) facts() []fact {
	var fs []fact
	for _, ch := range checks {
		for _, f := range ch.run(cx, fs) {
			if f.verdict != "" {
				fs = append(fs, f)
			}
		}
	}
	if cx.cues&evidence.CueCertain != 0 {
		fs = cx.certainty(fs)
	}
	if cx.cues&evidence.CueModal != 0 {
		// "may be approved", 可能已批准: modality is read before comparing;
		// a possibility the evidence does not bear out is unsupported.
		for i := range fs {
			if fs[i].verdict == events.VerdictContradicted {
				fs[i].verdict, fs[i].reason, fs[i].weak = events.VerdictUnsupported, "said as a possibility; "+fs[i].reason, true
			}
		}
	}
	if cx.rowUnnamed {
		// "The third pitch was 97 mph" beside rows of throws: the claim is
		// about one row, and nothing says which; a field that differs may
		// be another row's, so it contradicts nothing. A value it has is
		// still found ("the first available slot is at 3 pm").
		for i := range fs {
			if fs[i].verdict == events.VerdictContradicted {
				fs[i].verdict, fs[i].weak = events.VerdictUnsupported, true
				fs[i].reason = "an ordinal names a row the evidence does not single out; " + fs[i].reason
			}
		}
	}
	cx.excerptFacts(fs)
	if hard := slices.ContainsFunc(fs, func(f fact) bool { return !f.soft }); hard {
		fs = slices.DeleteFunc(fs, func(f fact) bool { return f.soft })
	}
	return fs
}

// combine reduces a claim's facts to one verdict: any contradiction wins,
// then anything unsupported, else supported.
func (cx *claim) combine(facts []fact) verdict {
	var out verdict
	for _, want := range []events.Verdict{events.VerdictContradicted, events.VerdictUnsupported, events.VerdictSupported} {
		for _, f := range facts {
			if f.verdict != want {
				continue
			}
			if out.verdict == "" {
				out.verdict, out.reason = want, f.reason
				out.undecided = f.weak
			}
			out.undecided = out.undecided && f.weak
			if want == events.VerdictSupported {
				out.leaves = append(out.leaves, f.leaves...)
			}
			for _, r := range f.refs {
				if len(out.refs) < cx.c.cfg.EvidenceRefsMax && !slices.Contains(out.refs, r) {
					out.refs = append(out.refs, r)
				}
			}
		}
		if out.verdict != "" {
			return out
		}
	}
	return out
}

// unknownFacts: an identifier the evidence does not know ("Item C" when
// only A and B were returned).
func (cx *claim) unknownFacts([]fact) []fact {
	if cx.unknown == "" {
		return nil
	}
	return []fact{{verdict: events.VerdictUnsupported, reason: "the evidence does not know " + strconv.Quote(cx.unknown), unknown: true}}
}

// polarityFacts checks a state now (in stock, refundable, 没有预警); a
// claim with a number, a date other than today or a future is about those
// ("back in stock on May 10").
func (cx *claim) polarityFacts([]fact) []fact {
	for i := range cx.nums {
		if !cx.nums[i].Free {
			return nil
		}
	}
	if !cx.onlyToday() || cx.cues&evidence.CueFuture != 0 {
		return nil
	}
	for _, cm := range cx.cats {
		if _, ok := cx.statusFlag(cm, false); ok {
			return nil // a flag the claim's state names (无效 of active): the status check reads it
		}
	}
	if fs := cx.boolFacts(); len(fs) > 0 {
		return fs
	}
	return cx.pendingFacts()
}

// onlyToday reports whether the claim's dates, if any, are all the day of
// the answer, with no time of day or bound ("Pip was not flown today"): a
// state now, which the polarity check reads; the date is then checked
// as it is said, not negated.
func (cx *claim) onlyToday() bool {
	today := evidence.DayOf(cx.now)
	for i := range cx.times {
		te := &cx.times[i]
		if te.Clock >= 0 || te.Bound != 0 || te.OnlyClock || te.Lo != today || te.Hi != today {
			return false
		}
	}
	return true
}

// numberFacts checks each number; a "free" nothing supports is dropped
// when a fact before it decided the claim ("free shipping" decided by a
// free_shipping flag), and so is a contradiction of a claim about an
// identifier the evidence does not know: the number it differs from is
// another's (an order past the excerpt of a large result, one never
// returned).
func (cx *claim) numberFacts(earlier []fact) []fact {
	var out []fact
	for i := 0; i < len(cx.nums); i++ {
		m := &cx.nums[i]
		if slices.ContainsFunc(earlier, func(f fact) bool { return f.span[1] > 0 && m.Start >= f.span[0] && m.Start < f.span[1] }) {
			continue // an identifier (room 512), decided
		}
		if cx.proportionAt(i) {
			// "4 in 5 customers": one share, N/M (proportion.go).
			out = append(out, cx.checkProportion(m, &cx.nums[i+1]))
			i++
			continue
		}
		if n, ok := cx.numeratorWord(m); ok {
			out = append(out, cx.checkProportion(&n, m)) // "four in five"
			continue
		}
		f := cx.checkNumber(m)
		if m.Free && f.verdict == events.VerdictUnsupported && len(earlier) > 0 {
			continue
		}
		if f.verdict == events.VerdictContradicted && slices.ContainsFunc(earlier, func(f fact) bool { return f.unknown }) {
			continue // about what the evidence does not know: another's number says nothing of it
		}
		out = append(out, f)
	}
	return out
}

// timeFacts checks each date. "not on May 3" negates the date unless a
// fact before it read the negation; "fully booked on May 3" (约满) is a
// state on that date and leaves it as it is.
func (cx *claim) timeFacts(earlier []fact) []fact {
	negated := (cx.negs-cx.negLex)%2 == 1 && !slices.ContainsFunc(earlier, func(f fact) bool { return f.negUsed })
	var out []fact
	for i := range cx.times {
		f := cx.checkTime(&cx.times[i])
		if negated && f.verdict != "" {
			switch f.verdict {
			case events.VerdictSupported:
				f.verdict, f.reason = events.VerdictUnsupported, "negated, but "+f.reason
				if cx.negatesTime(&cx.times[i]) {
					f.verdict = events.VerdictContradicted
				}
			case events.VerdictContradicted:
				f.verdict, f.reason = events.VerdictSupported, "negated: "+f.reason
			}
		}
		out = append(out, f)
	}
	return out
}

// negatesTime reports a negation said just before te, with at most one
// word between ("not on 3 May", "not until Friday", 不是5月3日): the date is
// what is negated. A negation elsewhere ("nobody went out on 1 December",
// "has not been raked since 28 November", "done yesterday with no damage")
// is of something else said on that day, and a matching date does not
// contradict the claim.
func (cx *claim) negatesTime(te *evidence.TimeExpr) bool {
	k := -1
	for i, w := range cx.words {
		if w.End <= te.Start {
			k = i
		}
	}
	for j := k; j >= 0 && j >= k-1; j-- {
		if w := cx.words[j]; w.Info != nil && w.Info.Cues&evidence.CueNeg != 0 && w.Info.Cues&evidence.CuePlain == 0 {
			return true
		}
	}
	return false
}

// textFacts compares the claim with the evidence text nearest to it.
func (cx *claim) textFacts(earlier []fact) []fact {
	if f := cx.textPolarity(earlier); f.verdict != "" {
		return []fact{f}
	}
	return nil
}

// alwaysFacts: a generalisation (always, never, 总是) goes beyond what
// any evidence can say.
func (cx *claim) alwaysFacts([]fact) []fact {
	if cx.cues&evidence.CueAlways == 0 {
		return nil
	}
	return []fact{{verdict: events.VerdictUnsupported, reason: "a generalisation (always/never) beyond the evidence"}}
}

// certainty turns support from an estimate (an eta, a forecast, 预计)
// into unsupported when the claim promises it (definitely, 一定, 保证).
func (cx *claim) certainty(fs []fact) []fact {
	if len(fs) == 0 {
		return []fact{{verdict: events.VerdictUnsupported, reason: "a promise the evidence does not make"}}
	}
	for i, f := range fs {
		if f.verdict != events.VerdictSupported {
			continue
		}
		for _, l := range f.leaves {
			if cx.ix.Leaves[l].Hedge || cx.ix.TextHedged(l) {
				fs[i] = fact{verdict: events.VerdictUnsupported, refs: f.refs, reason: "the evidence gives an estimate; the claim promises it"}
				break
			}
		}
	}
	return fs
}
