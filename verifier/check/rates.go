package check

import (
	"slices"
	"strings"
	"unicode"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// rateMarkers make a number a rate ("$95 a day", 每斤23元), and
// rateKeyWords make a field's key one (day_rate_cents, fee_per_kg, 单价):
// words.txt [rate markers], [rate key words].
var rateMarkers, rateKeyWords = evidence.LangData.Set("rate markers"), evidence.LangData.Set("rate key words")

// rateClaimWords make a claim's amount a rate with no marker (时薪,
// "day rate"), and rateBreakers between a number and a marker make the
// marker none of the number's ("$40 in a day"): words.txt.
var rateClaimWords, rateBreakers = evidence.LangData.Set("rate claim words"), evidence.LangData.Set("rate breakers")

// rateClaimWordsCJK are rateClaimWords written in CJK, which claimRate looks
// for in a claim's text (a Chinese claim has no spaces to split words
// at): listed once, not picked out of the set for every number.
var rateClaimWordsCJK = func() []string {
	var out []string
	for w := range rateClaimWords {
		if r := []rune(w); len(r) > 0 && lang.IsCJK(r[0]) {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return out
}()

// unitPriceWords make a field's key the price of one of whatever its line
// is sold by (unit_pence, 单价): words.txt [unit price key words].
var unitPriceWords = evidence.LangData.Set("unit price key words")

// rateOf is what a claim's number or a field states of a rate: whether it
// is one, and the unit it is per when a unit names it (nil for "a day
// each" of an unknown noun, or no rate).
type rateOf struct {
	is    bool
	per   *evidence.Unit
	word  string // the word it is per, as written ("cycle", "day")
	every bool   // per a number of a unit ("for every 8 minutes")
	said  bool   // said by a rate's word (时薪, "day rate"), no marker
}

// claimRate reads whether the claim states m as a rate: a rate marker
// after it ("$95 a day", "25 cents for every 8 minutes", "30 元/斤"), 每
// before it in its clause (每斤23元, 电价每度0.7元), or a rate's key word
// among the claim's words ("the day rate is $95", 单价).
func (cx *claim) claimRate(m *evidence.NumMention) rateOf {
	if m.End >= 0 && m.End <= len(cx.norm) {
		rest := string(cx.norm[m.End:min(len(cx.norm), m.End+32)])
		if t := strings.TrimLeft(rest, " "); strings.HasPrefix(t, "/") {
			u, w := unitAtStart(strings.TrimLeft(t[1:], " "))
			return rateOf{is: true, per: u, word: w}
		}
		if strings.HasPrefix(rest, "每") {
			u, w := unitAtStart(rest[len("每"):])
			return rateOf{is: true, per: u, word: w}
		}
		ws := strings.FieldsFunc(rest, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.' })
		for i, w := range ws[:min(len(ws), 3)] {
			if w = strings.TrimRight(w, "."); w == "" || lang.IsCJK([]rune(w)[0]) || !rateMarkers[w] {
				continue
			}
			if slices.ContainsFunc(ws[:i], func(b string) bool { return rateBreakers[b] }) {
				break // "$40 in a day" is no rate said of the number
			}
			r := rateOf{is: true}
			j := i + 1
			if j < len(ws) && lang.IsAllDigits(ws[j]) {
				j++ // "every 8 minutes"
				r.every = true
			}
			if j < len(ws) {
				if (w == "a" || w == "an") && (len(ws[j]) < 2 || strings.Contains(ws[j], ".") && !strings.HasSuffix(ws[j], ".")) {
					return rateOf{} // "9 a.m."
				}
				pw := strings.TrimRight(ws[j], ".")
				r.per, r.word = evidence.UnitOfValue(pw), pw
			} else if w == "a" || w == "an" {
				return rateOf{}
			}
			return r
		}
	}
	if m.Start > 0 && m.Start <= len(cx.norm) {
		before := cx.norm[max(0, m.Start-8):m.Start]
		for i := len(before) - 1; i >= 0; i-- {
			c := before[i]
			if unicode.IsSpace(c) {
				continue
			}
			if !lang.IsCJK(c) {
				break
			}
			if rateMarkers[string(c)] {
				u, w := unitAtStart(string(before[i+1:]))
				return rateOf{is: true, per: u, word: w}
			}
		}
	}
	for i := range cx.words {
		if rateClaimWords[strings.ToLower(cx.words[i].S)] {
			return rateOf{is: true, said: true}
		}
	}
	for _, w := range rateClaimWordsCJK {
		if strings.Contains(cx.nt.S, w) {
			return rateOf{is: true, said: true}
		}
	}
	return rateOf{}
}

// unitAtStart returns the unit a text starts with and its word, the
// longest unit word of at most four runes or one Latin word (斤, kg,
// hour); a text naming no unit gives its first word (平方米 gives 平).
func unitAtStart(s string) (*evidence.Unit, string) {
	r := []rune(s)
	if len(r) > 0 && !lang.IsCJK(r[0]) {
		w := strings.FieldsFunc(s, func(c rune) bool { return !unicode.IsLetter(c) })
		if len(w) == 0 {
			return nil, ""
		}
		return evidence.UnitOfValue(w[0]), w[0]
	}
	for n := min(len(r), 4); n >= 1; n-- {
		if u := evidence.UnitOfValue(string(r[:n])); u != nil {
			return u, string(r[:n])
		}
	}
	if len(r) == 0 {
		return nil, ""
	}
	return nil, string(r[:1])
}

// keyIsPer reports whether field lf's key is about what a rate is per:
// avg_cycle_s has "per cycle", conductivity_us_cm "每厘米" (a unit token of
// the key), washes_this_month "a month"; a unit price (unit_pence, 单价)
// is per whatever its line is sold by.
func keyIsPer(lf *evidence.Leaf, r rateOf) bool {
	if r.word != "" && !lang.IsCJK([]rune(r.word)[0]) && keyHasWord(lf, strings.ToLower(r.word)) {
		return true
	}
	for _, p := range lang.KeyParts(evidence.LastToken(lf.Ptr())) {
		p = strings.ToLower(p)
		if unitPriceWords[p] {
			return true
		}
		if u := evidence.UnitOfValue(p); r.per != nil && u != nil && u.Dim == r.per.Dim && u.Factor == r.per.Factor {
			return true
		}
	}
	return false
}

// fieldRate reads whether field lf's key names a rate (fen_per_kg,
// day_rate_cents, hourly_fee, 单价) and what it is per (kg, day; a key's
// unit token after per, or the time a rate word names).
func fieldRate(lf *evidence.Leaf) rateOf {
	parts := lang.KeyParts(evidence.LastToken(lf.Ptr()))
	var r rateOf
	for i, p := range parts {
		p = strings.ToLower(p)
		if !rateKeyWords[p] {
			continue
		}
		r.is = true
		if (p == "per" || p == "每") && i+1 < len(parts) && r.per == nil {
			r.per = evidence.UnitOfValue(parts[i+1])
		}
		if i > 0 && p != "per" && r.per == nil {
			if u := evidence.UnitOfValue(parts[i-1]); u != nil && u.Dim == evidence.DimTime {
				r.per = u // day_rate: per day
			}
		}
	}
	return r
}

// rateJudge decides a number bound to best, a field whose key names a
// rate or whose claim states one, when the two do not both state a rate
// per the same thing. A total ("four days came to $110", "£119 in all")
// is not a value of a rate field (day_rate_cents, price_pence_per_kg),
// and a rate (每平方米30元, "$6.50 an hour") is not one of a total's: the
// binding is not about the claim, so undecided. A rate per another unit
// of the same measure (每斤15元 beside fen_per_kg) is converted and
// compared; per units of other measures, undecided. Percentages (a VAT
// rate) are left to the other rules.
func (cx *claim) rateJudge(m *evidence.NumMention, best int32) (fact, bool) {
	ix := cx.ix
	lf := &ix.Leaves[best]
	if m.Unit != nil && m.Unit.Dim == evidence.DimPercent || leafDim(lf) == evidence.DimPercent {
		return fact{}, false
	}
	fr := fieldRate(lf)
	cr := cx.claimRate(m)
	switch {
	case !fr.is && !cr.is:
		return fact{}, false
	case fr.is && !cr.is:
		return fact{verdict: events.VerdictUnsupported, weak: true,
			reason: lf.Ptr() + " holds a rate; the claim states none"}, true
	case !fr.is:
		if f, ok := cx.rateFieldJudge(m, best, cr); ok {
			return f, true
		}
		if cr.said || keyIsPer(lf, cr) || !cr.every && cr.per != nil && cr.per.Dim == evidence.DimTime ||
			cr.per != nil && cr.per.Dim == evidence.DimCount || cr.word == "" {
			// 单价300元 beside price_fen, "41.2 seconds per cycle" beside
			// avg_cycle_s, "$69 a month" beside price_cents: a price or a
			// mean may be the rate; "$5 each", 每袋2.5公斤 say what one
			// has, as a field of one does: judged as any value.
			return fact{}, false
		}
		return fact{verdict: events.VerdictUnsupported, weak: true,
			reason: "the claim states a rate; " + lf.Ptr() + " holds none"}, true
	}
	if fr.per == nil || cr.per == nil || fr.per.Factor == cr.per.Factor && fr.per.Dim == cr.per.Dim {
		return fact{}, false
	}
	if fr.per.Dim != cr.per.Dim || fr.per.Scale || cr.per.Scale || cr.per.Factor == 0 {
		return fact{verdict: events.VerdictUnsupported, weak: true,
			reason: "the claim states a rate per " + cr.per.Name + "; " + lf.Ptr() + " is per " + fr.per.Name}, true
	}
	per := *m
	k := fr.per.Factor / cr.per.Factor
	per.V, per.Hi = m.V*k, m.Hi*k
	if cx.matchesLeaf(&per, best) {
		return supported(ix, "value matches, per "+fr.per.Name, best), true
	}
	return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(best)},
		reason: "evidence says " + lf.Raw() + " per " + fr.per.Name + " at " + lf.Ptr()}, true
}

// rateFieldJudge judges a rate the claim states ("€90 per 10 grams", "40
// pots a day") that is bound to best, a field of no rate, against the one
// field that is a rate per the same thing: a rate field beside best when
// best holds what the rate is per (grams beside price_cents_per_10g), or
// anywhere a rate field per the claim's unit of time or measure
// (capacity_pots_per_day). A field of no rate is not the rate's binding
// when such a field exists: supported when it holds the value; contradicted
// only when it is per the claim's very unit (a day, a kilogram) and no
// count of units stands between ("every 8 minutes"); else unsupported. It
// reports false when no such field exists.
func (cx *claim) rateFieldJudge(m *evidence.NumMention, best int32, cr rateOf) (fact, bool) {
	ix := cx.ix
	lf := &ix.Leaves[best]
	denominator := keyIsPer(lf, cr) && (m.Unit == nil || leafDim(lf) == evidence.DimNone || m.Unit.Dim != leafDim(lf))
	// The fields a rate may be judged by: those in the claim's scope, or,
	// when it names no row, the fields of best's object and of the objects
	// that hold it — another row's rate is no binding of the row the claim
	// is about, and a scan of every leaf for each number made a long answer
	// over many rows quadratic.
	var cands []int32
	if cx.scoped {
		cands = cx.inScopeOf(ix.NumsInOrder())
	} else {
		d := ix.DirectLeaves()
		for n := lf.Node; n >= 0; n = ix.Nodes[n].Parent {
			cands = append(cands, d.Of(n)...)
		}
	}
	var rates []int32
	exact := false
	for _, l := range cands {
		o := &ix.Leaves[l]
		if l == best || o.Kind != evidence.KindNum || o.Text || leafDim(o) == evidence.DimPercent {
			continue
		}
		or := fieldRate(o)
		if !or.is {
			continue
		}
		same := or.per != nil && cr.per != nil && or.per.Dim == cr.per.Dim && or.per.Factor == cr.per.Factor ||
			cr.word != "" && !lang.IsCJK([]rune(cr.word)[0]) && keyHasWord(o, strings.ToLower(cr.word)) // price_per_player_pence
		if same || denominator && o.Node == lf.Node {
			rates = append(rates, l)
			exact = same
		}
	}
	if len(rates) == 0 {
		return fact{}, false
	}
	for _, l := range rates {
		if cx.matchesLeaf(m, l) {
			return supported(ix, "value matches the rate field", l), true
		}
	}
	if len(rates) == 1 && exact && !cr.every {
		return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(rates[0])},
			reason: "evidence says " + ix.Leaves[rates[0]].Raw() + " at " + ix.Leaves[rates[0]].Ptr() + ", the rate per " + cr.word}, true
	}
	return fact{verdict: events.VerdictUnsupported, weak: true,
		reason: "the claim states a rate; " + lf.Ptr() + " holds none, and no one rate field is about it"}, true
}

// rateDenominator reports whether number m says how much of a unit
// another number of the claim is a rate per: "per" or 每 right before it,
// after another number ("€140 per 100 grams", 每100克12元 has it before:
// 每 then m, with a number after). Such a number is no value of a field
// that measures its unit (grams 250 is what was bought, not 100).
func (cx *claim) rateDenominator(m *evidence.NumMention) bool {
	if m.Start <= 0 || m.Start > len(cx.norm) || len(cx.nums) < 2 {
		return false
	}
	before := strings.TrimRight(string(cx.norm[:m.Start]), " ")
	var marker string
	switch {
	case strings.HasSuffix(strings.ToLower(before), " per"):
		marker = "per"
	case strings.HasSuffix(before, "每"):
		marker = "每"
	default:
		return false
	}
	at := len([]rune(before)) - len([]rune(marker))
	for i := range cx.nums {
		o := &cx.nums[i]
		if o.Start == m.Start {
			continue
		}
		if marker == "per" && o.End <= at || marker == "每" && o.Start >= m.End {
			return true
		}
	}
	return false
}
