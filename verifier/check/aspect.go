package check

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// aspectMarkers are words.txt's [aspect markers]: Chinese words before a
// verb that say it is done (已, 已经) or not done yet (未, 还没, 尚未), in a
// claim and at the start of a status value; a pending prefix (待, 等待)
// leads a value not done yet too.
var aspectMarkers = func() map[string]bool {
	m := map[string]bool{}
	for _, l := range evidence.LangData.Lines("aspect markers") {
		for _, w := range l.Words {
			m[w] = l.Name == "done"
		}
	}
	for p := range pendingPrefixes {
		if lang.IsCJK([]rune(p)[0]) {
			m[p] = false
		}
	}
	return m
}()

// aspectParticles are words.txt's [aspect particles] (了, 过): said after
// a verb, they add nothing to what it names.
var aspectParticles = evidence.LangData.Set("aspect particles")

// aspectStemRunesMin is the fewest runes a claim's verb and a value's must
// share: one ideograph (装 of 装车中 and 装满) names too many verbs.
const aspectStemRunesMin = 2

// aspectValueRunesMax bounds the status values read for an aspect: a
// short value is a state (已入库, 待派单), a longer one a note.
const aspectValueRunesMax = 8

// aspectOf splits a Chinese status value into the aspect its leading
// marker states and the verb after it (已入库: done, 入库; 未回复: not
// done, 回复); ok is false for a value with no marker, or nothing
// but ideographs after it.
func aspectOf(v string) (done bool, verb string, ok bool) {
	r := []rune(v)
	if len(r) < 1+aspectStemRunesMin || len(r) > aspectValueRunesMax || !lang.IsCJK(r[0]) {
		return false, "", false
	}
	best := 0
	for m, d := range aspectMarkers {
		if n := len([]rune(m)); n > best && strings.HasPrefix(v, m) && len(r)-n >= aspectStemRunesMin {
			best, done = n, d
		}
	}
	if best == 0 {
		return false, "", false
	}
	for _, c := range r[best:] {
		if !lang.IsCJK(c) {
			return false, "", false
		}
	}
	return done, string(r[best:]), true
}

// claimAspect finds a Chinese claim's aspect marker and the verb after it
// (还没入库: not done, 入库; 已经结算了: done, 结算), the verb's adjacent
// ideographs up to the clause's end less trailing particles; ok is false
// when the claim has none, or has another negation besides the marker.
func (cx *claim) claimAspect() (done bool, verb string, ok bool) {
	ws := cx.words
	at := -1
	for i := range ws {
		if ws[i].Cjk {
			if _, isMarker := aspectMarkers[ws[i].S]; isMarker {
				at = i
				break
			}
		}
	}
	if at < 0 || at+1 >= len(ws) {
		return false, "", false
	}
	done = aspectMarkers[ws[at].S]
	negs := 0
	if !done {
		negs = 1
	}
	if cx.negs != negs {
		return false, "", false // 不是还没入库: another negation besides the marker
	}
	var b strings.Builder
	end := ws[at].End
	for j := at + 1; j < len(ws) && ws[j].Cjk && ws[j].Start == end; j++ {
		b.WriteString(ws[j].S)
		end = ws[j].End
	}
	r := []rune(b.String())
	for len(r) > 0 && aspectParticles[string(r[len(r)-1])] {
		r = r[:len(r)-1]
	}
	if len(r) < aspectStemRunesMin {
		return false, "", false
	}
	return done, string(r), true
}

// sharedStem reports whether verbs a and b begin with the same
// aspectStemRunesMin ideographs or more, one the start of the other (入库
// and 入库; 结算 and 结算完毕; 预约 and 预约好).
func sharedStem(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	n := 0
	for n < len(ra) && n < len(rb) && ra[n] == rb[n] {
		n++
	}
	return n >= aspectStemRunesMin && (n == len(ra) || n == len(rb))
}

// keyRepeats reports whether another leaf of the evidence has the key of
// leaf l: rows of one status field, any of which a claim naming no subject
// may be about.
func (cx *claim) keyRepeats(l int32) bool {
	ix := cx.ix
	key := evidence.LastToken(ix.Leaves[l].Ptr())
	for k := range ix.Leaves {
		if int32(k) != l && ix.Leaves[k].Kind == evidence.KindStr && evidence.LastToken(ix.Leaves[k].Ptr()) == key {
			return true
		}
	}
	return false
}

// aspectFacts checks a Chinese claim that says a verb is done or not done
// yet (已经入库, 还没回复, 尚未出窑) against the status values in its scope
// that say the same verb done or not done (已入库, 未回复, 待出窑): the same
// aspect supports it, the other contradicts it. Values of another aspect
// in scope, or, with no subject named, a value whose field other rows
// have too, leave it to the other checks. A claim with a number or a future is about
// those.
func (cx *claim) aspectFacts() []fact {
	if cx.cues&evidence.CueFuture != 0 || slices.ContainsFunc(cx.nums, func(m evidence.NumMention) bool { return !m.Free }) {
		return nil
	}
	done, verb, ok := cx.claimAspect()
	if !ok {
		return nil
	}
	ix := cx.ix
	var leaves []int32
	if cx.scoped {
		leaves = cx.scopeLeaves(func(lf *evidence.Leaf) bool { return lf.Kind == evidence.KindStr && !lf.Text })
	} else {
		for l := range ix.Leaves {
			if lf := &ix.Leaves[l]; lf.Kind == evidence.KindStr && !lf.Text {
				leaves = append(leaves, int32(l))
			}
		}
	}
	// A value of the verb holds its first aspectStemRunesMin ideographs:
	// one search of the bytes passes over the others.
	stem := string([]rune(verb)[:aspectStemRunesMin])
	var match []int32
	agree := 0
	for _, l := range leaves {
		s := ix.Leaves[l].Str()
		if len(s) > aspectValueRunesMax*utf8.UTFMax || !strings.Contains(s, stem) {
			continue
		}
		d, v, ok := aspectOf(s)
		if !ok || !sharedStem(verb, v) || cx.aboutOther(l) {
			continue
		}
		match = append(match, l)
		if d == done {
			agree++
		}
	}
	if len(match) == 0 || agree != 0 && agree != len(match) || !cx.scoped && (len(match) > 1 || cx.keyRepeats(match[0])) {
		return nil
	}
	if agree > 0 {
		f := supported(ix, "the status says the same of the verb", match[0])
		f.negUsed = true
		return []fact{f}
	}
	return []fact{{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(match[0])}, negUsed: true,
		reason: "the status says the verb is " + map[bool]string{true: "not done yet", false: "done"}[done] + ": " + ix.Leaves[match[0]].Raw()}}
}
