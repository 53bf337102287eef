package check

import (
	"strings"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// endDateKeys are keys.txt's end date key words (expires, valid_until,
// 到期日): English ones are a key or a part of one, Chinese ones are
// looked for inside the key.
var endDateKeys = func() (m struct{ en, zh []string }) {
	for _, l := range evidence.LangData.Lines("end date key words") {
		if l.Name == "zh" {
			m.zh = append(m.zh, l.Words...)
		} else {
			m.en = append(m.en, l.Words...)
		}
	}
	return m
}()

// endDateKey reports whether a key names the day something ends.
func endDateKey(key string) bool {
	k := strings.ToLower(key)
	parts := lang.KeyParts(k)
	for _, w := range endDateKeys.en {
		if k == w || strings.Contains("_"+strings.Join(parts, "_")+"_", "_"+w+"_") {
			return true
		}
	}
	for _, w := range endDateKeys.zh {
		if strings.Contains(key, w) {
			return true
		}
	}
	return false
}

// lapsedFact reads a state of a class with a lapsed value (lexicon.txt's
// category traits: validity/expired) from an end date in scope when no
// field states the class: a day before today says the lapsed value holds,
// today or later that another value of the class does. "Her card is still
// valid" beside expires: a past day is contradicted, "has expired" beside
// it supported; the negation is read before comparing.
func (cx *claim) lapsedFact(cm catMention, neg bool) (fact, bool) {
	ix := cx.ix
	var claimLapsed, known bool
	for _, c := range cm.cats {
		for w := range catTraits["lapsed"] {
			class, value, _ := strings.Cut(w, "/")
			if class == c.Class {
				claimLapsed, known = c.Value == value, true
			}
		}
	}
	if !known {
		return fact{}, false
	}
	var best int32 = -1
	for _, l := range cx.inScopeOf(ix.Dates) {
		lf := &ix.Leaves[l]
		if !lf.HasDay || !endDateKey(evidence.LastToken(lf.Ptr())) {
			continue
		}
		if best < 0 || cx.inSubject(l) && !cx.inSubject(best) {
			best = l
		}
	}
	if best < 0 {
		return fact{}, false
	}
	past := ix.Leaves[best].Day < evidence.DayOf(cx.now)
	if (past == claimLapsed) != neg {
		f := supported(ix, "the end date says so", best)
		f.negUsed = true
		return f, true
	}
	return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(best)}, negUsed: true,
		reason: "the end date says otherwise: " + ix.Leaves[best].Raw()}, true
}
