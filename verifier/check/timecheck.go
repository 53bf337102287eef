package check

import (
	"slices"
	"strings"
	"time"

	"github.com/toolstream/toolstream/events"
)

// Time: dates in claims (2024-05-03, May 3, 5月3日), relative days resolved
// against the answer's event time (today, tomorrow, 明天, 后天, in 3 days),
// weekdays (Friday, 周五), bounds (by Friday, 周五之前) and durations
// checked against evidence dates ("3-5 days" against an eta). Dates are day
// numbers since 1970-01-01; the answer's "today" is now's date in now's
// location, and an evidence timestamp's date is taken in its own offset.

// timeExpr is one time expression of a claim.
type timeExpr struct {
	start, end int     // rune offsets
	days       []int32 // the days it may mean (a weekday: one; "next Friday": two)
	lo, hi     int32   // a range of days (lo == hi for one day)
	bound      cue     // cueLE (by, before, 之前) or cueGE (after, 之后)
	clock      int     // minute of day, -1 if none
	onlyClock  bool
	rel        bool // its days depend on the time it is read at (tomorrow, May 3, Friday)
}

func dayNumber(y int, m time.Month, d int) int32 {
	return int32(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

func dayOf(t time.Time) int32 {
	y, m, d := t.Date()
	return dayNumber(y, m, d)
}

var evidenceDateLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05",
	"2006-01-02 15:04", "2006-01-02", "2006/01/02", "2006/1/2", "2006-1-2", "2006年1月2日",
	"2006年01月02日", "Jan 2, 2006", "January 2, 2006", "2 Jan 2006", "2 January 2006",
	"2006-01-02T15:04:05Z0700", "2006-01-02 15:04:05Z07:00",
}

// parseEvidenceDate parses a date or timestamp value; minute is the minute
// of day when the value has a time, else -1.
func parseEvidenceDate(s string) (int32, int16, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 8 || len(s) > 40 {
		return 0, -1, false
	}
	// Cheap shape test before trying layouts: "2024-05-04…", "2024/5/4",
	// "2024年…", "May 4, 2024", "4 May 2024".
	switch c := s[0]; {
	case c >= '0' && c <= '9':
		if !(len(s) > 4 && isDigitByte(s[1]) && isDigitByte(s[2]) && isDigitByte(s[3]) && strings.ContainsRune("-/年", rune(s[4]))) &&
			!(strings.IndexByte(s, ' ') > 0 && strings.IndexByte(s, ' ') <= 2) && !strings.HasPrefix(s[4:], "年") {
			return 0, -1, false
		}
	case c >= 'A' && c <= 'Z':
		if _, ok := months[strings.ToLower(s[:3])]; !ok {
			return 0, -1, false
		}
	default:
		return 0, -1, false
	}
	for _, l := range evidenceDateLayouts {
		t, err := time.Parse(l, s)
		if err != nil {
			continue
		}
		minute := int16(-1)
		if strings.Contains(l, "15") {
			minute = int16(t.Hour()*60 + t.Minute())
		}
		return dayOf(t), minute, true
	}
	return 0, -1, false
}

// weekdayNames are the weekday values a field may hold whole ("Mon",
// "Tuesday", "周三", "星期四").
var weekdayNames = numberTable[time.Weekday]("weekday values")

// weekdayOf reads a value that is only a weekday ("Mon", "周三").
func weekdayOf(s string) (time.Weekday, bool) {
	if wd, ok := weekdayNames[strings.TrimSuffix(s, ".")]; ok {
		return wd, true
	}
	for _, p := range []string{"周", "星期", "礼拜"} {
		if rest, found := strings.CutPrefix(s, p); found && len([]rune(rest)) == 1 {
			if d, ok := weekdays[rest]; ok {
				return d, true
			}
		}
	}
	return 0, false
}

// nextWeekday is the day of weekday wd on or after now.
func nextWeekday(wd time.Weekday, now time.Time) int32 {
	return dayOf(now) + int32((int(wd)-int(now.Weekday())+7)%7)
}

// parseClock parses a time of day value ("15:00", "3:30 PM", "18:30:00");
// it returns the minute of day or -1.
func parseClock(s string) int16 {
	s = strings.TrimSpace(s)
	if len(s) < 4 || len(s) > 11 || !isDigitByte(s[0]) {
		return -1
	}
	for _, l := range []string{"15:04", "15:04:05", "3:04 PM", "3:04PM", "3:04 pm", "3:04pm"} {
		if t, err := time.Parse(l, s); err == nil {
			return int16(t.Hour()*60 + t.Minute())
		}
	}
	return -1
}

var months = numberTable[time.Month]("months")

var weekdays = numberTable[time.Weekday]("weekdays")

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// dateTarget is an evidence date (or day window) a time claim is checked
// against.
type dateTarget struct {
	leaves []int32
	lo, hi int32
	score  int
	clock  int
}

// dateTargetsMax bounds the evidence dates one claim is compared with (a
// year of days, ten times over).
const dateTargetsMax = 4096

// dateTargets returns the evidence dates in scope, best match for concepts
// first: date fields, windows of two date fields (earliest/latest) and day
// counts relative to now (eta_days: 2).
func (cx *claim) dateTargets(concepts []string) []dateTarget {
	ix := cx.ix
	d0 := dayOf(cx.now)
	var out []dateTarget
	windows := map[int32][]int32{} // node -> date leaves
	for _, l := range cx.inScopeOf(ix.dates) {
		if len(out) == dateTargetsMax {
			break // NB: the first dates of the evidence, in document order
		}
		lf := &ix.leaves[l]
		windows[lf.node] = append(windows[lf.node], l)
		out = append(out, dateTarget{leaves: []int32{l}, lo: lf.day, hi: lf.day, score: attrScore(concepts, lf), clock: int(lf.minute)})
	}
	// Two dates of one object that bound a window (earliest/latest, from/to).
	for _, ls := range windows {
		if len(ls) != 2 {
			continue
		}
		a, b := &ix.leaves[ls[0]], &ix.leaves[ls[1]]
		if isWindowPair(a.ptr(), b.ptr()) {
			lo, hi := min(a.day, b.day), max(a.day, b.day)
			out = append(out, dateTarget{leaves: ls, lo: lo, hi: hi, score: max(attrScore(concepts, a), attrScore(concepts, b)) - 1, clock: -1})
		}
	}
	// Day counts: {"eta_days": 2} or {"delivery_days_min": 3, "delivery_days_max": 5}.
	// (In leaf order; the sort below orders them.)
	for _, l := range cx.inScopeOf(ix.numsInOrder()) {
		lf := &ix.leaves[l]
		if lf.unit() == nil || lf.unit().dim != dimTime || lf.text || lf.num < 0 || lf.num > 3650 {
			continue
		}
		if !hasAny(lf.own(), conceptRoles["arrival"]...) && !hasAny(lf.ctx(), conceptRoles["arrival-scope"]...) {
			continue
		}
		days := lf.num * lf.unit().factor / 86400
		if days != float64(int32(days)) {
			continue
		}
		out = append(out, dateTarget{leaves: []int32{l}, lo: d0 + int32(days), hi: d0 + int32(days), score: attrScore(concepts, lf), clock: -1})
	}
	// Best attribute score first; ties by evidence order.
	sortStable(out, func(a, b dateTarget) bool {
		if a.score != b.score {
			return a.score > b.score
		}
		return a.leaves[0] < b.leaves[0]
	})
	return out
}

func isWindowPair(p, q string) bool {
	pairs := [][2]string{{"earliest", "latest"}, {"min", "max"}, {"from", "to"}, {"start", "end"}, {"begin", "end"}, {"lo", "hi"}, {"in", "out"}}
	p, q = strings.ToLower(p), strings.ToLower(q)
	for _, pr := range pairs {
		if strings.Contains(p, pr[0]) && strings.Contains(q, pr[1]) || strings.Contains(p, pr[1]) && strings.Contains(q, pr[0]) {
			return true
		}
	}
	return false
}

// localConcepts returns the concepts of the words between the previous
// time expression (or the claim's start) and te: "departs … on May 6 and
// lands … on May 7" checks May 7 against the landing time.
func (cx *claim) localConcepts(te *timeExpr) []string {
	from := 0
	for i := range cx.times {
		if o := &cx.times[i]; o.end <= te.start && o.end > from {
			from = o.end
		}
	}
	var out []string
	for _, w := range cx.words {
		if w.start >= from && w.end <= te.start && w.info != nil {
			out = append(out, w.info.concepts...)
		} else if w.start >= from && w.end <= te.start && !w.cjk {
			out = append(out, wordConcepts(w.s)...)
		}
	}
	return dedupe(out)
}

// checkTime checks one time expression.
func (cx *claim) checkTime(te *timeExpr) fact {
	ix := cx.ix
	concepts := cx.concepts
	if local := cx.localConcepts(te); len(local) > 0 && len(cx.times) > 1 {
		for _, t := range cx.dateTargets(local) {
			if t.score > 0 {
				concepts = local
			}
			break
		}
	}
	targets := cx.dateTargets(concepts)
	if te.onlyClock && len(te.days) == 0 {
		// "11:29 到达", "check-out is at 11 am": a time of day against the
		// times in the evidence, timestamps and times alike.
		for _, l := range cx.inScopeOf(ix.clocks) {
			lf := &ix.leaves[l]
			targets = append(targets, dateTarget{leaves: []int32{l}, score: attrScore(concepts, lf), clock: int(lf.minute)})
		}
		sortStable(targets, func(a, b dateTarget) bool { return a.score > b.score })
		var first *dateTarget
		for i := range targets {
			t := &targets[i]
			if t.clock < 0 {
				continue
			}
			if first != nil && t.score < first.score {
				break
			}
			if first == nil {
				first = t
			}
			if t.clock == te.clock {
				return supported(ix, "time matches", t.leaves...)
			}
		}
		if first != nil && first.score > 0 {
			return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(first.leaves[0])}, reason: "evidence time differs"}
		}
		return fact{}
	}
	if len(targets) == 0 {
		if cx.dayNamedByKey(te) {
			return fact{} // {"today": {"max_c": 19}}: the field is the day's
		}
		return fact{verdict: events.VerdictUnsupported, reason: "no date in the evidence"}
	}
	best := targets[0].score
	var first *dateTarget
	for i := range targets {
		t := &targets[i]
		if t.score < best && best > 0 {
			break
		}
		if first == nil {
			first = t
		}
		if v, ok := dayHolds(te, t); ok {
			if v == events.VerdictSupported && te.clock >= 0 && t.clock >= 0 && te.bound == 0 && te.clock != t.clock {
				continue
			}
			f := supported(ix, "date matches", t.leaves...)
			f.verdict = v
			if v == events.VerdictUnsupported {
				f.reason, f.refs = "the evidence gives a window, not a day", nil
			}
			return f
		}
	}
	refs := []events.EvidenceRef{}
	for _, l := range first.leaves {
		refs = append(refs, ix.ref(l))
	}
	return fact{verdict: events.VerdictContradicted, refs: refs, reason: "evidence date differs at " + ix.leaves[first.leaves[0]].ptr()}
}

// dayHolds decides a time expression against one evidence date or window.
func dayHolds(te *timeExpr, t *dateTarget) (events.Verdict, bool) {
	switch te.bound {
	case cueLE:
		if t.hi <= te.hi {
			return events.VerdictSupported, true
		}
		return "", false
	case cueGE:
		if t.lo >= te.lo {
			return events.VerdictSupported, true
		}
		return "", false
	}
	if te.lo != te.hi && len(te.days) == 2 && te.days[1] == te.days[0]+1 {
		// A weekend: any day of it.
		if t.lo >= te.lo && t.hi <= te.hi {
			return events.VerdictSupported, true
		}
		return "", false
	}
	for _, d := range te.days {
		if t.lo == t.hi && t.lo == d {
			return events.VerdictSupported, true
		}
		if t.lo != t.hi && (d == t.lo || d == t.hi) && t.hi-t.lo <= 1 {
			return events.VerdictSupported, true
		}
		if t.lo != t.hi && d >= t.lo && d <= t.hi {
			return events.VerdictUnsupported, true
		}
	}
	return "", false
}

// durationAsDates checks a claimed duration ("3 days", "within 2 days",
// "3-5 business days") against evidence dates: the days from now to each.
func (cx *claim) durationAsDates(m *numMention) (fact, bool) {
	if m.unit == nil || m.unit.dim != dimTime || m.unit.factor < 86400 {
		return fact{}, false
	}
	d0 := dayOf(cx.now)
	per := m.unit.factor / 86400
	lo, hi := int32(m.v*per+0.5), int32(m.hi*per+0.5)
	te := &timeExpr{days: []int32{d0 + lo}, lo: d0 + lo, hi: d0 + hi, bound: m.bound}
	if m.bound == cueLT {
		te.bound, te.hi = cueLE, d0+hi-1
	}
	if m.isRange {
		for _, t := range cx.dateTargets(cx.concepts) {
			if t.score == 0 && len(cx.concepts) > 0 {
				continue
			}
			if t.lo >= te.lo && t.hi <= te.hi {
				return supported(cx.ix, "dates fall in the range", t.leaves...), true
			}
			return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{cx.ix.ref(t.leaves[0])}, reason: "evidence date outside the range"}, true
		}
		return fact{}, false
	}
	for _, t := range cx.dateTargets(cx.concepts) {
		if t.score == 0 && len(cx.concepts) > 0 {
			continue
		}
		if v, ok := dayHolds(te, &t); ok && v == events.VerdictSupported {
			return supported(cx.ix, "date matches", t.leaves...), true
		}
		return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{cx.ix.ref(t.leaves[0])}, reason: "evidence date differs"}, true
	}
	return fact{}, false
}

// mightHaveDate is a cheap test for a date inside text: a month or weekday
// name, a relative day, a Chinese date, or digits joined by - or /.
func mightHaveDate(r []rune) bool {
	s := string(r)
	if hasAnyRune(s, "月周星今明昨后") || hasMonthName(s) {
		return true
	}
	for _, w := range []string{"day", "tomorrow", "tonight", "weekend"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	for i := 1; i+1 < len(r); i++ {
		if (r[i] == '-' || r[i] == '/') && isDigit(r[i-1]) && isDigit(r[i+1]) {
			return true
		}
	}
	return false
}

// futureTime reports a time expression on or after the answer's day.
func (cx *claim) futureTime() bool {
	d0 := dayOf(cx.now)
	for _, te := range cx.times {
		if len(te.days) > 0 && te.days[0] >= d0 {
			return true
		}
	}
	return false
}

// dayKeys are the relative days a result may name by a key instead of a
// date ({"today": {…}, "tomorrow": {…}}), each with the key words naming it.
var dayKeys = func() map[string][]string {
	m := map[string][]string{}
	for _, l := range langData.Lines("day keys") {
		var keys []string
		for _, w := range l.Words {
			if !strings.HasSuffix(w, "'s") {
				keys = append(keys, w)
			}
		}
		for _, w := range l.Words {
			m[w] = keys
		}
	}
	return m
}()

// dayNamedByKey reports whether te is a relative day ("today", 明天) that
// a key of the evidence in scope names: the values under it are that
// day's, though no date says so.
func (cx *claim) dayNamedByKey(te *timeExpr) bool {
	if te.start < 0 || te.end > len(cx.orig) || te.start >= te.end {
		return false
	}
	keys, ok := dayKeys[strings.ToLower(string(cx.orig[te.start:te.end]))]
	if !ok {
		return false
	}
	ix := cx.ix
	for i := range ix.nodes {
		if slices.Contains(keys, strings.ToLower(lastToken(ix.nodes[i].ptr))) && cx.nodeInScope(int32(i)) {
			return true
		}
	}
	return false
}
