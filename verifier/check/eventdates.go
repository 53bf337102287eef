package check

import (
	"slices"
	"strings"
	"unicode"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// Dates bound by the event they are the day of: a claim's words name an
// event ("shipped", 到期; words.txt's [event verbs]) and a date field's key
// names one (shipped_at, 到期日; [event keys]). A claimed date binds the
// fields whose keys name its event, when one in scope does, before the
// fields its other words name: "reduced on 20 August" is about reduced_on,
// not listed_on, though both are dates of the listing.

// eventWords are the words naming events, by language: English words
// matched as words, Chinese ones as text.
type eventWords struct {
	en map[string][]string // word -> events
	zh []eventText         // longest first
}

// eventText is a Chinese word of an event.
type eventText struct {
	text  string
	event string
}

// newEventWords reads section of the language data.
func newEventWords(section string) eventWords {
	ew := eventWords{en: map[string][]string{}}
	for _, l := range evidence.LangData.Lines(section) {
		for _, w := range l.Words {
			if r := []rune(w); len(r) > 0 && lang.IsCJK(r[0]) {
				ew.zh = append(ew.zh, eventText{text: w, event: l.Name})
				continue
			}
			if !slices.Contains(ew.en[w], l.Name) {
				ew.en[w] = append(ew.en[w], l.Name)
			}
		}
	}
	slices.SortStableFunc(ew.zh, func(a, b eventText) int { return len(b.text) - len(a.text) })
	return ew
}

var (
	eventVerbs = newEventWords("event verbs")
	eventKeys  = newEventWords("event keys")
)

// inText appends the events whose Chinese words text holds to out.
func (ew *eventWords) inText(text string, out []string) []string {
	for _, z := range ew.zh {
		if strings.Contains(text, z.text) && !slices.Contains(out, z.event) {
			out = append(out, z.event)
		}
	}
	return out
}

// keyEvents returns the events the last key of ptr names.
func keyEvents(ptr string) []string {
	key := strings.ToLower(ptr[strings.LastIndexByte(ptr, '/')+1:])
	var out []string
	for _, tok := range strings.FieldsFunc(key, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) || lang.IsCJK(r) }) {
		for _, e := range eventKeys.en[tok] {
			if !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
	}
	return eventKeys.inText(key, out)
}

// claimEvents returns the events the claim's words name about te: those
// said between the time before te (or the claim's start) and te, else
// those between te and the time after it (or the claim's end): "ordered
// on 2 May and shipped on 5 May" ships on 5 May, "On 1 December she sat"
// sits that day.
func (cx *claim) claimEvents(te *evidence.TimeExpr) []string {
	from, to := 0, len(cx.norm)
	for i := range cx.times {
		o := &cx.times[i]
		if o.End <= te.Start && o.End > from {
			from = o.End
		}
		if o.Start >= te.End && o.Start < to {
			to = o.Start
		}
	}
	if evs := cx.eventsIn(from, te.Start); len(evs) > 0 {
		return evs
	}
	return cx.eventsIn(te.End, to)
}

// eventsIn returns the events the claim's words in runes [from, to) name.
func (cx *claim) eventsIn(from, to int) []string {
	if from >= to {
		return nil
	}
	var out []string
	for _, w := range cx.words {
		if w.Cjk || w.Start < from || w.End > to {
			continue
		}
		for _, e := range eventVerbs.en[w.S] {
			if !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
	}
	return eventVerbs.inText(string(cx.norm[from:to]), out)
}

// eventBonus is what a date target whose key names the claim's event adds
// to its score: more than any words of the claim give another field.
const eventBonus = 64

// bindByEvent raises the targets whose keys name the event the claim says
// of te above every other and puts them first; targets is returned as it
// is when the claim names no event or no target's key names it. one
// reports that the claim names one event and, of the first target's
// object, only its key names it: the claim is bound to that field, and a
// day only another field holds is that field's day, not the claim's
// ("payment arrived", two events, binds no field alone).
func (cx *claim) bindByEvent(te *evidence.TimeExpr, targets []evidence.DateTarget) (_ []evidence.DateTarget, one bool) {
	if len(targets) < 2 {
		return targets, false
	}
	evs := cx.claimEvents(te)
	if len(evs) == 0 {
		return targets, false
	}
	named := 0
	for i := range targets {
		t := &targets[i]
		if slices.ContainsFunc(t.Leaves, func(l int32) bool {
			return slices.ContainsFunc(keyEvents(cx.ix.Leaves[l].Ptr()), func(e string) bool { return slices.Contains(evs, e) })
		}) {
			if len(evs) > 1 {
				// "the payment arrived": the day of either event, the
				// claim's words choosing neither.
				t.Score = eventBonus
			} else {
				t.Score += eventBonus
			}
			named++
		}
	}
	if named == 0 {
		return targets, false
	}
	sortStable(targets, func(a, b evidence.DateTarget) bool { return a.Score > b.Score })
	// One event said, and one field of the first's object named by it.
	node := cx.ix.Leaves[targets[0].Leaves[0]].Node
	for _, t := range targets[1:] {
		if t.Score >= eventBonus && cx.ix.Leaves[t.Leaves[0]].Node == node {
			return targets, false
		}
	}
	return targets, len(evs) == 1
}

// listRow returns the row (an object that is an element of an array of
// two or more) holding leaf l, or -1.
func (cx *claim) listRow(l int32) int32 {
	ix := cx.ix
	for r := ix.Leaves[l].Node; r >= 0; r = ix.Nodes[r].Parent {
		if p := ix.Nodes[r].Parent; p >= 0 && ix.Nodes[p].Array {
			if ix.Nodes[p].Length < 2 {
				return -1
			}
			return r
		}
	}
	return -1
}

// otherRowDate returns an unsupported fact when first, the date the
// claim's words chose, is a field of one row of a list that the claim
// does not name, while a date of the whole or of the row the claim names
// holds the claimed day: "tomorrow Court 1 is booked" beside the sheet's
// date and court 3's reopens, 昨天进了20件脐橙 beside the log's 日期 and
// another row's 预计到货. A row nobody named is another's, its date is
// another event's, and the claim's day may be the whole's: the binding is
// ambiguous, so the day is not contradicted.
func (cx *claim) otherRowDate(te *evidence.TimeExpr, first *evidence.DateTarget, targets []evidence.DateTarget) (fact, bool) {
	if first == nil || len(first.Leaves) == 0 {
		return fact{}, false
	}
	ix := cx.ix
	row := cx.listRow(first.Leaves[0])
	if row < 0 || cx.scoped && slices.Contains(cx.nodes, row) {
		return fact{}, false
	}
	for i := range targets {
		t := &targets[i]
		if len(t.Leaves) == 0 || slices.Equal(t.Leaves, first.Leaves) || ix.InNode(t.Leaves[0], row) {
			continue
		}
		if r := cx.listRow(t.Leaves[0]); r >= 0 && !(cx.scoped && slices.Contains(cx.nodes, r)) {
			continue // another unnamed row's
		}
		if v, ok := evidence.DayHolds(te, t); ok && v == events.VerdictSupported && (te.Clock < 0 || t.Clock < 0 || te.Clock == t.Clock) {
			return fact{verdict: events.VerdictUnsupported, weak: true,
				reason: "the date at " + ix.Leaves[first.Leaves[0]].Ptr() + " is a row's the claim does not name; " + ix.Leaves[t.Leaves[0]].Ptr() + " holds the day"}, true
		}
	}
	return fact{}, false
}
