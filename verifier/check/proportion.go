package check

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// A proportion said in words ("four in five customers", "three out of
// ten") is one share, N/M, not two numbers: it is judged as the
// percentage 100·N/M against what the claim names, with the tolerance the
// words carry (the nearest fraction of that denominator: half of 1/M
// either way). The joiners are words.txt's [proportion joiners].

// proportionJoiners are the words between N and M ("in", "out of").
var proportionJoiners = func() []string {
	var out []string
	for _, w := range evidence.LangData.List("proportion joiners") {
		out = append(out, strings.ReplaceAll(w, "_", " "))
	}
	return out
}()

// proportionDenMax is the largest denominator read as a share said in
// words: "four in five", not "3 in 2026".
const proportionDenMax = 20

// proportionAt reports whether numbers i and i+1 of the claim are a share
// said in words (N joiner M, whole numbers, 0 < N < M ≤ proportionDenMax,
// no unit).
func (cx *claim) proportionAt(i int) bool {
	if i+1 >= len(cx.nums) {
		return false
	}
	n, d := &cx.nums[i], &cx.nums[i+1]
	for _, m := range [2]*evidence.NumMention{n, d} {
		if m.IsRange || m.Bound != 0 || m.Unit != nil || m.V != math.Trunc(m.V) || m.Mag != 1 && m.Mag != 0 {
			return false
		}
	}
	if n.V < 1 || n.V >= d.V || d.V > proportionDenMax || n.End > d.Start || d.Start > len(cx.norm) {
		return false
	}
	between := strings.ToLower(strings.TrimSpace(string(cx.norm[n.End:d.Start])))
	return slices.Contains(proportionJoiners, between)
}

// numeratorWord reads the numerator of a share said in words that the
// claim's numbers do not hold, a number word before a joiner before d
// ("four in five": the scanner reads five only).
func (cx *claim) numeratorWord(d *evidence.NumMention) (evidence.NumMention, bool) {
	if d.IsRange || d.Bound != 0 || d.Unit != nil || d.V != math.Trunc(d.V) || d.V > proportionDenMax || d.Start > len(cx.norm) {
		return evidence.NumMention{}, false
	}
	before := strings.ToLower(strings.TrimRight(string(cx.norm[:d.Start]), " "))
	for _, j := range proportionJoiners {
		rest, ok := strings.CutSuffix(before, " "+j)
		if !ok {
			continue
		}
		rest = strings.TrimRight(rest, " ")
		w := rest[strings.LastIndexAny(rest, " ,;:(")+1:]
		v, ok := evidence.LangData.NumberWord(w)
		if !ok || v < 1 || v >= d.V || v != math.Trunc(v) {
			return evidence.NumMention{}, false
		}
		start := len([]rune(rest)) - len([]rune(w))
		return evidence.NumMention{Start: start, End: start + len([]rune(w)), V: v, Hi: v, Mag: 1}, true
	}
	return evidence.NumMention{}, false
}

// checkProportion judges the share N/M said by numbers n and d: as a
// score on a scale of M when a field the claim names holds N, else as the
// percentage it is, supported by a field within half of 1/M of it, and
// contradicted only by a percentage field the claim binds.
func (cx *claim) checkProportion(n, d *evidence.NumMention) fact {
	if g := cx.checkNumber(n); g.verdict == events.VerdictSupported {
		return g // "pain 3 out of 10" beside pain 3: a score on its scale
	}
	share := 100 * n.V / d.V
	p := *d
	p.Start, p.V, p.Hi, p.Unit, p.Approx, p.Decimals, p.Mag = n.Start, share, share, evidence.UPercent, false, 0, 1
	f := cx.checkNumberIn(&p)
	if f.verdict != events.VerdictSupported && !isShare(f) {
		// The noun after M may be the whole the share is of ("four in
		// five members renewed" beside members and renewal_rate_pct):
		// read without it, a percentage field the claim's other words
		// name decides.
		q := p
		q.Head, q.HeadWord, q.Near, q.Local = nil, "", nil, nil
		if g := cx.checkNumberIn(&q); g.verdict == events.VerdictSupported || isShare(g) {
			f = g
		}
	}
	if f.verdict != events.VerdictContradicted {
		return f
	}
	if len(f.refs) > 0 {
		if v, err := strconv.ParseFloat(f.refs[0].Value, 64); err != nil || v < 0 || v > 100 {
			// "four in five members" beside members 640: no share.
			return fact{verdict: events.VerdictUnsupported, weak: true, reason: "a share said in words is bound only by a percentage; " + f.reason}
		}
	}
	for _, r := range f.refs[:min(1, len(f.refs))] {
		if v, err := strconv.ParseFloat(r.Value, 64); err == nil && math.Abs(v-share) <= 50/d.V {
			return fact{verdict: events.VerdictSupported, refs: f.refs[:1], leaves: f.leaves,
				reason: "the share said in words is within half of 1/" + strconv.FormatFloat(d.V, 'f', -1, 64) + " of the field"}
		}
	}
	return f
}

// isShare reports whether f contradicts by a field that may hold a share
// (a value from 0 to 100).
func isShare(f fact) bool {
	if f.verdict != events.VerdictContradicted || len(f.refs) == 0 {
		return false
	}
	v, err := strconv.ParseFloat(f.refs[0].Value, 64)
	return err == nil && v >= 0 && v <= 100
}
