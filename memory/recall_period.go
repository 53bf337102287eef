package memory

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Questions that name a date. "What did John organise on May 8, 2022?"
// and "What was Jolene working on in January 2023?" name when the thing
// was told as much as what it was: a record carries the time it was said
// (ObservedAt), and a turn told that day rarely repeats the date in its
// text ("we put together a tournament"). In recall by meaning
// (Query.Matcher), a query that names a period — a day, a month or a
// year (namedPeriod) — weighs a record that is about it and was said in
// that period or within tellAfter after it 1+timeWeight times: what was
// done on a day is told that day or in the days after ("last week").
// The weight is the one a record that says a time takes for a question
// that asks when (recall_time.go); it was not fitted again, nor was
// tellAfter. On LoCoMo (development data; its questions often name the
// date of the session that answers them) recall_any@10 went from 0.804
// to 0.815 for turns as episodes and from 0.707 to 0.722 for messages
// (docs/evaluation.md).
const tellAfter = 7 * 24 * time.Hour

// timeSpan is a span of time a query names: [from, to), Unix ns.
type timeSpan struct{ from, to int64 }

// saidIn reports whether a record said at at was said in p or within
// tellAfter after it.
func (p timeSpan) saidIn(at int64) bool {
	return at >= p.from && at < p.to+int64(tellAfter)
}

var (
	isoDay = regexp.MustCompile(`\b([0-9]{4})-([0-9]{2})-([0-9]{2})\b`)
	zhDay  = regexp.MustCompile(`(?:([0-9]{4})年)?([0-9]{1,2})月(?:([0-9]{1,2})[日号])?`)
	zhYear = regexp.MustCompile(`([0-9]{4})年`)
)

// namedPeriod returns the first period query names, read at now (Unix
// ns: a date without its year is the latest one not after now): "May 8,
// 2022", "8th May 2022", "8 of May", "January 2023", "in March" (a month
// alone only after a word that places it, as saysWhen reads one), "2024"
// (a year from 1900 to 2099), "2022-05-08", 2023年3月, 3月8日. A day or
// month that does not exist names nothing.
func namedPeriod(query string, now int64) (timeSpan, bool) {
	ref := time.Unix(0, now).UTC()
	if m := isoDay.FindStringSubmatch(query); m != nil {
		y, _ := strconv.Atoi(m[1])
		mo, _ := strconv.Atoi(m[2])
		d, _ := strconv.Atoi(m[3])
		return dayPeriod(y, time.Month(mo), d)
	}
	if m := zhDay.FindStringSubmatch(query); m != nil {
		mo, _ := strconv.Atoi(m[2])
		if mo >= 1 && mo <= 12 {
			y := latestYear(ref, time.Month(mo), 1)
			if m[1] != "" {
				y, _ = strconv.Atoi(m[1])
			}
			if m[3] != "" {
				d, _ := strconv.Atoi(m[3])
				if m[1] == "" {
					y = latestYear(ref, time.Month(mo), d)
				}
				return dayPeriod(y, time.Month(mo), d)
			}
			return monthPeriod(y, time.Month(mo)), true
		}
	}
	if m := zhYear.FindStringSubmatch(query); m != nil {
		if y, ok := yearOf(m[1]); ok {
			return yearPeriod(y), true
		}
	}
	fs := strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, f := range fs {
		mo, isMonth := cues.months[f]
		switch {
		case isMonth:
			d, y := 0, 0
			j := i + 1
			if j < len(fs) {
				d = dayOf(fs[j])
				if d > 0 {
					j++
				}
			}
			if d == 0 && i > 0 { // "8 May", "8th of May"
				k := i - 1
				if fs[k] == "of" && k > 0 {
					k--
				}
				d = dayOf(fs[k])
			}
			if j < len(fs) {
				y, _ = yearOf(fs[j])
			}
			switch {
			case d > 0 && y > 0:
				return dayPeriod(y, mo, d)
			case d > 0:
				return dayPeriod(latestYear(ref, mo, d), mo, d)
			case y > 0:
				return monthPeriod(y, mo), true
			case i > 0 && placers[fs[i-1]]: // "in March", "last May"; "I may go" names none
				return monthPeriod(latestYear(ref, mo, 1), mo), true
			}
		default:
			if y, ok := yearOf(f); ok {
				return yearPeriod(y), true
			}
		}
	}
	return timeSpan{}, false
}

// dayOf reads a day of the month: "8", "8th", "21st"; 0 if s is none.
func dayOf(s string) int {
	m := ordinal.FindStringSubmatch(s)
	if m == nil {
		return 0
	}
	d, _ := strconv.Atoi(m[1])
	if d < 1 || d > 31 {
		return 0
	}
	return d
}

// yearOf reads a year from 1900 to 2099.
func yearOf(s string) (int, bool) {
	if len(s) != 4 {
		return 0, false
	}
	y, err := strconv.Atoi(s)
	return y, err == nil && y >= 1900 && y <= 2099
}

// latestYear is the year of the latest month/day not after ref.
func latestYear(ref time.Time, mo time.Month, d int) int {
	if time.Date(ref.Year(), mo, d, 0, 0, 0, 0, time.UTC).After(ref) {
		return ref.Year() - 1
	}
	return ref.Year()
}

func dayPeriod(y int, mo time.Month, d int) (timeSpan, bool) {
	t := time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)
	if mo < 1 || mo > 12 || t.Day() != d {
		return timeSpan{}, false // 31 April, month 13
	}
	return timeSpan{t.UnixNano(), t.AddDate(0, 0, 1).UnixNano()}, true
}

func monthPeriod(y int, mo time.Month) timeSpan {
	t := time.Date(y, mo, 1, 0, 0, 0, 0, time.UTC)
	return timeSpan{t.UnixNano(), t.AddDate(0, 1, 0).UnixNano()}
}

func yearPeriod(y int) timeSpan {
	t := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	return timeSpan{t.UnixNano(), t.AddDate(1, 0, 0).UnixNano()}
}
