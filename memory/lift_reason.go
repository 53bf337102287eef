package memory

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolstream/toolstream/events"
)

// A ban often says why it holds ("with this tennis elbow I'm not supposed
// to carry heavy bags", 我腰椎间盘突出，医生不让我提重物), and the lift often
// says only that the why is over ("my elbow has healed, so lugging the
// weekly shop home is no problem any more", 腰彻底好了，米面油这些大件我又能扛回家了),
// naming the banned thing in words no table relates to the ban's, or not
// at all. Such a clause is read as a fact of its own, ended/<reason>
// (endedReasons: "my elbow has healed" → ended/elbow, "finished the
// antibiotics" → ended/antibiotics, "the surgeon signed me off" →
// ended/surgeon, 复查尿酸正常了 → ended/尿酸), and that fact lifts every ban
// in force said before it whose sentence names the reason (reasonBans):
// each is superseded by the fact, with its audit link. The words are data
// (data/statements.txt [reasons], [reason names]); a clause whose reason
// is not over yet ("until my collarbone has healed", 等腰好了, "my knee
// hasn't healed") states nothing.

// endedSubject is the subject of a reason-is-over fact.
const endedSubject = "ended"

// reasonWords are data/statements.txt [reasons] and [reason names], read
// once and never changed.
type reasonWords struct {
	ended, endedCourse, lead, cleared, next [][]string
	clearedBefore                           [][]string
	aux, adverb, sub, generic, stop, course map[string]bool
	zhEnded, zhAdverb, zhLead               []string
	zhCondition, zhNot, zhDone              []string
	names                                   map[string][]string // a reason word → every name of its reason
}

var reasons = mustReasonWords()

func mustReasonWords() *reasonWords {
	r := &reasonWords{names: map[string][]string{}}
	en := func(name string) [][]string {
		e, _ := splitCueWords(memData.Words("reasons", name))
		return e
	}
	zh := func(name string) []string {
		_, z := splitCueWords(memData.Words("reasons", name))
		// longest first, so 养好了 is cut before 好了
		slices.SortStableFunc(z, func(a, b string) int { return len(b) - len(a) })
		return z
	}
	set := func(name string) map[string]bool {
		m := map[string]bool{}
		for _, p := range en(name) {
			m[strings.Join(p, " ")] = true
		}
		return m
	}
	r.ended, r.endedCourse, r.lead, r.cleared, r.next = en("ended"), en("ended_course"), en("ended_before"), en("cleared"), en("next")
	r.clearedBefore = en("cleared_before")
	r.course = set("course")
	r.aux, r.adverb, r.sub, r.generic, r.stop = set("aux"), set("adverb"), set("subordinator"), set("generic"), set("stop")
	r.zhEnded, r.zhAdverb, r.zhLead = zh("zh_ended"), zh("zh_adverb"), zh("zh_lead")
	// the longest lead first: 复查时 before 复查, so no 时 is left of the reason
	slices.SortStableFunc(r.zhLead, func(a, b string) int { return len(b) - len(a) })
	r.zhCondition, r.zhNot, r.zhDone = zh("zh_condition"), zh("zh_not"), zh("zh_done")
	for _, l := range memData.Lines("reason names") {
		all := append([]string{spaced(l.Name)}, l.Words...)
		for _, w := range all {
			w = spaced(w)
			for _, v := range all {
				if v = spaced(v); !slices.Contains(r.names[w], v) {
					r.names[w] = append(r.names[w], v)
				}
			}
		}
	}
	return r
}

// endedReasons reads each sentence of text that is no question for a
// clause saying the reason for a ban is over, and returns one fact
// ended/<reason> per such sentence, its Text the sentence.
func endedReasons(text string) []events.Observation {
	var out []events.Observation
	sents, questions := sentences(text)
	for i, s := range sents {
		if questions[i] {
			continue
		}
		reason, ok := endedReasonZH(s)
		if !ok {
			reason, ok = endedReasonEN(s)
		}
		if !ok {
			continue
		}
		out = append(out, events.Observation{Kind: string(KindFact), Subject: endedSubject, Attribute: reason,
			Polarity: string(Positive), Text: s, Confidence: 0.8})
	}
	return out
}

// liftedHere reports whether the ending o is said by a sentence of one
// clause that out already reads as a lift (花生过敏已经好了: the peanut ban
// lifted): the lift says it, and no fact is needed beside it.
func liftedHere(out []events.Observation, o events.Observation) bool {
	if strings.ContainsAny(o.Text, ",，;；—") || strings.Contains(o.Text, " - ") {
		return false
	}
	return slices.ContainsFunc(out, func(x events.Observation) bool {
		return x.Text == o.Text && x.Kind == string(KindConstraint) && x.Polarity == string(Positive)
	})
}

// endedReasonEN finds in s "<reason> (aux) (adverb) <ended>" ("my elbow has
// healed", "the hamstring's sorted"), "<ended_before> <reason>" ("finished
// the antibiotics"), "<reason> <cleared>" ("the surgeon signed me off") or
// "<cleared_before> <reason>" ("the specialist signed off my knee"), and
// returns the reason's words that are not generic. A clause opened by
// a subordinator ("until my knee has healed") or negated ("hasn't healed
// yet") is no ending.
func endedReasonEN(s string) (string, bool) {
	var ws []string
	for _, w := range words(s) {
		if x, ok := strings.CutSuffix(w.low, "'s"); ok && x != "" && x != "let" && x != "it" && x != "that" {
			ws = append(ws, x, "is") // "the hamstring's sorted"
			continue
		}
		ws = append(ws, w.low)
	}
	for i := range ws {
		for _, p := range reasons.ended {
			if n := len(p); i+n <= len(ws) && slices.Equal(ws[i:i+n], p) && reasons.clauseGoesOn(ws[i+n:]) {
				if r, ok := reasons.said(ws, i); ok {
					return r, true
				}
			}
		}
		for _, p := range reasons.endedCourse {
			if n := len(p); i+n <= len(ws) && slices.Equal(ws[i:i+n], p) && reasons.clauseGoesOn(ws[i+n:]) {
				if r, ok := reasons.said(ws, i); ok && reasons.ofCourse(r) {
					return r, true
				}
			}
		}
		for _, p := range reasons.cleared {
			if n := len(p); i+n <= len(ws) && slices.Equal(ws[i:i+n], p) {
				if r, ok := reasons.said(ws, i); ok {
					return r, true
				}
			}
		}
	}
	for i := range ws {
		for _, p := range slices.Concat(reasons.lead, reasons.clearedBefore) {
			n := len(p)
			if i+n > len(ws) || !slices.Equal(ws[i:i+n], p) || reasons.notOver(ws[:i]) {
				continue
			}
			course := !slices.ContainsFunc(reasons.clearedBefore, func(c []string) bool { return slices.Equal(c, p) })
			var r []string
			for _, w := range ws[i+n:] {
				if w == "," || reasons.stops(w) {
					break
				}
				if !reasons.generic[w] {
					r = append(r, w)
				}
				if len(r) == 3 {
					break
				}
			}
			if len(r) > 0 && (!course || reasons.ofCourse(strings.Join(r, " "))) {
				return strings.Join(r, " "), true
			}
		}
	}
	return "", false
}

// ofCourse reports whether a reason is a course that runs out (its last
// word, singular, one of course): antibiotics, a diet, physio.
func (r *reasonWords) ofCourse(reason string) bool {
	ws := strings.Fields(reason)
	return len(ws) > 0 && r.course[singular(ws[len(ws)-1])]
}

// clauseGoesOn reports whether rest, what follows an ending, ends the
// clause or goes on with one of next ("healed, so", "better now"): "better
// than" or "over the road" is no ending.
func (r *reasonWords) clauseGoesOn(rest []string) bool {
	if len(rest) == 0 || rest[0] == "," {
		return true
	}
	for _, p := range r.next {
		if len(p) <= len(rest) && slices.Equal(rest[:len(p)], p) {
			return true
		}
	}
	return false
}

// stops are the words that end a reason: a clause's verbs and links.
func (r *reasonWords) stops(w string) bool {
	return r.aux[w] || r.sub[w] || r.stop[w] || w == "so" || w == "and" || w == "but" || w == "not" || w == "-"
}

// notOver reports whether the clause before an ending is negated or opened
// by a subordinator: the reason is not over, or not yet.
func (r *reasonWords) notOver(before []string) bool {
	for j := len(before) - 1; j >= 0 && before[j] != ","; j-- {
		if w := before[j]; r.sub[w] || w == "not" || w == "never" || w == "yet" || w == "still" || w == "hope" || w == "soon" {
			return true
		}
	}
	return false
}

// said reads the reason said before the ending at ws[i]: the auxiliaries
// and adverbs before it skipped, up to three words back to a determiner
// or the clause's start, the generic ones left out.
func (r *reasonWords) said(ws []string, i int) (string, bool) {
	j := i - 1
	for j >= 0 && (r.aux[ws[j]] || r.adverb[ws[j]]) {
		j--
	}
	if j < 0 || r.notOver(ws[:i]) {
		return "", false
	}
	var rev []string
	for ; j >= 0 && len(rev) < 3; j-- {
		w := ws[j]
		if w == "," || r.stops(w) || w == "my" || w == "the" || w == "our" || w == "this" || w == "that" || w == "these" {
			break
		}
		rev = append(rev, w)
	}
	var out []string
	for k := len(rev) - 1; k >= 0; k-- {
		if !r.generic[rev[k]] {
			out = append(out, rev[k])
		}
	}
	if len(out) == 0 {
		return "", false
	}
	return strings.Join(out, " "), true
}

// endedReasonZH finds a clause of s that ends in one of zh_ended
// (胃养好了, 腰彻底好了, 中药已经停了) and returns what it is said of, the
// adverbs, the words that open it (复查, 我的) and a condition word after a
// part (腰伤 → 腰) left out. A clause with a negation or a condition (还没好,
// 等腰好了) or a task done (机票订好了) is no ending.
func endedReasonZH(s string) (string, bool) {
	if !hasHan(s) {
		return "", false
	}
	clauses := strings.FieldsFunc(s, func(r rune) bool {
		return strings.ContainsRune("，,。；;！!？?：:、 —-", r)
	})
	for _, c := range clauses {
		c = strings.TrimRight(c, "啦呀啊哦呢吧")
		for _, e := range reasons.zhEnded {
			x, ok := strings.CutSuffix(c, e)
			if !ok || x == "" || containsAny(x, reasons.zhNot) {
				continue
			}
			for trimmed := true; trimmed; {
				trimmed = false
				for _, a := range reasons.zhAdverb {
					if y, ok := strings.CutSuffix(x, a); ok && y != "" {
						x, trimmed = y, true
					}
				}
				for _, l := range reasons.zhLead {
					if y, ok := strings.CutPrefix(x, l); ok && y != "" {
						x, trimmed = y, true
					}
				}
			}
			for _, d := range reasons.zhCondition {
				if y, ok := strings.CutSuffix(x, d); ok && y != "" {
					x = y
					break
				}
			}
			if hasAnySuffix(x, reasons.zhDone) || utf8.RuneCountInString(x) > 6 ||
				strings.IndexFunc(x, func(r rune) bool { return !unicode.Is(unicode.Han, r) }) >= 0 {
				break
			}
			return x, true
		}
	}
	return "", false
}

// namesReason reports whether a ban's sentence names the reason an ended
// fact says is over: a Chinese reason as a part of the sentence, an
// English one by any of its words or their other names ([reason names]:
// a surgeon's sign-off names a surgery), a plural by its singular.
func namesReason(reason, text string) bool {
	if hasHan(reason) {
		return strings.Contains(text, reason)
	}
	var said []string
	for _, w := range words(text) {
		said = append(said, singular(strings.TrimSuffix(w.low, "'s")))
	}
	for _, w := range strings.Fields(reason) {
		names := append([]string{w}, reasons.names[w]...)
		for _, n := range names {
			if slices.Contains(said, singular(n)) {
				return true
			}
		}
	}
	return false
}

// reasonBans returns the bans the ended fact n lifts: the user's negative
// constraints in force said before it (of any slot, caps too) whose
// sentence names n's reason (namesReason).
func (x *tx) reasonBans(n *Record) ([]*Record, error) {
	if n.Kind != KindFact || n.Subject != endedSubject || n.Attribute == "" {
		return nil, nil
	}
	var bans []*Record
	prefix := []byte(x.k.prefix + nsSlot + esc(n.Scope) + "/")
	err := x.eachHead(prefix, func(h *Record) error {
		if h.ID != n.ID && h.Kind == KindConstraint && h.Polarity == Negative && holding(h.Status) &&
			h.ObservedAt < n.ObservedAt && (h.ValidUntil == 0 || h.ValidUntil > n.ObservedAt) &&
			namesReason(n.Attribute, h.Text) && !slices.ContainsFunc(bans, func(b *Record) bool { return b.ID == h.ID }) {
			bans = append(bans, h)
		}
		return nil
	})
	return bans, err
}
