package check

import (
	"github.com/toolstream/toolstream/verifier/evidence"
	"slices"
	"time"
)

// Checking one claim has three stages:
//
//   - reading (reading.go): what the claim says, read once against the
//     index — its words and cues, and the subjects, dates, numbers and
//     evidence values it names. Nothing changes a reading once made.
//   - scope (scope.go): what the claim is about — the subjects it names,
//     else those of the claim before it (a clause continuing its sentence,
//     a pronoun), narrowed to the day it names. A scope is a value.
//   - checks (checks.go): an ordered table of functions, each returning
//     the facts it finds in the evidence; a check that depends on another
//     reads that one's facts, never a flag. The facts combine into the
//     claim's verdict.

// claim is one claim under check: its reading and scope, and what it is
// checked against. A check that asks about another scope (one member of a
// collection, the evidence at large) checks a copy with that scope
// (within, widened, member); nothing changes a claim once made.
type claim struct {
	*reading
	scope
	ix *evidence.Index
	// keySides is the answer's cache of keySide (readBuffers.keySides).
	keySides map[string][]int8
	// fieldKeys is the answer's cache of fieldKeyOf (readBuffers.fieldKeys).
	fieldKeys map[fieldKeyID]fieldKey
	// qualSides are the sides of each opposed pair the claim states
	// (claimSidesOf), worked out on first use.
	qualSides [][2]bool
	// stateNamers are, per concept, the state fields in the claim's scope
	// whose key names it (otherStateNames), worked out on first use.
	stateNamers []stateNamer
	c           *Checker
	now         time.Time
	context     []int32 // fields that supported the claims before it in its sentence
}

// after is what a checked claim leaves the claim after it.
type after struct {
	scope        scope
	endsSentence bool
	context      []int32
	matched      []int32 // fields that supported the claim
}

// newClaim reads cl against the index and scopes it, continuing prev (the
// claim before it, nil for the first).
func (c *Checker) newClaim(ix *evidence.Index, cl Claim, now time.Time, prev *after, buf *readBuffers) *claim {
	rd := readClaim(ix, cl.Text, now, buf)
	cx := &buf.cx // NB: nothing keeps a claim once decided (after copies what the next needs)
	if buf.keySides == nil {
		buf.keySides = map[string][]int8{}
	}
	if buf.fieldKeys == nil {
		buf.fieldKeys = map[fieldKeyID]fieldKey{}
	}
	*cx = claim{reading: rd, scope: newScope(ix, rd, prev, buf), ix: ix, c: c, now: now, keySides: buf.keySides, fieldKeys: buf.fieldKeys}
	if prev != nil && !prev.endsSentence {
		// "研发投入 14.3 亿元，占营收的约 11%": the sentence so far.
		cx.context = append(slices.Clip(prev.context), prev.matched...)
	}
	return cx
}

// after returns what the claim leaves the next one, given the fields that
// supported it, made in a.
func (cx *claim) after(a *after, matched []int32) *after {
	*a = after{scope: cx.scope, endsSentence: cx.endsSentence, context: cx.context, matched: matched}
	return a
}

// within returns the claim scoped to nodes instead.
func (cx *claim) within(nodes []int32) *claim {
	sub := *cx
	sub.scoped, sub.nodes = true, nodes
	return &sub
}

// widened returns the claim read against all the evidence.
func (cx *claim) widened() *claim {
	sub := *cx
	sub.scoped, sub.soft = false, false
	return &sub
}

// member returns the claim checked for one member of the collection a
// quantifier ranges over ("all items ship free": this item ships free),
// with nums as its numbers (those counting the members taken out) and no
// subject of its own.
func (cx *claim) member(nodes []int32, nums []evidence.NumMention) *claim {
	rd := *cx.reading
	rd.nums, rd.unknown = nums, ""
	sub := *cx
	sub.reading = &rd
	sub.scoped, sub.nodes, sub.Subjects = true, nodes, evidence.Subjects{}
	return &sub
}

func (cx *claim) inScope(l int32) bool     { return cx.scope.holds(cx.ix, l) }
func (cx *claim) nodeInScope(n int32) bool { return cx.scope.holdsNode(cx.ix, n) }
func (cx *claim) inSubject(l int32) bool   { return cx.scope.inSubject(cx.ix, l) }
func (cx *claim) hasConcept(c string) bool { return slices.Contains(cx.concepts, c) }
func (cx *claim) firstName() string {
	if len(cx.Names) > 0 {
		return cx.Names[0]
	}
	return ""
}
