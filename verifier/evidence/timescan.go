package evidence

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ScanTimes finds the time expressions of a claim's normalised runes r,
// resolving relative ones against now. It marks their runes in used.
// Each pattern of timePatterns is tried in order over the whole text; a
// match overlapping one taken before it is skipped.
func ScanTimes(r []rune, now time.Time, used []bool) []TimeExpr {
	return scanTimesIn(string(r), now, used)
}

// scanTimesIn is scanTimes over the text as a string, s.
func scanTimesIn(s string, now time.Time, used []bool) []TimeExpr {
	var ts TimeScan
	return ts.Scan(s, now, used)
}

// Scan is scanTimesIn made in ts (a claim's is in its reading's buffers:
// what it returns is its own).
func (ts *TimeScan) Scan(s string, now time.Time, used []bool) []TimeExpr {
	*ts = TimeScan{s: s, now: now, d0: DayOf(now), used: used}
	mask := TextMask(s)
	ts.gate = TimeGate{S: s, Digits: mask&maskDigit != 0}
	for i := range TimePatterns {
		p := &TimePatterns[i]
		if !MaskHolds(mask, p.Needs) || !p.Gate(&ts.gate) {
			continue
		}
		for _, m := range p.Re.FindAllStringSubmatchIndex(ts.s, -1) {
			p.read(ts, m)
		}
	}
	out := attachClocks(ts.out)
	ts.out = nil
	return out
}

// timePattern is one way of writing a time. gate is a cheap test of the
// text that must pass before re runs, and needs what gate needs of the
// text's characters (tried first, on its textMask); read
// turns one match (re's submatch indexes) into a time expression.
type timePattern struct {
	Name  string
	Re    *regexp.Regexp
	Needs []uint64 // what gate needs of the text (one of them: see needs)
	Gate  func(g *TimeGate) bool
	read  func(ts *TimeScan, m []int)
}

// TimePatterns in the order they take runes: dates written out first,
// then durations from now, times of day, relative days and weekdays. A
// gate holds for every text its regexp matches in: the regexps, not the
// gates, decide what is read; the gates only spare most texts the
// regexps.
var TimePatterns = []timePattern{
	{"iso date", reISO, needs("0-", "0/", "0."), func(g *TimeGate) bool { return g.Digits && isoShaped(g.S) }, readISODate},
	{"chinese date", reZhDate, needs("0月日", "0月号"), func(g *TimeGate) bool {
		return g.Digits && strings.Contains(g.S, "月") && hasAnyRune(g.S, "日号")
	}, readZhDate},
	{"month day", reMonthDay, monthNeeds, func(g *TimeGate) bool { return g.Digits && g.monthName() }, readMonthDay},
	{"day month", reDayMonth, monthNeeds, func(g *TimeGate) bool { return g.Digits && g.monthName() }, readDayMonth},
	{"us date", reUSDate, needs("0/"), func(g *TimeGate) bool { return g.Digits && strings.Contains(g.S, "/") }, readUSDate},
	// NB: like the dates, only in a text with a digit somewhere ("in two
	// days" alone is not read).
	{"in days", reInDays, needs("0in ", "0later", "0from now", "0后"), func(g *TimeGate) bool {
		s := g.S
		return g.Digits && (strings.Contains(s, "in ") || strings.Contains(s, "later") || strings.Contains(s, "from now") || strings.Contains(s, "后")) &&
			(inCountOfDays(s) || strings.Contains(s, "later") || strings.Contains(s, "from") || strings.Contains(s, "后"))
	}, readInDays},
	{"clock", reClock, needs(":", "点", "时", "0am", "0a.", "0pm", "0p.", "noon", "midnight", "midday"), func(g *TimeGate) bool {
		s := g.S
		return hasAnyRune(s, ":点时") || meridiemAfterDigit(s) ||
			strings.Contains(s, "noon") || strings.Contains(s, "midnight") || strings.Contains(s, "midday")
	}, readClock},
	{"relative day", reRel, needs("明", "今", "后", "昨", "前", "today", "tonight", "tomorrow", "yesterday", "this"), func(g *TimeGate) bool {
		s := g.S
		return hasAnyRune(s, "明今后昨前") || strings.Contains(s, "today") || strings.Contains(s, "tonight") ||
			strings.Contains(s, "tomorrow") || strings.Contains(s, "yesterday") || strings.Contains(s, "this")
	}, readRelativeDay},
	{"weekday", reWeekday, needs("周", "星期", "礼拜", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"), func(g *TimeGate) bool {
		s := g.S
		return strings.Contains(s, "周") || strings.Contains(s, "星期") || strings.Contains(s, "礼拜") || HasWeekdayName(s)
	}, readWeekday},
	{"weekend", reWeekend, needs("weekend", "周末"), func(g *TimeGate) bool { return strings.Contains(g.S, "weekend") || strings.Contains(g.S, "周末") }, readWeekend},
}

// A text's mask says which of some characters it has, one bit each: the
// ASCII lowercase letters, a digit, ':', '/', '-', '.', ' ', and the
// ideographs of gateRunes. A gate that needs a word needs each of its
// characters: a pattern's needs are masks, one of which the text's must
// hold for its gate to hold (textMask is one pass over the text; the gates
// are several).
const (
	maskDigit = uint64(1) << (26 + iota)
	maskColon
	maskSlash
	maskDash
	maskDot
	maskSpace
	maskRunes // the first of gateRunes'
)

// gateRunes are the ideographs the gates look for.
const gateRunes = "月日号点时明今后昨前周星期礼拜末"

// maskOf is the bit of an ASCII byte in a mask (0: none).
var maskOf = func() (m [utf8.RuneSelf]uint64) {
	for c := 'a'; c <= 'z'; c++ {
		m[c] = 1 << (c - 'a')
	}
	for c := '0'; c <= '9'; c++ {
		m[c] = maskDigit
	}
	m[':'], m['/'], m['-'], m['.'], m[' '] = maskColon, maskSlash, maskDash, maskDot, maskSpace
	return m
}()

// runeMask is the bit of an ideograph of gateRunes (0 for another rune).
func runeMask(r rune) uint64 {
	k := 0
	for _, g := range gateRunes {
		if g == r {
			return maskRunes << k
		}
		k++
	}
	return 0
}

// TextMask returns the mask of the characters of s.
func TextMask(s string) uint64 {
	var m uint64
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			m |= maskOf[c]
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		m |= runeMask(r)
		i += n
	}
	return m
}

// needs returns the masks of words (a '0' in one stands for any digit):
// a text holds one of them if it has every character of one word. It
// panics on a character no mask has.
func needs(words ...string) []uint64 {
	out := make([]uint64, len(words))
	for i, w := range words {
		for _, c := range w {
			b := runeMask(c)
			if c < utf8.RuneSelf {
				b = maskOf[c]
			}
			if b == 0 {
				panic("verifier: a gate needs " + strconv.Quote(string(c)) + ", which no mask has")
			}
			out[i] |= b
		}
	}
	return out
}

// monthNeeds are the month names' needs, with a digit.
var monthNeeds = needs("0jan", "0feb", "0mar", "0apr", "0may", "0jun", "0jul", "0aug", "0sep", "0oct", "0nov", "0dec")

// MaskHolds reports whether text mask m holds one of needs.
func MaskHolds(m uint64, needs []uint64) bool {
	for _, n := range needs {
		if m&n == n {
			return true
		}
	}
	return false
}

// TimeGate is the text the gates test, with what more than one asks
// found once.
type TimeGate struct {
	S      string
	Digits bool // a digit somewhere
	months int8 // 0 not looked for yet, 1 a month name, -1 none
}

func (g *TimeGate) monthName() bool {
	if g.months == 0 {
		g.months = -1
		if HasMonthName(g.S) {
			g.months = 1
		}
	}
	return g.months > 0
}

// isoShaped reports four digits, a '-', '/' or '.', and a digit in s: what
// every ISO date starts with.
func isoShaped(s string) bool {
	for i := 0; i+5 < len(s); i++ {
		if strings.IndexByte("-/.", s[i+4]) >= 0 && IsDigitByte(s[i+5]) &&
			IsDigitByte(s[i]) && IsDigitByte(s[i+1]) && IsDigitByte(s[i+2]) && IsDigitByte(s[i+3]) {
			return true
		}
	}
	return false
}

// meridiemAfterDigit reports "am", "pm", "a.m." or "p.m." after a digit
// and spaces ("3pm", "10:30 a.m."), as reClock reads them.
func meridiemAfterDigit(s string) bool {
	for i := 1; i+1 < len(s); i++ {
		if s[i] != 'a' && s[i] != 'p' || s[i+1] != 'm' && s[i+1] != '.' {
			continue
		}
		j := i - 1
		for j > 0 && strings.IndexByte(" \t\n\f\r", s[j]) >= 0 {
			j--
		}
		if IsDigitByte(s[j]) {
			return true
		}
	}
	return false
}

// inCountOfDays reports "in", a count and "day" or "week" in s, with
// spaces between ("in 3 days", "in a week"): what the first form of
// reInDays needs (its others need "later", "from" or 后).
func inCountOfDays(s string) bool {
	for i := 0; ; {
		k := strings.Index(s[i:], "in")
		if k < 0 {
			return false
		}
		j := i + k + 2
		i = j
		n := len(s)
		if j >= n || strings.IndexByte(" \t\n\f\r", s[j]) < 0 {
			continue
		}
		for j < n && strings.IndexByte(" \t\n\f\r", s[j]) >= 0 {
			j++
		}
		w := j
		for j < n && (IsDigitByte(s[j]) || 'a' <= s[j] && s[j] <= 'z') {
			j++
		}
		if j == w || j >= n || strings.IndexByte(" \t\n\f\r", s[j]) < 0 {
			continue
		}
		for j < n && strings.IndexByte(" \t\n\f\r", s[j]) >= 0 {
			j++
		}
		if strings.HasPrefix(s[j:], "day") || strings.HasPrefix(s[j:], "week") {
			return true
		}
	}
}

// hasAnyRune reports whether s holds one of the runes of set. Unlike
// strings.ContainsAny, which for a set of non-ASCII runes looks each rune
// of s up in the set, it searches s for each rune of a short set in turn
// (a vectorised search: a claim's gates run on every claim).
func hasAnyRune(s, set string) bool {
	for _, r := range set {
		if strings.ContainsRune(s, r) {
			return true
		}
	}
	return false
}

// HasWeekdayName reports an English weekday name in s.
func HasWeekdayName(s string) bool {
	for i := 0; ; i += 3 {
		k := strings.Index(s[i:], "day")
		if k < 0 {
			return false
		}
		i += k
		before := s[:i]
		for _, d := range []string{"mon", "tues", "wednes", "thurs", "fri", "satur", "sun"} {
			if strings.HasSuffix(before, d) {
				return true
			}
		}
	}
}

// TimeScan is one scan of a text for time expressions.
type TimeScan struct {
	s    string
	now  time.Time
	d0   int32  // now's day
	used []bool // runes taken (by this scan or before it)
	out  []TimeExpr
	gate TimeGate
}

// take records the expression at bytes [bs, be) meaning days, unless a
// rune of it is taken; it returns the expression or nil.
func (ts *TimeScan) take(bs, be int, days ...int32) *TimeExpr {
	s := ts.s
	rs, re := utf8.RuneCountInString(s[:bs]), utf8.RuneCountInString(s[:be])
	for i := rs; i < re; i++ {
		if ts.used[i] {
			return nil
		}
	}
	for i := rs; i < re; i++ {
		ts.used[i] = true
	}
	te := TimeExpr{Start: rs, End: re, Days: days, Clock: -1}
	if len(days) > 0 {
		te.Lo, te.Hi = days[0], days[0]
	}
	te.Bound = boundAround(s, bs, be)
	ts.out = append(ts.out, te)
	return &ts.out[len(ts.out)-1]
}

// relative marks te, if any, as resolved against the time of reading
// when rel.
func (te *TimeExpr) relative(rel bool) {
	if te != nil {
		te.rel = rel
	}
}

// group returns submatch k of m, or "" when it did not take part.
func (ts *TimeScan) group(m []int, k int) string {
	if m[2*k] < 0 {
		return ""
	}
	return ts.s[m[2*k]:m[2*k+1]]
}

// days returns the days month m and day d in year y may mean (two digits
// are 20yy): with a year, that one day; with no year, the one nearest to
// now first, then the same date on the other side of now, since "May 12"
// said in December may be the May gone or the May to come (the evidence
// decides which, as for "next Friday").
func (ts *TimeScan) days(y string, m time.Month, d int) []int32 {
	if y != "" {
		yy := atoi(y)
		if yy < 100 {
			yy += 2000
		}
		return []int32{DayNumber(yy, m, d)}
	}
	// The date's last day before now and its first on or after now.
	var past, future int32
	for _, yy := range []int{ts.now.Year() + 1, ts.now.Year(), ts.now.Year() - 1} {
		if c := DayNumber(yy, m, d); c >= ts.d0 {
			future = c
		} else if past == 0 {
			past = c
		}
	}
	switch {
	case future == ts.d0:
		return []int32{future}
	case future-ts.d0 <= ts.d0-past:
		return []int32{future, past}
	}
	return []int32{past, future}
}

func atoi(x string) int { n, _ := strconv.Atoi(x); return n }

func validDate(mo, d int) bool { return mo >= 1 && mo <= 12 && d >= 1 && d <= 31 }

// readISODate: 2024-05-03, 2024/5/3, 2024-05-03 14:00.
func readISODate(ts *TimeScan, m []int) {
	mo, d := atoi(ts.group(m, 2)), atoi(ts.group(m, 3))
	if !validDate(mo, d) {
		return
	}
	if te := ts.take(m[0], m[1], DayNumber(atoi(ts.group(m, 1)), time.Month(mo), d)); te != nil && m[8] >= 0 {
		te.Clock = atoi(ts.group(m, 4))*60 + atoi(ts.group(m, 5))
	}
}

// readZhDate: 5月3日, 2024年5月3号.
func readZhDate(ts *TimeScan, m []int) {
	mo, d := atoi(ts.group(m, 2)), atoi(ts.group(m, 3))
	if validDate(mo, d) {
		ts.take(m[0], m[1], ts.days(ts.group(m, 1), time.Month(mo), d)...).relative(m[2] < 0)
	}
}

// readMonthDay: May 3, May 3rd, 2024.
func readMonthDay(ts *TimeScan, m []int) {
	mo, d := months[ts.group(m, 1)], atoi(ts.group(m, 2))
	if d >= 1 && d <= 31 {
		ts.take(m[0], m[1], ts.days(ts.group(m, 3), mo, d)...).relative(m[6] < 0)
	}
}

// readDayMonth: 3 May 2024, the 3rd of June. NB: "3 may" without a year
// is never a date, whatever precedes it ("3 may ship").
func readDayMonth(ts *TimeScan, m []int) {
	d, mo := atoi(ts.group(m, 1)), months[ts.group(m, 2)]
	if d >= 1 && d <= 31 && !(ts.group(m, 2) == "may" && m[6] < 0) {
		ts.take(m[0], m[1], ts.days(ts.group(m, 3), mo, d)...).relative(m[6] < 0)
	}
}

// readUSDate: on 5/3, by 5/3/24 (month first, after a word that takes a
// date; the word is not part of the expression).
func readUSDate(ts *TimeScan, m []int) {
	mo, d := atoi(ts.group(m, 1)), atoi(ts.group(m, 2))
	if validDate(mo, d) {
		ts.take(m[2], m[1], ts.days(ts.group(m, 3), time.Month(mo), d)...).relative(m[6] < 0)
	}
}

// smallNumbers are the number words a duration's count is said in.
var smallNumbers = numberTable[int]("small numbers")

// readInDays: in 3 days, two weeks from now, 3 天后, 两周后.
func readInDays(ts *TimeScan, m []int) {
	var n int
	var u string
	switch {
	case m[2] >= 0:
		if v, ok := smallNumbers[ts.group(m, 1)]; ok {
			n = v
		} else {
			n = atoi(ts.group(m, 1))
		}
		u = ts.group(m, 2)
	case m[6] >= 0:
		n, u = atoi(ts.group(m, 3)), ts.group(m, 4)
	default:
		x := ts.group(m, 5)
		if v, _, ok := parseZhNumber([]rune(x), 0); ok && !isDigit([]rune(x)[0]) {
			n = int(v)
		} else {
			n = atoi(x)
		}
		u = ts.group(m, 6)
	}
	unitLen := 1
	if strings.HasPrefix(u, "week") || u == "周" || u == "个星期" {
		unitLen = 7
	}
	ts.take(m[0], m[1], ts.d0+int32(n*unitLen)).relative(true)
}

// readClock: 3pm, 3:30 p.m., 15:00, 下午3点半, noon. A time of day names
// no day of its own; attachClocks gives it to the day next to it.
func readClock(ts *TimeScan, m []int) {
	var h, mi int
	switch {
	case m[2] >= 0:
		h = atoi(ts.group(m, 1))
		if m[4] >= 0 {
			mi = atoi(ts.group(m, 2))
		}
		if strings.HasPrefix(ts.group(m, 3), "p") && h < 12 {
			h += 12
		}
	case m[8] >= 0:
		if clockDurationAt(ts.s, m[0], m[1]) {
			return // 1:14:51, 9:58.12: a duration (ScanNumbers reads it)
		}
		h, mi = atoi(ts.group(m, 4)), atoi(ts.group(m, 5))
	case m[18] >= 0:
		if ts.group(m, 9) != "midnight" {
			h = 12
		}
	default:
		h = atoi(ts.group(m, 7))
		if m[12] >= 0 && strings.ContainsAny(ts.group(m, 6), "下晚傍") && h < 12 {
			h += 12
		}
		if m[16] >= 0 {
			mi = atoi(ts.group(m, 8))
		} else if strings.HasSuffix(ts.s[m[0]:m[1]], "半") {
			mi = 30
		}
	}
	if h > 24 || mi > 59 {
		return
	}
	if te := ts.take(m[0], m[1]); te != nil {
		te.Clock, te.OnlyClock = h*60+mi, true
	}
}

// relativeDays are days named relative to today.
var relativeDays = numberTable[int32]("relative days")

// readRelativeDay: today, tomorrow, the day after tomorrow, 明天, 后天.
func readRelativeDay(ts *TimeScan, m []int) {
	w := strings.Join(strings.Fields(ts.s[m[0]:m[1]]), " ")
	ts.take(m[0], m[1], ts.d0+relativeDays[w]).relative(true)
}

// readWeekday: Friday, next Friday (the coming one or the one after), this
// Friday, last Friday (the one before today or last week's), Thursday next
// week, 周五, 下周五 (Friday of next week), 本周五, 上周五 (Friday of last
// week; weeks start on Monday). A weekday alone may be the coming one or
// the one just gone ("was due back on Monday", 周一来过): its first day is
// the coming one, and the one before is another it may mean. Beside a date
// it names the day of ("Saturday 28 November", 11月28日周六), it is that
// date's and not read again.
func readWeekday(ts *TimeScan, m []int) {
	var mod, name string
	if m[4] >= 0 {
		name, mod = ts.group(m, 2), ts.group(m, 1)
		if post := ts.group(m, 3); post != "" {
			mod = post + " week"
		}
	} else {
		name, mod = ts.group(m, 5), ts.group(m, 4)
	}
	d0, wd0 := ts.d0, int32(ts.now.Weekday())
	wd := int32(weekdays[name])
	if ts.namesDayOfDate(m[0], m[1], wd) {
		return
	}
	ahead := (wd - wd0 + 7) % 7
	back := (wd0-wd+6)%7 + 1 // 1..7 days ago
	mon := d0 - (wd0+6)%7    // this week's Monday
	var days []int32
	switch {
	case mod == "next week" || strings.HasPrefix(mod, "下"):
		days = []int32{mon + 7 + (wd+6)%7}
	case mod == "last week" || strings.HasPrefix(mod, "上"):
		days = []int32{mon - 7 + (wd+6)%7}
	case mod == "this week":
		days = []int32{mon + (wd+6)%7}
	case mod == "next":
		days = []int32{d0 + ahead + 7, d0 + ahead}
	case mod == "last" || mod == "past":
		days = []int32{d0 - back, mon - 7 + (wd+6)%7}
	case strings.HasPrefix(mod, "本") || strings.HasPrefix(mod, "这") || mod == "this":
		days = []int32{mon + (wd+6)%7, d0 + ahead}
	default:
		days = []int32{d0 + ahead}
		if ahead == 0 {
			days = append(days, d0+7)
		}
		if mod == "" {
			days = append(days, d0-back)
		}
	}
	ts.take(m[0], m[1], days...).relative(true)
}

// namesDayOfDate reports whether the weekday wd at bytes [bs, be) stands
// beside a date already read whose day is a wd, or one of whose days is
// (at most two runes of space or punctuation between them), and if so
// takes its runes and that day.
func (ts *TimeScan) namesDayOfDate(bs, be int, wd int32) bool {
	rs, re := utf8.RuneCountInString(ts.s[:bs]), utf8.RuneCountInString(ts.s[:be])
	for i := range ts.out {
		te := &ts.out[i]
		if te.OnlyClock || te.Lo != te.Hi {
			continue
		}
		// A date with no year may mean two days (days); the weekday
		// names the one it is ("Monday 14 December").
		k := slices.IndexFunc(te.Days, func(d int32) bool { return (d+4)%7 == wd }) // NB: day 0, 1 January 1970, was a Thursday
		if k < 0 {
			continue
		}
		if te.Start-re >= 0 && te.Start-re <= 2 || rs-te.End >= 0 && rs-te.End <= 2 {
			te.Days = []int32{te.Days[k]}
			te.Lo, te.Hi = te.Days[0], te.Days[0]
			for i := rs; i < re; i++ {
				ts.used[i] = true
			}
			return true
		}
	}
	return false
}

// readWeekend: this weekend, next weekend, last weekend, 周末, 下周末,
// 上周末: its Saturday and Sunday (on a Sunday, this weekend is the one
// under way).
func readWeekend(ts *TimeScan, m []int) {
	d0, wd0 := ts.d0, int32(ts.now.Weekday())
	sat := d0 + (6-wd0+7)%7
	if wd0 == 0 {
		sat = d0 - 1
	}
	switch {
	case ts.group(m, 1) == "next" || strings.HasPrefix(ts.group(m, 2), "下"):
		sat += 7
	case ts.group(m, 1) == "last" || strings.HasPrefix(ts.group(m, 2), "上"):
		sat -= 7
	}
	if te := ts.take(m[0], m[1], sat, sat+1); te != nil {
		te.Lo, te.Hi, te.rel = sat, sat+1, true
	}
}

const monthRE = `(january|february|march|april|may|june|july|august|september|sept|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|oct|nov|dec)`

var (
	reISO      = regexp.MustCompile(`\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[t ](\d{1,2}):(\d{2})(?::\d{2})?)?`)
	reZhDate   = regexp.MustCompile(`(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]`)
	reMonthDay = regexp.MustCompile(`\b` + monthRE + `\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(\d{4}))?`)
	reDayMonth = regexp.MustCompile(`\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + monthRE + `\b\.?(?:,?\s+(\d{4}))?`)
	reUSDate   = regexp.MustCompile(`\b(?:on|by|until|before|after|date|eta)\s+(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?\b`)
	reRel      = regexp.MustCompile(`\b(today|tonight|tomorrow|yesterday|(?:the\s+)?day\s+after\s+tomorrow|this\s+(?:morning|afternoon|evening))\b|(大后天|后天|明天|明日|明早|明晚|今天|今日|今晚|今早|昨天|昨日|前天)`)
	reWeekday  = regexp.MustCompile(`\b(?:(next|this|coming|last|past)\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b(?:\s+(?:of\s+)?(next|last|this)\s+week\b)?|(下个?|上个?|本|这个?)?(?:周|星期|礼拜)([一二三四五六日天])`)
	reWeekend  = regexp.MustCompile(`\b(?:(next|this|last)\s+)?weekend\b|(下个?|上个?|本|这个?)?周末`)
	reInDays   = regexp.MustCompile(`\bin\s+(\d+|a|one|two|three|four|five|six|seven|ten)\s+(days?|weeks?)\b|\b(\d+)\s+(days?|weeks?)\s+(?:from\s+now|later)\b|(\d+|[一二两三四五六七八九十]+)\s*(天|周|个星期)\s*(?:之后|以后|后)`)
	reClock    = regexp.MustCompile(`\b(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)|\b(\d{1,2}):(\d{2})\b|(上午|下午|晚上|早上|中午|凌晨|傍晚)?(\d{1,2})\s*[点时](?:\s*(\d{1,2})\s*分|半)?|\b(noon|midday|midnight)\b`)
	reBefore   = regexp.MustCompile(`\b(by|before|no later than|until|till|not later than)\s+(?:the\s+)?(?:end\s+of\s+)?$`)
	reAfter    = regexp.MustCompile(`\b(after|not before)\s+$`)
	reZhBound  = regexp.MustCompile(`^\s*(之前|以前|前|之后|以后)`)
)

// HasMonthName reports an English month name or abbreviation in s (the
// three letters every one starts with), in one pass over s.
func HasMonthName(s string) bool {
	for i := 0; i+3 <= len(s); i++ {
		switch s[i] {
		case 'j', 'f', 'm', 'a', 's', 'o', 'n', 'd':
			switch s[i : i+3] {
			case "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec":
				return true
			}
		}
	}
	return false
}

// attachClocks gives a clock time to the day next to it ("tomorrow at
// 3pm").
func attachClocks(out []TimeExpr) []TimeExpr {
	for i := range out {
		if !out[i].OnlyClock {
			continue
		}
		for j := range out {
			if !out[j].OnlyClock && out[j].Clock < 0 && abs(out[j].Start-out[i].End) <= 4 || abs(out[i].Start-out[j].End) <= 4 && !out[j].OnlyClock && out[j].Clock < 0 {
				out[j].Clock = out[i].Clock
				out[i].Days = nil
			}
		}
	}
	return out
}

// boundAround reads "by"/"before"/之前 around a time expression at
// [bs, be) of s.
func boundAround(s string, bs, be int) Cue {
	if reBefore.MatchString(s[:bs]) {
		return CueLE
	}
	if reAfter.MatchString(s[:bs]) {
		return CueGE
	}
	if m := reZhBound.FindStringSubmatch(s[be:]); m != nil {
		if strings.Contains(m[1], "后") {
			return CueGE
		}
		return CueLE
	}
	return 0
}
