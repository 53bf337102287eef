package check

import (
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A call's own outcome is evidence. A call that failed, or whose approval
// was denied (CallFailed), says that what it would have done did not
// happen: a claim that it happened ("Your seat upgrade was approved",
// 您的退款已经办理成功) is contradicted by the failure, cited as the
// call's /error. A claim is about a failed call when it shares a word
// with the tool's name (seat, upgrade for request_seat_upgrade; the
// concepts of 退款 and refund), names a code its message names, or says
// "approved" where an approval was denied.

// doneWords say that something happened (English words, and Chinese
// phrases looked for in the text).
var doneWords, doneZH = func() (map[string]bool, []string) {
	en := map[string]bool{}
	var zh []string
	for _, w := range evidence.LangData.List("done words") {
		if lang.IsCJK([]rune(w)[0]) {
			zh = append(zh, w)
		} else {
			en[w] = true
		}
	}
	return en, zh
}()

var approveWords = evidence.LangData.Set("approve words")

// toolVerbs are words of tool names too general to say what a call was
// about.
var toolVerbs = evidence.LangData.Set("tool verbs")

// failureFacts checks a claim that something happened against the calls
// that failed.
func (cx *claim) failureFacts([]fact) []fact {
	if len(cx.ix.Failed) == 0 || cx.negs%2 == 1 || cx.cues&evidence.CueFuture != 0 || !cx.saysDone() {
		return nil
	}
	for _, f := range cx.ix.Failed {
		if cx.aboutCall(f) {
			return []fact{{verdict: events.VerdictContradicted,
				refs:   []events.EvidenceRef{{CallID: f.CallID, Pointer: "/error", Value: strconv.Quote(f.Failed.Error)}},
				reason: "the call " + f.Name + " failed (" + f.Failed.Error + "): " + f.Failed.Message}}
		}
	}
	return nil
}

// saysDone reports a claim stating that something happened.
func (cx *claim) saysDone() bool {
	for _, t := range cx.toks {
		if doneWords[t.S] {
			return true
		}
	}
	return slices.ContainsFunc(doneZH, func(w string) bool { return strings.Contains(cx.text, w) })
}

// aboutCall reports whether the claim is about the failed call f.
func (cx *claim) aboutCall(f evidence.Evidence) bool {
	if f.Failed.Error == string(events.ErrApprovalDenied) {
		if slices.ContainsFunc(cx.toks, func(t evidence.Token) bool { return approveWords[t.S] }) || strings.Contains(cx.text, "批准") {
			return true
		}
	}
	for _, w := range lang.KeyParts(f.Name) {
		w = strings.ToLower(w)
		if toolVerbs[w] || len(w) < 3 {
			continue
		}
		for _, t := range cx.toks {
			if t.S == w || len(w) >= 4 && len(t.S) >= 4 && (strings.HasPrefix(t.S, w) || strings.HasPrefix(w, t.S)) {
				return true // book / booked, exchange
			}
		}
		for _, c := range evidence.WordConcepts(w) {
			if cx.hasConcept(c) {
				return true // refund / 退款
			}
		}
	}
	msgCodes := evidence.ScanCodes([]rune(f.Failed.Message), nil)
	for _, m := range cx.codes {
		if slices.ContainsFunc(msgCodes, func(c evidence.CodeMention) bool { return c.Canon == m.Canon }) {
			return true
		}
	}
	return false
}

// stale returns the verdict of a claim the evidence supports when every
// result it rests on is past its fresh_for at now: stale, saying since
// when. ok is false when one of them is fresh.
func stale(ix *evidence.Index, refs []events.EvidenceRef, now time.Time) (reason string, ok bool) {
	if len(refs) == 0 {
		return "", false
	}
	var oldest time.Time
	for _, r := range refs {
		i := slices.IndexFunc(ix.Ev, func(e evidence.Evidence) bool { return e.CallID == r.CallID })
		if i < 0 {
			return "", false
		}
		e := ix.Ev[i]
		if e.FreshFor <= 0 || e.At.IsZero() || !now.After(e.At.Add(e.FreshFor)) {
			return "", false
		}
		if oldest.IsZero() || e.At.Before(oldest) {
			oldest = e.At
		}
	}
	return "stale: the evidence is from " + oldest.UTC().Format(time.RFC3339) + ", older than its fresh_for", true
}
