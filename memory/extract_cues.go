package memory

import (
	"embed"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
)

// The statements people make in plain words — requests to the assistant
// ("please don't call me after 7pm these days", 晚上九点以后别给我打电话), caps
// ("my hotel budget is capped at 150 euros", 我的午餐预算最多50元), comparative
// favourites ("actually I prefer oolong now", 其实我现在更喜欢普洱) and their
// validity ("until March 20", "until the end of the year", 到月底, 这段时间) —
// are read by the cue words of data/statements.txt, loaded with lang.Load:
// the code here knows the structure of such a statement, the data its words.

//go:embed data/*.txt
var cueFiles embed.FS

// cueTables are data/statements.txt, split by language: English phrases as
// word lists in the extractor's normal form, Chinese as strings.
type cueTables struct {
	open, until, endYear, endMonth, endWeek            [][]string
	endOfNamed                                         [][]string
	zhOpen, zhUntil, zhEndYear, zhEndMonth, zhEndWeek  []string
	thisMonth, thisYear                                [][]string
	zhThisMonth, zhThisYear                            []string
	fromNextMonth, fromNextWeek                        [][]string
	zhFromNextMonth, zhFromNextWeek                    []string
	zhCountLead, zhCountDay, zhCountWeek, zhCountMonth []string
	forbid, allow, allowNeeds, condition               [][]string
	less                                               [][]string
	none, consent, behalf                              [][]string
	zhForbid, zhAllow, zhAddressee, zhNotForbid        []string
	zhAllowAfter, zhForbidAddressed                    []string
	capEN, changeEN, harm, distaste, fine, fineAgain   [][]string
	spend, spendModal                                  [][]string
	zhCap, zhChange, zhPer, zhReported                 []string
	prefer                                             [][]string
	zhPrefer                                           []string
	kindOf                                             map[string]string // a kind's member (lower case) → the kind
	months                                             map[string]time.Month
	from, fromSkip                                     [][]string
	zhFrom, zhFromEnd, zhNextWeek, zhNextMonth         []string
	weekdays                                           map[string]time.Weekday
	lead                                               map[string]bool
}

var cues = mustCues()

// mustCues loads the embedded tables; malformed ones are a bug every test
// of the package catches, so it panics.
func mustCues() *cueTables {
	d := memData
	t := &cueTables{kindOf: map[string]string{}, months: map[string]time.Month{}, weekdays: map[string]time.Weekday{}}
	split := func(section, name string) (en [][]string, zh []string) {
		return splitCueWords(d.Words(section, name))
	}
	t.open, t.zhOpen = split("validity", "open")
	t.until, t.zhUntil = split("validity", "until")
	t.endYear, t.zhEndYear = split("validity", "end_year")
	t.endMonth, t.zhEndMonth = split("validity", "end_month")
	t.endWeek, t.zhEndWeek = split("validity", "end_week")
	t.endOfNamed, _ = split("validity", "end_of_named")
	t.thisMonth, t.zhThisMonth = split("validity", "this_month")
	t.thisYear, t.zhThisYear = split("validity", "this_year")
	t.fromNextMonth, t.zhFromNextMonth = split("validity", "from_next_month")
	t.fromNextWeek, t.zhFromNextWeek = split("validity", "from_next_week")
	_, t.zhCountLead = split("validity", "zh_count_lead")
	_, t.zhCountDay = split("validity", "zh_count_day")
	_, t.zhCountWeek = split("validity", "zh_count_week")
	_, t.zhCountMonth = split("validity", "zh_count_month")
	t.forbid, t.zhForbid = split("requests", "forbid")
	t.allow, t.zhAllow = split("requests", "allow")
	t.less, _ = split("requests", "less")
	t.none, _ = split("requests", "none")
	t.consent, _ = split("requests", "consent")
	t.behalf, _ = split("requests", "behalf")
	t.allowNeeds, _ = split("requests", "allow_needs")
	t.condition, _ = split("requests", "condition")
	_, t.zhAddressee = split("requests", "addressee")
	_, t.zhNotForbid = split("requests", "not_forbid")
	t.capEN, t.zhCap = split("limits", "cap")
	t.spend, _ = split("limits", "spend")
	t.spendModal, _ = split("limits", "spend_modal")
	t.changeEN, t.zhChange = split("limits", "change")
	_, t.zhAllowAfter = split("requests", "allow_after")
	t.harm, _ = split("effects", "harm")
	t.distaste, _ = split("effects", "distaste")
	t.fine, _ = split("effects", "fine")
	t.fineAgain, _ = split("effects", "fine_again")
	_, t.zhForbidAddressed = split("requests", "forbid_addressed")
	_, t.zhPer = split("limits", "per")
	_, t.zhReported = split("limits", "reported")
	t.prefer, t.zhPrefer = split("favorites", "prefer")
	for _, l := range d.Lines("kinds") {
		for _, w := range l.Words {
			t.kindOf[strings.ToLower(w)] = l.Name
		}
	}
	for w, n := range d.Numbers("months") {
		t.months[w] = time.Month(n)
	}
	for w, n := range d.Numbers("weekdays") {
		t.weekdays[w] = time.Weekday(n)
	}
	t.from, _ = split("validity", "from")
	_, t.zhFrom = split("validity", "zh_from")
	t.fromSkip, _ = split("validity", "from_skip")
	t.lead = map[string]bool{}
	for _, w := range d.Words("validity", "lead") {
		t.lead[w] = true
	}
	_, t.zhFromEnd = split("validity", "zh_from_end")
	_, t.zhNextWeek = split("validity", "zh_next_week")
	_, t.zhNextMonth = split("validity", "zh_next_month")
	return t
}

// phraseAt returns the length of the longest phrase of ps at w[i:], 0 if
// none.
func phraseAt(w []word, i int, ps [][]string) int {
	n := 0
	for _, p := range ps {
		if len(p) > n && len(w)-i >= len(p) && matches(w[i:], p) {
			n = len(p)
		}
	}
	return n
}

// findPhrase returns where the first phrase of ps in w starts and its
// length, or -1.
func findPhrase(w []word, ps [][]string) (int, int) {
	for i := range w {
		if n := phraseAt(w, i, ps); n > 0 {
			return i, n
		}
	}
	return -1, 0
}

// --- validity

// validUntilEN reads an end said by the calendar in an English sentence
// said at time at (Unix ns, UTC): "until the end of the year" (the next
// January 1), "until the end of the month", "for the rest of the week",
// "until March 20" / "till 20 March" / "through 2025-03-20" (the day after
// that date, in the next year if it has passed). 0 if none, or if at is 0
// (the time is unknown). A calendar period said without "until" ("this
// month", "this year") ends with the period.
func validUntilEN(ws []word, at int64) int64 {
	if at == 0 {
		return 0
	}
	now := time.Unix(0, at).UTC()
	for i := range ws {
		n := phraseAt(ws, i, cues.until)
		rest := i + n
		rested := i > 0 && ws[i-1].low == "the" && ws[i].low == "rest"
		if n == 0 && !rested {
			continue
		}
		if n == 0 {
			rest = i
		}
		if rest < len(ws) && ws[rest].low == "the" {
			rest++
		}
		switch {
		case phraseAt(ws, rest, cues.endYear) > 0:
			return endOf(now, "year")
		case phraseAt(ws, rest, cues.endMonth) > 0:
			return endOf(now, "month")
		case phraseAt(ws, rest, cues.endWeek) > 0:
			return endOf(now, "week")
		}
		if k := rest + phraseAt(ws, rest, cues.endOfNamed); k > rest && k < len(ws) {
			if m, ok := cues.months[ws[k].low]; ok {
				// "until the end of March": March's last day, this year's or,
				// once past, next year's
				y := now.Year()
				if m < now.Month() {
					y++
				}
				return time.Date(y, m+1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
			}
		}
		if n == 0 {
			continue
		}
		if d, ok := dateEN(ws[rest:], now); ok {
			return d
		}
		// "until my bar exam on June 20": the date of what it waits for,
		// within the clause
		for k := rest + 1; k < len(ws) && k <= rest+8 && ws[k].low != ","; k++ {
			if d, ok := dateEN(ws[k:], now); ok {
				return d
			}
		}
	}
	for i := range ws {
		switch {
		case phraseAt(ws, i, cues.thisYear) > 0:
			return endOf(now, "year")
		case phraseAt(ws, i, cues.thisMonth) > 0:
			return endOf(now, "month")
		}
	}
	return 0
}

// endOf is the start of the next year, month or week (Monday) after now.
func endOf(now time.Time, unit string) int64 {
	y, m, d := now.Date()
	switch unit {
	case "year":
		return time.Date(y+1, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	case "month":
		return time.Date(y, m+1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	}
	days := (8 - int(now.Weekday())) % 7
	if days == 0 {
		days = 7
	}
	return time.Date(y, m, d+days, 0, 0, 0, 0, time.UTC).UnixNano()
}

var ordinal = regexp.MustCompile(`^([0-9]{1,2})(st|nd|rd|th)?$`)
var isoDate = regexp.MustCompile(`^([0-9]{4})-([0-9]{2})-([0-9]{2})$`)

// dateEN reads a date at the start of w: "March 20(th)", "20(th) (of) March",
// "2025-03-20". It returns the start of the day after it.
func dateEN(w []word, now time.Time) (int64, bool) {
	if len(w) == 0 {
		return 0, false
	}
	if m := isoDate.FindStringSubmatch(w[0].low); m != nil {
		y, _ := strconv.Atoi(m[1])
		mo, _ := strconv.Atoi(m[2])
		d, _ := strconv.Atoi(m[3])
		if mo < 1 || mo > 12 || d < 1 || d > 31 {
			return 0, false
		}
		return time.Date(y, time.Month(mo), d+1, 0, 0, 0, 0, time.UTC).UnixNano(), true
	}
	day := func(s string) int {
		if m := ordinal.FindStringSubmatch(s); m != nil {
			d, _ := strconv.Atoi(m[1])
			if d >= 1 && d <= 31 {
				return d
			}
		}
		if v, ok := lang.Default().Ordinal(s); ok && v >= 1 && v <= 31 && v == math.Trunc(v) {
			return int(v) // "the first of March"
		}
		return 0
	}
	if mo, ok := cues.months[w[0].low]; ok && len(w) > 1 {
		if d := day(w[1].low); d > 0 {
			return nextDate(now, mo, d), true
		}
	}
	if d := day(w[0].low); d > 0 && len(w) > 1 {
		k := 1
		if w[k].low == "of" && len(w) > 2 {
			k++
		}
		if mo, ok := cues.months[w[k].low]; ok {
			return nextDate(now, mo, d), true
		}
	}
	return 0, false
}

// nextDate is the start of the day after month/day in now's year, or in the
// next year if that day has passed.
func nextDate(now time.Time, mo time.Month, d int) int64 {
	t := time.Date(now.Year(), mo, d+1, 0, 0, 0, 0, time.UTC)
	if !t.After(now) {
		t = time.Date(now.Year()+1, mo, d+1, 0, 0, 0, 0, time.UTC)
	}
	return t.UnixNano()
}

// zhDate is a month and day in digits or Chinese numerals (3月20号,
// 五月二十号, 十二月三十一日).
var zhDate = regexp.MustCompile(`([0-9]{1,2}|[一二三四五六七八九十两]{1,3})月([0-9]{1,2}|[一二三四五六七八九十]{1,3})[日号]`)

// zhDatePart is the value of a month or a day of zhDate: digits, or a
// Chinese numeral (lang's).
func zhDatePart(s string) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	r := []rune(s)
	v, end, ok := lang.Default().ParseZhNumber(r, 0)
	if !ok || end != len(r) {
		return 0
	}
	return int(v)
}

// validUntilZH reads an end said by the calendar in a Chinese sentence: 年底
// (之前), 到月底, 到3月20号(为止), 3月20日之前.
func validUntilZH(s string, at int64) int64 {
	if at == 0 {
		return 0
	}
	now := time.Unix(0, at).UTC()
	switch {
	case containsAny(s, cues.zhEndYear):
		return endOf(now, "year")
	case containsAny(s, cues.zhEndMonth):
		return endOf(now, "month")
	case containsAny(s, cues.zhEndWeek):
		return endOf(now, "week")
	}
	if m := zhDate.FindStringSubmatchIndex(s); m != nil {
		before, after := s[:m[0]], s[m[1]:]
		bounded := hasAnySuffix(before, cues.zhUntil) || hasAnyPrefix(after, []string{"之前", "以前", "前", "为止"}) ||
			zhBeforeEvent(after)
		mo, d := zhDatePart(s[m[2]:m[3]]), zhDatePart(s[m[4]:m[5]])
		if bounded && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 {
			return nextDate(now, time.Month(mo), d)
		}
	}
	switch {
	case containsAny(s, cues.zhThisYear):
		return endOf(now, "year")
	case containsAny(s, cues.zhThisMonth):
		return endOf(now, "month")
	}
	return 0
}

// zhEventMax bounds the words of what a date is of (6月20号考试之前: 考试).
const zhEventMax = 4

// zhBeforeEvent reports a date's event and then its end: 考试之前, 出发以前
// after 6月20号 (at most zhEventMax ideographs, no mark between).
func zhBeforeEvent(after string) bool {
	rs := []rune(after)
	for k := 1; k <= zhEventMax && k < len(rs); k++ {
		if !unicode.Is(unicode.Han, rs[k-1]) {
			return false
		}
		if hasAnyPrefix(string(rs[k:]), []string{"之前", "以前"}) {
			return true
		}
	}
	return false
}

// validFrom reads a start said by the calendar ("from next month", 下个月起)
// in a sentence said at time at: the first day of the next month or week
// (Monday). 0 if none, or if at is 0.
func validFrom(ws []word, sent string, at int64) int64 {
	if at == 0 {
		return 0
	}
	now := time.Unix(0, at).UTC()
	month, week := containsAny(sent, cues.zhFromNextMonth), containsAny(sent, cues.zhFromNextWeek)
	if ws != nil {
		i, _ := findPhrase(ws, cues.fromNextMonth)
		j, _ := findPhrase(ws, cues.fromNextWeek)
		month, week = i >= 0, j >= 0
	}
	switch {
	case month:
		return endOf(now, "month")
	case week:
		return endOf(now, "week")
	}
	return 0
}

// startOf reads a start said by a day ("from the 1st of October",
// "starting in September", 从7月1号起, 从下周一开始: startEN, startZH) in a
// sentence said at time at; 0 if none, or if it is not after at.
func startOf(ws []word, sent string, at int64) int64 {
	if at == 0 {
		return 0
	}
	now := time.Unix(0, at).UTC()
	start := startZH(sent, now)
	if ws != nil {
		start = startEN(ws, now)
	}
	if start <= at {
		return 0
	}
	return start
}

// setStart gives the bans of obs that hold from no later day the start s
// (startOf): a ban is what the user says will hold from then ("from the
// 1st of October no bacon for me"). A value said to change from a day
// ("the rent goes up to $1,475 starting February") is a newer value, found
// when asked before the day too, so it is left as said. A bound counts
// from the start.
func setStart(obs []events.Observation, s int64) {
	if s == 0 {
		return
	}
	for j := range obs {
		o := &obs[j]
		if o.Kind != string(KindConstraint) || o.Polarity != string(Negative) || o.ValidFrom >= s {
			continue
		}
		o.ValidFrom = s
		if o.TTL > 0 && o.ValidUntil == 0 {
			o.ValidUntil, o.TTL = s+o.TTL, 0
		}
	}
}

// leadMax bounds the words of a time a request opens with.
const leadMax = 8

// timeLead returns the length of the time a request opens with ("for the
// next four weeks", "starting in September"): from a lead word to a comma
// (included), please, a forbidding word or "no" within leadMax words. 0 if
// none.
func timeLead(w []word) int {
	if len(w) == 0 || !cues.lead[w[0].low] {
		return 0
	}
	for j := 1; j < len(w) && j <= leadMax; j++ {
		switch {
		case w[j].low == ",":
			return j + 1
		case requestLead[w[j].low] || w[j].low == "no" || phraseAt(w, j, cues.forbid) > 0:
			return j
		}
	}
	return 0
}

// startEN reads a start said by a day after a from cue ("from the 1st of
// October", "starting in September", "from Monday", "beginning next
// Wednesday"): the start of that day (this year's, or the next's once
// past), of the month's first day, or of the weekday's next date. 0 if
// none.
func startEN(ws []word, now time.Time) int64 {
	for i := range ws {
		n := phraseAt(ws, i, cues.from)
		if n == 0 {
			continue
		}
		k := i + n
		for k < len(ws) && phraseAt(ws, k, cues.fromSkip) > 0 {
			k += phraseAt(ws, k, cues.fromSkip)
		}
		if k >= len(ws) {
			continue
		}
		if d, ok := dateEN(ws[k:], now); ok {
			return d - day // dateEN is the day after
		}
		if m, ok := cues.months[ws[k].low]; ok {
			return monthStart(now, m)
		}
		if wd, ok := cues.weekdays[singular(ws[k].low)]; ok {
			if k+1 < len(ws) && (ws[k+1].low == "to" || ws[k+1].low == "through" || ws[k+1].low == "till") {
				continue // "from Monday to Friday": the days, not a start
			}
			return nextWeekday(now, wd)
		}
	}
	return 0
}

// startZH reads a start said by a day between a from cue and its end
// (从7月1号起, 从9月开始, 从下周一开始, 从下个月1号起, 从周三起): the start of
// that day, of the month's first day, or of the weekday's date (next
// week's after 下周). 0 if none.
func startZH(s string, now time.Time) int64 {
	for _, f := range cues.zhFrom {
		i := strings.Index(s, f)
		if i < 0 {
			continue
		}
		rest := s[i+len(f):]
		end := -1
		for _, e := range cues.zhFromEnd {
			if j := strings.Index(rest, e); j > 0 && (end < 0 || j < end) {
				end = j
			}
		}
		if end < 0 || utf8.RuneCountInString(rest[:end]) > 8 {
			continue
		}
		x := rest[:end]
		if m := zhDate.FindStringSubmatch(x); m != nil {
			if mo, d := zhDatePart(m[1]), zhDatePart(m[2]); mo >= 1 && mo <= 12 && d >= 1 && d <= 31 {
				return nextDate(now, time.Month(mo), d) - day
			}
		}
		for _, nm := range cues.zhNextMonth {
			if y, ok := strings.CutPrefix(x, nm); ok {
				first := time.Unix(0, endOf(now, "month")).UTC()
				d := 1
				if y = strings.TrimRight(y, "号日"); y != "" {
					if d = zhDatePart(y); d < 1 || d > 31 {
						d = 1
					}
				}
				return first.AddDate(0, 0, d-1).UnixNano()
			}
		}
		for _, nw := range cues.zhNextWeek {
			if y, ok := strings.CutPrefix(x, nw); ok {
				if wd, ok := cues.weekdays["周"+y]; ok {
					monday := time.Unix(0, endOf(now, "week")).UTC()
					return monday.AddDate(0, 0, (int(wd)+6)%7).UnixNano()
				}
			}
		}
		if wd, ok := cues.weekdays[x]; ok {
			return nextWeekday(now, wd)
		}
		if y, ok := strings.CutSuffix(x, "月"); ok {
			if mo := zhDatePart(y); mo >= 1 && mo <= 12 {
				return monthStart(now, time.Month(mo))
			}
		}
	}
	return 0
}

// monthStart is the start of month m's first day after now: this year's,
// or the next's once it has begun.
func monthStart(now time.Time, m time.Month) int64 {
	t := time.Date(now.Year(), m, 1, 0, 0, 0, 0, time.UTC)
	if !t.After(now) {
		t = t.AddDate(1, 0, 0)
	}
	return t.UnixNano()
}

// nextWeekday is the start of the next date after now's day that is wd.
func nextWeekday(now time.Time, wd time.Weekday) int64 {
	days := (int(wd) - int(now.Weekday()) + 7) % 7
	if days == 0 {
		days = 7
	}
	y, m, d := now.Date()
	return time.Date(y, m, d+days, 0, 0, 0, 0, time.UTC).UnixNano()
}

// countedBoundZH reads a bound of a number of days, weeks or months said
// after a lead (这两周, 接下来三天, 未来两个月): 0 if none.
func countedBoundZH(s string) int64 {
	for _, lead := range cues.zhCountLead {
		for off := 0; ; {
			i := strings.Index(s[off:], lead)
			if i < 0 {
				break
			}
			i += off + len(lead)
			off = i
			rs := []rune(s[i:])
			n, next, ok := lang.Default().ParseZhNumber(rs, 0)
			if !ok {
				for next < len(rs) && rs[next] >= '0' && rs[next] <= '9' {
					next++
				}
				v, err := strconv.Atoi(string(rs[:next]))
				n, ok = float64(v), err == nil
			}
			if !ok || n < 1 || n > 366 || n != math.Trunc(n) {
				continue
			}
			unit := string(rs[next:])
			switch {
			case hasAnyPrefix(unit, cues.zhCountMonth):
				return int64(n) * month
			case hasAnyPrefix(unit, cues.zhCountWeek):
				return int64(n) * week
			case hasAnyPrefix(unit, cues.zhCountDay):
				return int64(n) * day
			}
		}
	}
	return 0
}

func hasAnySuffix(s string, ws []string) bool {
	for _, w := range ws {
		if strings.HasSuffix(s, w) {
			return true
		}
	}
	return false
}

// openEndedEN reports a time phrase that makes a statement temporary
// without saying until when ("these days", "for now"); "now" and
// "anymore" are not among them: they mark a change, not a passing state.
func openEndedEN(ws []word) bool {
	i, _ := findPhrase(ws, cues.open)
	return i >= 0
}

// dropTimePhrases removes the validity phrases (open ones, "until …" with
// what follows it up to a comma) from w.
func dropTimePhrases(w []word) []word {
	var out []word
	for i := 0; i < len(w); i++ {
		if n := phraseAt(w, i, cues.open); n > 0 {
			i += n - 1
			continue
		}
		if n := phraseAt(w, i, cues.until); n > 0 {
			for i < len(w) && w[i].low != "," {
				i++
			}
			continue
		}
		out = append(out, w[i])
	}
	return out
}

// --- requests

// requestLead are the words a request may open with before its cue.
var requestLead = wordSet("en words", "request_lead")

// matchRequestEN reads a sentence that asks the assistant not to do
// something, or lets it again: "please don't call me after 7pm (these
// days)", "no meetings before 10am on Mondays, please", "you can call me
// in the evening again". A request is a constraint of subject "request"
// whose attribute is the verb and its object ("call", "schedule meeting")
// and whose value is its condition ("after 7pm"); a permission of the same
// verb lifts it. Only a sentence that opens with the request (after
// "please", a time phrase or a comma) is read: "I don't …" is the user's
// own statement.
func matchRequestEN(ws []word) (events.Observation, bool) {
	w := ws
	for changed := true; changed; {
		changed = false
		for len(w) > 0 && (requestLead[w[0].low] || w[0].low == ",") {
			w, changed = w[1:], true
		}
		if n := phraseAt(w, 0, cues.open); n > 0 {
			w, changed = w[n:], true
		}
		if n := phraseAt(w, 0, cues.until); n > 0 && slices.ContainsFunc(w[:min(len(w), leadMax+1)], func(x word) bool { return x.low == "," }) {
			for len(w) > 0 && w[0].low != "," {
				w = w[1:]
			}
			changed = true
		} // else "until the 3rd please don't …": a time lead (timeLead)
		if n := timeLead(w); n > 0 {
			w, changed = w[n:], true
		}
	}
	if len(w) < 2 {
		return events.Observation{}, false
	}
	pol := Negative
	n := phraseAt(w, 0, cues.forbid)
	if n == 0 {
		if n = phraseAt(w, 0, cues.allow); n == 0 {
			if w[0].low == "no" {
				return noRequestEN(w[1:])
			}
			return events.Observation{}, false
		}
		pol = Positive
		if i, _ := findPhrase(w[n:], cues.allowNeeds); i < 0 {
			if j, _ := findPhrase(w[n+1:], cues.condition); j < 0 {
				return events.Observation{}, false // "you can find me a hotel": a request, not a lift
			}
		}
	}
	rest := dropTimePhrases(w[n:])
	if pol == Negative {
		if o, ok := consentRequestEN(rest); ok {
			return o, true
		}
	}
	if len(rest) == 0 || cognition[rest[0].low] && rest[0].low != "do" || pronouns[rest[0].low] || people[rest[0].low] {
		return events.Observation{}, false
	}
	verb := baseVerb(rest[0].low)
	var obj, cond []word
	i := 1
	for ; i < len(rest); i++ {
		if rest[i].low == "," || clauseEnd[rest[i].low] && rest[i].low != "that" || phraseAt(rest, i, cues.allowNeeds) > 0 {
			break
		}
		if phraseAt(rest, i, cues.condition) > 0 {
			for j := i; j < len(rest) && rest[j].low != "," && !(clauseEnd[rest[j].low] && j > i) &&
				phraseAt(rest, j, cues.allowNeeds) == 0 && rest[j].low != "please"; j++ {
				cond = append(cond, rest[j])
			}
			break
		}
		if !pronouns[rest[i].low] && !people[rest[i].low] && !determiners[rest[i].low] {
			obj = append(obj, rest[i])
		}
	}
	attr := verb
	if len(obj) > 0 && len(obj) <= 3 {
		low := make([]string, len(obj))
		for k, x := range obj {
			low[k] = x.low
		}
		low[len(low)-1] = singular(low[len(low)-1])
		attr += " " + strings.Join(low, " ")
	}
	if eatVerbs[verb] || drinkVerbs[verb] {
		// "don't eat shellfish" said to the assistant is about the user's food
		if o, ok := constraint(obj, verbHint(verb), pol, nil); ok {
			return o, true
		}
	}
	return events.Observation{Kind: string(KindConstraint), Subject: "request", Attribute: attr, Value: joinOrig(cond),
		Polarity: string(pol), Confidence: confStrong}, true
}

// noRequestEN reads "no meetings before 10am (please)": a request against
// the thing named, with its condition; without a condition nothing ("no
// problem").
func noRequestEN(w []word) (events.Observation, bool) {
	var obj, cond []word
	for i := 0; i < len(w); i++ {
		if w[i].low == "," || w[i].low == "please" {
			break
		}
		if w[i].low == "for" && i+1 < len(w) && w[i+1].low == "me" {
			return events.Observation{}, false // "no X for me": matchNoForMe's
		}
		if len(obj) > 0 && (phraseAt(w, i, cues.open) > 0 || phraseAt(w, i, cues.until) > 0) {
			// "no sugar for now", "no wine until May": the user's own abstention
			return constraint(obj, "", Negative, nil)
		}
		if phraseAt(w, i, cues.condition) > 0 && len(obj) > 0 {
			for j := i; j < len(w) && w[j].low != "," && w[j].low != "please"; j++ {
				cond = append(cond, w[j])
			}
			break
		}
		obj = append(obj, w[i])
	}
	if len(obj) == 0 || len(obj) > 3 || len(cond) == 0 || pronouns[obj[0].low] || people[obj[0].low] {
		return events.Observation{}, false
	}
	low := make([]string, len(obj))
	for k, x := range obj {
		low[k] = x.low
	}
	low[len(low)-1] = singular(low[len(low)-1])
	return events.Observation{Kind: string(KindConstraint), Subject: "request", Attribute: strings.Join(low, " "),
		Value: joinOrig(cond), Polarity: string(Negative), Confidence: confStrong}, true
}

// baseVerb drops an -ing ("calling" → call, "texting" → text).
func baseVerb(v string) string {
	if len(v) > 5 && strings.HasSuffix(v, "ing") {
		b := v[:len(v)-3]
		if n := len(b); n > 2 && b[n-1] == b[n-2] && !strings.ContainsRune("aeiouls", rune(b[n-1])) {
			b = b[:n-1] // stopping → stop
		}
		return b
	}
	return v
}

// matchRequestZH reads a Chinese request: 晚上九点以后别给我打电话, 不用再给我发邮件了,
// 晚上又可以给我打电话了. The verb phrase after the cue (its addressee, 给我,
// dropped) is the attribute, what comes before the cue (time words of
// validity dropped) the condition. A bare 吃/喝/碰 takes the previous
// statement's slot (医生让我先别碰). A permission is read only with an
// addressee or 又 (可以 alone is the user's own ability).
func matchRequestZH(clause string, prev *events.Observation) (events.Observation, bool) {
	s := clause
	for _, w := range cues.zhNotForbid {
		s = strings.ReplaceAll(s, w, strings.Repeat("_", utf8.RuneCountInString(w)))
	}
	at, n, pol := -1, 0, Negative
	for _, c := range append(append([]string{}, cues.zhForbid...), cues.zhForbidAddressed...) {
		if i := strings.Index(s, c); i >= 0 && (at < 0 || i < at || i == at && len(c) > n) {
			at, n = i, len(c)
		}
	}
	if at < 0 {
		// 晚上给我打电话没问题了: the permission after the verb phrase
		for _, c := range cues.zhAllowAfter {
			i := strings.Index(clause, c)
			if i <= 0 {
				continue
			}
			for _, a := range cues.zhAddressee {
				if j := strings.Index(clause[:i], a); j >= 0 {
					verb := strings.TrimSpace(clause[j+len(a) : i])
					cond := strings.TrimSpace(clause[:j])
					for _, w := range append([]string{"请", "你", "都", "也", "就", "现在", "以后"}, cues.zhOpen...) {
						cond = strings.ReplaceAll(cond, w, "")
					}
					if verb == "" || utf8.RuneCountInString(verb) > 10 {
						return events.Observation{}, false
					}
					return events.Observation{Kind: string(KindConstraint), Subject: "request", Attribute: verb, Value: cond,
						Polarity: string(Positive), Confidence: confStrong}, true
				}
			}
		}
		for _, c := range cues.zhAllow {
			if i := strings.Index(s, c); i >= 0 && (at < 0 || i < at || i == at && len(c) > n) {
				at, n = i, len(c)
			}
		}
		if at < 0 {
			return events.Observation{}, false
		}
		pol = Positive
	}
	before, after := clause[:at], clause[at+n:]
	addressed, addressee := false, ""
	for _, a := range cues.zhAddressee {
		if strings.HasPrefix(strings.TrimPrefix(after, "再"), a) {
			after, addressed, addressee = strings.TrimPrefix(strings.TrimPrefix(after, "再"), a), true, a
			break
		}
	}
	if pol == Positive && !addressed && !strings.HasSuffix(before, "又") && !strings.HasPrefix(clause[at:], "又") {
		return events.Observation{}, false
	}
	if pol == Negative && !addressed && hasAnyPrefix(clause[at:], cues.zhForbidAddressed) {
		return events.Observation{}, false // 我不用忌口了: no request
	}
	after = strings.TrimPrefix(after, "再")
	for _, v := range []struct{ verb, hint string }{{"吃", "eat"}, {"喝", "drink"}} {
		if x, ok := strings.CutPrefix(after, v.verb); ok && x != "" {
			// 别让我吃炸鸡: the user's food, not a request's verb
			return zhSlotted(x, v.hint, KindConstraint, pol, prev)
		}
	}
	verb := zhObject(strings.TrimSpace(after))
	for changed := true; changed; {
		changed = false
		for _, p := range zhParticles {
			if strings.HasSuffix(verb, p) && verb != p {
				verb, changed = strings.TrimSuffix(verb, p), true
			}
		}
	}
	// the words before the cue: the request's condition, without who says it
	// and without time words of validity
	cond := before
	if i := strings.LastIndex(cond, "让我"); i >= 0 {
		cond = cond[i+len("让我"):]
	}
	for _, w := range append(append([]string{"请", "我", "你", "都", "也", "先", "又", "就", "千万"}, cues.zhOpen...), zhConnectors...) {
		cond = strings.ReplaceAll(cond, w, "")
	}
	cond = strings.TrimSpace(cond)
	if verb == "" && addressed && zhOnlyWhen(cond) {
		verb = addressee // 这周先别算我: a time, no thing; the request is the verb's
	}
	if verb == "" && addressed && cond != "" && !zhPeople[cond] && !zhPronouns[cond] {
		// 周末的聚会就别叫我了: the thing is said first, the request's verb
		// is its addressee's (叫我); the slot is both, so a request about
		// another thing (唱K的局就别叫我了) is another slot
		return events.Observation{Kind: string(KindConstraint), Subject: "request", Attribute: addressee + cond, Value: cond,
			Polarity: string(pol), Confidence: confStrong}, true
	}
	if verb == "" || verb == "吃" || verb == "喝" || verb == "碰" {
		if prev == nil || prev.Subject == "" {
			return events.Observation{}, false
		}
		return events.Observation{Kind: string(KindConstraint), Subject: prev.Subject, Attribute: prev.Attribute,
			Polarity: string(pol), Confidence: confStrong}, true
	}
	if utf8.RuneCountInString(verb) > 10 || zhPeople[verb] || zhPronouns[verb] {
		return events.Observation{}, false
	}
	if !addressed {
		// 不要辣, 别放香菜: a request about the user's food reads as one
		if subject, attr := zhSlot(verb, ""); subject == "food" || subject == "drink" {
			return events.Observation{Kind: string(KindConstraint), Subject: subject, Attribute: attr,
				Polarity: string(pol), Confidence: confStrong}, true
		}
	}
	if containsAny(cond, cues.zhUntil) || zhDate.MatchString(cond) || containsAny(cond, cues.zhEndYear) || containsAny(cond, cues.zhEndMonth) {
		cond = "" // a validity, not a condition
	}
	return events.Observation{Kind: string(KindConstraint), Subject: "request", Attribute: verb, Value: cond,
		Polarity: string(pol), Confidence: confStrong}, true
}

// matchHarmEN reads what a thing does to the user that forbids it: "lately
// X makes me sick", "dairy doesn't agree with me" — a constraint against
// X (the words before the effect, in its clause).
func matchHarmEN(ws []word) (events.Observation, bool) {
	return matchEffectEN(ws, cues.harm, func(x []word) (events.Observation, bool) { return constraint(x, "", Negative, nil) })
}

// matchDistasteEN reads what a thing does to the user that says they
// dislike it: "olives make me gag", "papaya turns my stomach" — a negative
// preference for X ([effects] distaste), beside a liking said in the same
// sentence ("I love mangoes, but papaya makes me gag").
func matchDistasteEN(ws []word) (events.Observation, bool) {
	return matchEffectEN(ws, cues.distaste, func(x []word) (events.Observation, bool) { return preference(x, Negative, nil) })
}

// matchEffectEN reads the thing before an effect of effect in its clause,
// as read makes it.
func matchEffectEN(ws []word, effect [][]string, read func([]word) (events.Observation, bool)) (events.Observation, bool) {
	for j := 1; j < len(ws); j++ {
		if phraseAt(ws, j, effect) == 0 {
			continue
		}
		start := 0
		for i := j - 1; i >= 0; i-- {
			if ws[i].low == "," || clauseEnd[ws[i].low] {
				start = i + 1
				break
			}
		}
		x := skip(dropTimePhrases(ws[start:j]), fillers)
		if len(x) == 0 || pronouns[x[0].low] || people[x[0].low] || x[0].low == "i" {
			return events.Observation{}, false
		}
		return read(x)
	}
	return events.Observation{}, false
}

// matchFineAgainEN reads "dairy is fine for me again", "shellfish is ok
// now", "citrus is no problem for me anymore": a constraint for the thing,
// which lifts one against it. Only with "again", "now" or "anymore": "the
// hotel is fine" states nothing about the user. A phrase of fine_again says
// "again" itself, and the user by "for me": "climbing is back on for me"
// ("the match is back on" is the match's).
func matchFineAgainEN(ws []word) (events.Observation, bool) {
	for j := 1; j+1 < len(ws); j++ {
		if ws[j].low != "is" && ws[j].low != "are" {
			continue
		}
		k := j + 1
		for k < len(ws) && fillers[ws[k].low] && ws[k].low != "now" {
			k++
		}
		n, again := phraseAt(ws, k, cues.fine), false
		if n == 0 {
			n, again = phraseAt(ws, k, cues.fineAgain), true // "climbing is back on for me"
		}
		if n == 0 {
			return events.Observation{}, false
		}
		rest, forMe := ws[k+n:], false
		if len(rest) >= 2 && rest[0].low == "for" && rest[1].low == "me" {
			rest, forMe = rest[2:], true
		}
		if again && !forMe {
			return events.Observation{}, false // "the match is back on": the event's, not the user's
		}
		if !again && (len(rest) == 0 || rest[0].low != "again" && rest[0].low != "now" && rest[0].low != "anymore") {
			return events.Observation{}, false
		}
		start := 0
		for i := j - 1; i >= 0; i-- {
			if ws[i].low == "," || clauseEnd[ws[i].low] {
				start = i + 1
				break
			}
		}
		x := skip(dropTimePhrases(ws[start:j]), fillers)
		if len(x) == 0 || pronouns[x[0].low] || people[x[0].low] || x[0].low == "i" || x[0].low == "my" {
			return events.Observation{}, false
		}
		return constraint(x, "", Positive, nil)
	}
	return events.Observation{}, false
}

// --- limits

// matchLimitEN reads a cap: "my hotel budget is (now) capped at 150 euros
// a night", "our flight budget is limited to 400 dollars per trip". The
// capped thing is the attribute of subject "limit", the amount its value,
// so a new cap of the same thing supersedes the old one.
func matchLimitEN(ws []word) (events.Observation, bool) {
	for i := range ws {
		if ws[i].low != "my" && ws[i].low != "our" {
			continue
		}
		j := i + 1
		changed := i > 0 && phraseAt(ws, i-1, cues.changeEN) == 1 // "I've raised my hotel budget to 200 euros"
		for j < len(ws) && j-i <= 5 && ws[j].low != "is" && ws[j].low != "are" && ws[j].low != "," &&
			!(changed && ws[j].low == "to") && phraseAt(ws, j, cues.changeEN) == 0 {
			j++
		}
		if j >= len(ws) || j == i+1 || ws[j].low == "," {
			continue
		}
		np := ws[i+1 : j]
		k, n := j+1, 0
		switch {
		case changed && ws[j].low == "to":
		case phraseAt(ws, j, cues.changeEN) > 0: // "my hotel budget went up to 200 euros"
			k = j + phraseAt(ws, j, cues.changeEN)
			if k < len(ws) && ws[k].low == "to" {
				k++
			}
		default:
			if k+1 < len(ws) && ws[k].low == "been" {
				k++
			}
			for k < len(ws) && (fillers[ws[k].low] || ws[k].low == "strictly") {
				k++
			}
			if n = phraseAt(ws, k, cues.capEN); n == 0 {
				continue
			}
		}
		amount := dropTimePhrases(ws[k+n:])
		for a, x := range amount {
			if x.low == "," || clauseEnd[x.low] && x.low != "over" {
				amount = amount[:a]
				break
			}
		}
		if !hasNumber(amount) {
			continue
		}
		return events.Observation{Kind: string(KindConstraint), Subject: "limit", Attribute: joinLow(np),
			Value: joinOrig(amount), Polarity: string(Positive), Confidence: confStrong}, true
	}
	return events.Observation{}, false
}

// matchSpendCapEN reads a cap said of spending: "I can spend at most 60
// pounds on a dinner out", "I can now spend up to 90 pounds on a dinner
// out" — the cap of the thing spent on, as "my dinner out budget is at most
// 60 pounds" is (limit/<thing> budget). The verb needs a modal before it
// (fillers between: "can now"), a cap after it and a number in the amount;
// "I spend about 60 pounds on dinner" is a habit, not a cap.
func matchSpendCapEN(ws []word) (events.Observation, bool) {
	for i := 1; i < len(ws); i++ {
		if phraseAt(ws, i, cues.spend) == 0 {
			continue
		}
		m := i - 1
		for m > 0 && fillers[ws[m].low] {
			m--
		}
		modal := false
		for s := max(0, m-2); s <= m; s++ {
			if n := phraseAt(ws, s, cues.spendModal); n > 0 && s+n == m+1 {
				modal = true
			}
		}
		k := i + 1
		for k < len(ws) && fillers[ws[k].low] {
			k++
		}
		n := phraseAt(ws, k, cues.capEN)
		if !modal || n == 0 {
			continue
		}
		rest := ws[k+n:]
		on := -1
		for a, x := range rest {
			if x.low == "on" || x.low == "for" {
				on = a
				break
			}
			if x.low == "," || clauseEnd[x.low] && x.low != "over" {
				break
			}
		}
		if on <= 0 || !hasNumber(rest[:on]) {
			continue
		}
		thing := object(dropTimePhrases(rest[on+1:]))
		if len(thing) == 0 || len(thing) > 4 || pronouns[thing[0].low] {
			continue
		}
		return events.Observation{Kind: string(KindConstraint), Subject: "limit", Attribute: joinLow(thing) + " budget",
			Value: joinOrig(rest[:on]), Polarity: string(Positive), Confidence: confStrong}, true
	}
	return events.Observation{}, false
}

func hasNumber(w []word) bool {
	for _, x := range w {
		if strings.IndexFunc(x.low, func(r rune) bool { return r >= '0' && r <= '9' }) >= 0 || numberWords[x.low] && x.low != "a" {
			return true
		}
	}
	return false
}

// matchLimitZH reads a cap: 我的午餐预算最多50元, 年底之前我的打车预算每次不超过80元.
// The capped thing (after 我的, time words dropped) is the attribute, the
// amount (with its period, 每次) the value.
func matchLimitZH(clause string) (events.Observation, bool) {
	at, n := -1, 0
	for _, c := range append(append([]string{}, cues.zhCap...), cues.zhChange...) {
		if i := strings.Index(clause, c); i >= 0 && (at < 0 || i < at || i == at && len(c) > n) {
			at, n = i, len(c)
		}
	}
	if at <= 0 {
		return events.Observation{}, false
	}
	np, amount := clause[:at], strings.TrimSpace(clause[at+n:])
	amount = trimAny(amount, cues.zhChange) // 上限改成80元
	if i := strings.LastIndex(np, "我的"); i >= 0 {
		np = np[i+len("我的"):]
	} else if i := strings.LastIndex(np, "我"); i >= 0 {
		np = np[i+len("我"):]
	}
	for _, w := range cues.zhOpen {
		np = strings.ReplaceAll(np, w, "")
	}
	per := ""
	for changed := true; changed; {
		changed = false
		for _, p := range cues.zhPer {
			if strings.HasSuffix(np, p) {
				np, per, changed = strings.TrimSuffix(np, p), p, true
			}
		}
		for _, a := range append(append([]string{}, zhAdverbs...), "是", "要", "得", "必须", "应该") {
			if strings.HasSuffix(np, a) && np != a {
				np, changed = strings.TrimSuffix(np, a), true
			}
		}
	}
	np = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(np, "的"), "把"))
	amount = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(amount, "为止"), "以内"), "以下")
	amount = strings.TrimRight(amount, "了的啊吧呢")
	// a time word is no thing capped (现在改成每周去一次), nor is what someone
	// else says (房东说以后改成每月5号交)
	if np == "" || zhDropAdverbs(np+"。") == "。" || zhOnlyWhen(np) || containsAnyOf(np, cues.zhReported) || utf8.RuneCountInString(np) > 8 || strings.IndexFunc(amount, func(r rune) bool {
		return r >= '0' && r <= '9' || strings.ContainsRune(zhNumerals, r)
	}) < 0 {
		return events.Observation{}, false
	}
	return events.Observation{Kind: string(KindConstraint), Subject: "limit", Attribute: np, Value: per + amount,
		Polarity: string(Positive), Confidence: confStrong}, true
}

// --- favourites

// favorite is the preference "x is my favourite (of its kind)": the slot
// favorite/<kind>, value x, so a new favourite of the kind supersedes the
// old one. The kind is the table's (oolong → tea, 拿铁 → coffee), else what
// the object is (food, drink), else "general".
func favorite(value string) (events.Observation, bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return events.Observation{}, false
	}
	kind := kindOf(value)
	return events.Observation{Kind: string(KindPreference), Subject: "favorite", Attribute: kind, Value: value,
		Polarity: string(Positive), Confidence: confStrong}, true
}

// kindOf names the kind of a favourite: the kinds table for the phrase or
// its last word, the Chinese lexicon's English word, food or drink, or
// "general".
func kindOf(v string) string {
	low := strings.ToLower(v)
	if k, ok := cues.kindOf[low]; ok && !isKindName(low, k) {
		return k
	}
	if i := strings.LastIndexByte(low, ' '); i >= 0 {
		if k, ok := cues.kindOf[low[i+1:]]; ok {
			return k
		}
	}
	// "pears": the kind of a pear
	if one := singular(low[strings.LastIndexByte(low, ' ')+1:]); one != low {
		if k, ok := cues.kindOf[one]; ok && !isKindName(one, k) {
			return k
		}
	}
	if r, _ := utf8.DecodeRuneInString(v); lang.IsCJK(r) {
		// a Chinese compound names its kind last: 璇柏咖啡 is a coffee
		best := ""
		for m := range cues.kindOf {
			if len(m) > len(best) && len(m) < len(v) && strings.HasSuffix(v, m) {
				best = m
			}
		}
		if best != "" {
			return cues.kindOf[best]
		}
		for _, e := range zhLexicon {
			if v == e.zh {
				if k, ok := cues.kindOf[e.en]; ok && !isKindName(e.en, k) {
					return k
				}
				return e.subject // 火锅 is a food, as pizza is
			}
		}
		if s, _ := zhSlot(v, ""); s != "general" {
			return s
		}
		return "general"
	}
	ws := words(v)
	if len(ws) == 0 {
		return "general"
	}
	if s, _ := slotOf(ws, ""); s == "food" || s == "drink" {
		return s
	}
	return "general"
}

// isKindName reports whether v names kind k itself ("tea", 茶): a favourite
// that is a kind is one of what it is (drink, food), not of itself.
func isKindName(v, k string) bool {
	if v == k {
		return true
	}
	for _, e := range zhLexicon {
		if v == e.zh && e.en == k {
			return true
		}
	}
	return false
}

// favoriteKind names the kind a "my favourite X" names: X's kind in the
// kinds table (咖啡 → coffee), or X.
func favoriteKind(x string) string {
	x = strings.TrimSpace(strings.ToLower(x))
	if k, ok := cues.kindOf[x]; ok {
		return k
	}
	return x
}

// consentRequestEN reads what a forbidding request says the assistant
// must never accept for the user ("say yes on my behalf to fancy-dress
// parties", "sign me up for quiz nights"): a constraint against the thing,
// the words of whose behalf it is dropped ([requests] consent, behalf).
func consentRequestEN(rest []word) (events.Observation, bool) {
	var w []word
	for i := 0; i < len(rest); i++ {
		if n := phraseAt(rest, i, cues.behalf); n > 0 {
			i += n - 1
			continue
		}
		w = append(w, rest[i])
	}
	n := phraseAt(w, 0, cues.consent)
	if n == 0 || n == len(w) {
		return events.Observation{}, false
	}
	return constraint(w[n:], "", Negative, nil)
}
