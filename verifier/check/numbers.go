package check

import (
	"github.com/toolstream/toolstream/internal/lang"

	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Numbers: finding each number with its unit in a claim (or in a string of
// evidence), and checking it against the evidence numbers — directly, after
// unit conversion, within the tolerance and the rounding the claim is
// written in, against a bound ("more than 10") or range ("3-5 days"), or as
// a simple derived value (a sum, difference, ratio, product, percentage,
// count, average of evidence fields).

// numMention is one number written in a text.
type numMention struct {
	start, end int // rune offsets
	v, hi      float64
	isRange    bool
	unit       *unit
	decimals   int     // digits written after the decimal point
	mag        float64 // magnitude word applied (k, million, 万)
	approx     bool
	bound      cue // cueGT, cueGE, cueLT, cueLE or 0
	head       []string
	free       bool
	unitWord   string   // the unit as written after the number
	local      []string // concepts of the words right before and after
	near       []string // concepts of the nearest word before
	headEnd    int      // where the head noun ends
	headWord   string   // the word after the number, as written
	// maybeUnit is a one-letter unit word after a space ("5 m", "300 g"),
	// too ambiguous to be the unit but enough to doubt the number has none.
	maybeUnit *unit
}

// enNumberWords and magnitudeWords are number words and the words
// multiplying a number (thousand, k, 万 is Chinese and read apart).
var (
	enNumberWords  = langData.Numbers("number words")
	magnitudeWords = langData.Numbers("magnitude words")
)

// scanNumbers finds the numbers of normalised text r, skipping runes
// marked in blocked (may be nil).
func scanNumbers(r []rune, blocked []bool) []numMention {
	return scanNumbersIn(string(r), r, blocked)
}

// scanNumbersIn is scanNumbers with the text also as a string, s.
func scanNumbersIn(s string, r []rune, blocked []bool) []numMention {
	out := fractionMentions(s, r, blocked)
	if len(out) > 0 {
		// Keep the main scan off the fractions' words.
		b := make([]bool, len(r))
		copy(b, blocked)
		for _, m := range out {
			for i := m.start; i < m.end; i++ {
				b[i] = true
			}
		}
		blocked = b
	}
	isBlocked := func(i int) bool { return blocked != nil && i < len(blocked) && blocked[i] }
	for i := 0; i < len(r); i++ {
		if isBlocked(i) {
			continue
		}
		c := r[i]
		switch {
		case isDigit(c) || (c == '.' && i+1 < len(r) && isDigit(r[i+1]) && (i == 0 || !isDigit(r[i-1]))):
			if i > 0 && (isLatinLetter(r[i-1]) || r[i-1] == '#' || r[i-1] == '_') && !currencyBefore(r, i) {
				i = skipAlnum(r, i)
				continue
			}
			if i > 1 && r[i-1] == '-' && isLatinLetter(r[i-2]) {
				i = skipAlnum(r, i) // ORD-88231, SKU-123: an identifier
				continue
			}
			if i > 0 && r[i-1] == '第' {
				i = skipAlnum(r, i)
				continue
			}
			m, end, ok := parseMention(r, i, isBlocked)
			if !ok {
				i = max(i, end-1)
				continue
			}
			out = append(out, m)
			i = m.end - 1
		case zhNumeralRune(c) || c == '半':
			m, ok := parseZhMention(r, i)
			if !ok {
				continue
			}
			out = append(out, m)
			i = m.end - 1
		case isLatinLetter(c) && (i == 0 || !isLatinLetter(r[i-1]) && !isDigit(r[i-1])):
			e := latinEnd(r, i)
			if v, ok := enNumberWords[string(r[i:e])]; ok {
				if m, ok := numberWordMention(r, i, e, v); ok {
					out = append(out, m)
				}
			}
			i = e - 1
		}
	}
	return out
}

// reFraction finds durations said in words: "three quarters of an hour",
// "half an hour", "an hour and a half", "two and a half days".
var reFraction = regexp.MustCompile(`\b(?:(a|one|two|three) quarters? of an hour|(half an hour|half a day|an hour and a half|a day and a half)|(one|two|three|four|five|six|\d+) and a half (hours?|days?|years?|weeks?))\b`)

// reOneUnit finds "an hour", "a day" after a bound or duration word
// ("under an hour", "within a day", "takes a week"), where the article is
// the number one; elsewhere ("$20 an hour", "twice a day") it is a rate.
var reOneUnit = regexp.MustCompile(`\b(?:under|within|over|about|around|nearly|almost|than|least|most|up to|in|takes|took|lasts|lasted) (an hour|a day|a week|a minute)\b`)

func fractionMentions(s string, r []rune, blocked []bool) []numMention {
	var out []numMention
	if !strings.Contains(s, " an hour") && !strings.Contains(s, " a day") && !strings.Contains(s, " a week") && !strings.Contains(s, " a minute") &&
		!strings.Contains(s, "half") && !strings.Contains(s, "quarter") {
		return nil // neither regexp can match
	}
	for _, m := range reOneUnit.FindAllStringSubmatchIndex(s, -1) {
		start, end := utf8.RuneCountInString(s[:m[2]]), utf8.RuneCountInString(s[:m[3]])
		if blocked != nil && slices.Contains(blocked[start:end], true) {
			continue
		}
		if strings.HasPrefix(s[m[1]:], " and a half") {
			continue // "an hour and a half" is read below
		}
		w := s[m[2]:m[3]]
		u := unitWords[w[strings.IndexByte(w, ' ')+1:]]
		if u == nil {
			continue
		}
		out = append(out, numMention{start: start, end: end, mag: 1, v: 1, hi: 1, unit: u})
	}
	if !strings.Contains(s, "half") && !strings.Contains(s, "quarter") {
		return out
	}
	for _, m := range reFraction.FindAllStringSubmatchIndex(s, -1) {
		start, end := utf8.RuneCountInString(s[:m[0]]), utf8.RuneCountInString(s[:m[1]])
		if blocked != nil && slices.Contains(blocked[start:end], true) {
			continue
		}
		mm := numMention{start: start, end: end, mag: 1, decimals: 2}
		switch {
		case m[2] >= 0:
			k := map[string]float64{"a": 1, "one": 1, "two": 2, "three": 3}[s[m[2]:m[3]]]
			mm.v, mm.unit = 15*k, uMin
		case m[4] >= 0:
			mm.v, mm.unit = map[string]float64{"half an hour": 30, "half a day": 12, "an hour and a half": 90, "a day and a half": 36}[s[m[4]:m[5]]], uMin
			if strings.Contains(s[m[4]:m[5]], "day") {
				mm.unit = uHour
			}
		default:
			n, ok := enNumberWords[s[m[6]:m[7]]]
			if !ok {
				n, _ = strconv.ParseFloat(s[m[6]:m[7]], 64)
			}
			mm.v, mm.unit = n+0.5, unitWords[strings.TrimSuffix(s[m[8]:m[9]], "s")]
		}
		mm.hi = mm.v
		out = append(out, mm)
	}
	return out
}

func isDigit(c rune) bool { return c >= '0' && c <= '9' }

func isLatinLetter(c rune) bool { return unicode.IsLetter(c) && !lang.IsCJK(c) }

// skipAlnum returns the index of the last rune of the identifier that
// starts at i (at least i, so that a scan always advances).
func skipAlnum(r []rune, i int) int {
	j := i + 1
	for j < len(r) && (isDigit(r[j]) || isLatinLetter(r[j]) || r[j] == '-' || r[j] == '_' || r[j] == '.' && j+1 < len(r) && isDigit(r[j+1])) {
		j++
	}
	return j - 1
}

// latinEnd returns the end of the Latin word at r[i] (i when there is
// none). Callers convert r[i:end] to a string where they use it, so that
// a word only looked up costs no allocation.
func latinEnd(r []rune, i int) int {
	j := i
	for j < len(r) && isLatinLetter(r[j]) {
		j++
	}
	return j
}

// currencyBefore reports a currency sign or code just before r[i].
func currencyBefore(r []rune, i int) bool {
	_, _, ok := prefixUnit(r, i)
	return ok
}

// prefixUnit finds a currency sign or code ending at i (allowing one
// space): "$12", "US$ 12", "¥12", "RMB 12", "EUR12".
func prefixUnit(r []rune, i int) (*unit, int, bool) {
	if i > len(r) {
		return nil, i, false
	}
	j := i
	if j > 0 && r[j-1] == ' ' {
		j--
	}
	for n := 3; n >= 1; n-- {
		if j-n < 0 {
			continue
		}
		s := string(r[j-n : j])
		u, ok := unitPrefix[s]
		if !ok {
			continue
		}
		if isLatinLetter(r[j-n]) && j-n > 0 && isLatinLetter(r[j-n-1]) {
			continue // "plus12" is not "us 12"
		}
		if n == 1 && j != i && !strings.ContainsAny(s, "$¥￥€£") {
			continue
		}
		return u, j - n, true
	}
	return nil, i, false
}

// parseNumber parses digits with thousands separators and a decimal part
// at r[i]; it returns the value, the digits after the point and the end.
func parseNumber(r []rune, i int) (float64, int, int, bool) {
	j := i
	var b strings.Builder
	dec := -1
	for j < len(r) {
		c := r[j]
		switch {
		case isDigit(c):
			b.WriteRune(c)
			if dec >= 0 {
				dec++
			}
		case c == ',' && dec < 0 && j+3 < len(r)+0 && j+3 <= len(r)-1+1 && groupOf3(r, j+1):
			// thousands separator
		case c == '.' && dec < 0 && j+1 < len(r) && isDigit(r[j+1]):
			b.WriteRune('.')
			dec = 0
		default:
			goto done
		}
		j++
	}
done:
	if b.Len() == 0 {
		return 0, 0, j, false
	}
	v, err := strconv.ParseFloat(b.String(), 64)
	if err != nil {
		return 0, 0, j, false
	}
	return v, max(dec, 0), j, true
}

func groupOf3(r []rune, i int) bool {
	if i+3 > len(r) {
		return false
	}
	for k := i; k < i+3; k++ {
		if !isDigit(r[k]) {
			return false
		}
	}
	return i+3 == len(r) || !isDigit(r[i+3])
}

// parseMention parses a number at r[i] with its prefix currency, magnitude,
// unit and an optional second number of a range.
func parseMention(r []rune, i int, blocked func(int) bool) (numMention, int, bool) {
	m := numMention{start: i, mag: 1}
	if u, s, ok := prefixUnit(r, i); ok {
		m.unit, m.start = u, s
	}
	if i > 0 && r[i-1] == '-' && (i < 2 || r[i-2] == ' ' || r[i-2] == '(') && m.unit == nil {
		m.start = i - 1
	}
	v, dec, j, ok := parseNumber(r, i)
	if !ok {
		return m, j, false
	}
	if m.start == i-1 && r[i-1] == '-' {
		v = -v
	}
	if i >= 2 && string(r[i-2:i]) == "零下" {
		v = -v
	}
	// Ordinals and identifiers: 1st, 2nd, 3rd, 4th, 12abc.
	if j < len(r) && isLatinLetter(r[j]) {
		e := latinEnd(r, j)
		w := string(r[j:e])
		switch {
		case w == "st" || w == "nd" || w == "rd" || w == "th":
			return m, e, false
		case magnitudeWords[w] > 0 && len(w) == 1 && (w == "k" || m.unit != nil && m.unit.dim == dimCurrency):
			v *= magnitudeWords[w]
			m.mag = magnitudeWords[w]
			j = e
		case unitWords[w] != nil:
		default:
			if e-j <= 3 && unitWords[w] == nil && (e >= len(r) || !isDigit(r[e])) {
				// e.g. "5x" — not a unit we know; keep the number alone.
				if w != "x" && w != "pm" && w != "am" {
					return m, e, false
				}
			}
		}
	}
	m.v, m.hi, m.decimals = v, v, dec
	j = m.magnitude(r, j)
	j = m.unitAfter(r, j)
	m.end = j
	m.rangeAfter(r, blocked)
	m.hi = max(m.hi, m.v)
	return m, m.end, true
}

// magnitude applies a magnitude word after the number ("3.2 billion",
// "1.5万", "12 thousand").
func (m *numMention) magnitude(r []rune, j int) int {
	if j+1 < len(r) && r[j] == ' ' && strings.ContainsRune("万亿", r[j+1]) {
		j++ // "1.2 万件"
	}
	if j < len(r) {
		switch r[j] {
		case '万', '亿', '千', '百':
			for n := min(len(r)-j, 4); n >= 2; n-- {
				if _, ok := unitWords[string(r[j:j+n])]; ok {
					return j // 千克, 千米, 千瓦时, 千卡: a unit, not a magnitude
				}
			}
			f := map[rune]float64{'万': 1e4, '亿': 1e8, '千': 1e3, '百': 1e2}[r[j]]
			j++
			if j < len(r) && (r[j] == '万' || r[j] == '亿') {
				f *= map[rune]float64{'万': 1e4, '亿': 1e8}[r[j]]
				j++
			}
			m.v *= f
			m.hi *= f
			m.mag *= f
			return j
		}
	}
	k := j
	if k < len(r) && r[k] == ' ' {
		k++
	}
	e := latinEnd(r, k)
	w := string(r[k:e])
	if f, ok := magnitudeWords[w]; ok && len(w) > 1 {
		m.v *= f
		m.hi *= f
		m.mag *= f
		return e
	}
	return j
}

// unitAfter reads a unit after the number, longest spelling first.
func (m *numMention) unitAfter(r []rune, j int) int {
	if j < len(r) && (r[j] == '%' || r[j] == '‰') {
		m.unit = uPercent
		return j + 1
	}
	k := j
	space := false
	if k < len(r) && r[k] == ' ' {
		k++
		space = true
	} else if k+1 < len(r) && r[k] == '-' && isLatinLetter(r[k+1]) {
		k++ // "14-day", "12-year"
	}
	lens := unitWordLens(r, k)
	for n := min(maxUnitRunes, len(r)-k); n > 0; n-- {
		if lens&(1<<n) == 0 {
			continue // no unit word of n runes starts with r[k]
		}
		u, ok := unitWords[string(r[k:k+n])] // NB: no allocation: the key does not escape
		if !ok {
			continue
		}
		s := string(r[k : k+n])
		last := r[k+n-1]
		if isLatinLetter(last) && k+n < len(r) && (isLatinLetter(r[k+n]) || isDigit(r[k+n])) {
			continue // "12 inches" not "12 in"; "5 mins" not "5 min"+"s"
		}
		if isLatinLetter(r[k]) && n == 1 && space && s != "%" {
			if m.unit == nil && (k+1 >= len(r) || !isLatinLetter(r[k+1])) {
				m.maybeUnit = u
			}
			continue // "5 m" is too ambiguous; "5m" is metres
		}
		if s == "周" || s == "星期" {
			if k+n < len(r) && strings.ContainsRune("一二三四五六日天末", r[k+n]) {
				continue // 周五 is a weekday
			}
		}
		if s == "年" && m.v >= 1900 {
			continue // 2024年 is a year
		}
		if m.unit != nil && m.unit.dim == dimCurrency && u.dim == dimCurrency {
			return k + n // "$12 USD"
		}
		if m.unit != nil && u.dim != dimCurrency {
			continue
		}
		m.unit = u
		m.unitWord = s
		if u == uZhe {
			// 8.5 折 / 85 折 / 八折: that share of the original price.
			if m.v < 10 {
				m.v, m.hi = m.v*10, m.hi*10
			}
			m.unit = uPercent
		}
		return k + n
	}
	return j
}

// rangeAfter extends m with a second number: "3-5", "3 to 5", "3~5",
// "3至5", "3到5天", "$10-$15", "between 3 and 5".
func (m *numMention) rangeAfter(r []rune, blocked func(int) bool) {
	j := m.end
	k := j
	for k < len(r) && r[k] == ' ' {
		k++
	}
	sepEnd := -1
	switch {
	case k < len(r) && strings.ContainsRune("-~～至到", r[k]):
		sepEnd = k + 1
	case k+2 <= len(r) && string(r[k:k+2]) == "to" && (k+2 == len(r) || r[k+2] == ' ') && !precededBy(r, m.start, "by"):
		sepEnd = k + 2 // not "fell by $0.5 billion to $1.1 billion"
	case k+3 <= len(r) && string(r[k:k+3]) == "and" && m.start >= 8 && strings.HasSuffix(strings.TrimRight(string(r[max(0, m.start-9):m.start]), " "), "between"):
		sepEnd = k + 3
	}
	if sepEnd < 0 {
		return
	}
	n := sepEnd
	for n < len(r) && r[n] == ' ' {
		n++
	}
	if n < len(r) && !isDigit(r[n]) {
		if _, _, ok := prefixUnit(r, n+1); ok {
			n++ // "$10-$15"
		}
	}
	if n >= len(r) || !isDigit(r[n]) || blocked(n) {
		return
	}
	v2, dec, e, ok := parseNumber(r, n)
	if !ok {
		return
	}
	second := numMention{v: v2, hi: v2, mag: 1, decimals: dec}
	e = second.magnitude(r, e)
	if m.mag != 1 && second.mag == 1 {
		second.v *= m.mag
	}
	e = second.unitAfter(r, e)
	if second.unit != nil && m.unit != nil && second.unit.dim != m.unit.dim {
		return
	}
	if second.v < m.v {
		return
	}
	if m.unit == nil {
		m.unit = second.unit
	}
	if second.mag != 1 && m.mag == 1 {
		m.v *= second.mag
		m.mag = second.mag
	}
	m.hi = second.v
	m.isRange = true
	m.decimals = max(m.decimals, dec)
	m.end = e
}

// precededBy reports whether the word before position i is w.
func precededBy(r []rune, i int, w string) bool {
	j := i
	for j > 0 && (r[j-1] == ' ' || strings.ContainsRune("$¥€£", r[j-1])) {
		j--
	}
	k := j
	for k > 0 && isLatinLetter(r[k-1]) {
		k--
	}
	return string(r[k:j]) == w
}

// parseZhMention parses a Chinese numeral followed by a unit or measure
// word (两件, 三天, 二十五度, 百分之二十, 半小时).
func parseZhMention(r []rune, i int) (numMention, bool) {
	m := numMention{start: i, mag: 1}
	pct := false
	if i >= 3 && string(r[i-3:i]) == "百分之" {
		m.start, pct = i-3, true
	}
	var v float64
	var j int
	if r[i] == '半' {
		v, j = 0.5, i+1
	} else {
		var ok bool
		v, j, ok = parseZhNumber(r, i)
		if !ok {
			return m, false
		}
	}
	if i > 0 && r[i-1] == '第' {
		return m, false
	}
	if r[i] == '一' && j == i+1 && (i == 0 || !strings.ContainsRune("剩有共只仅还买订购余是为了", r[i-1])) {
		// 一箱, 一个: an article, not a count; but 一周, 一天 are durations.
		if u := (&numMention{mag: 1}); u.unitAfter(r, j) == j || u.unit == nil || u.unit.dim != dimTime {
			return m, false
		}
	}
	if j < len(r) && r[j] == '半' {
		j++
		v += 0.5
	}
	m.v, m.hi = v, v
	if pct {
		m.unit, m.end = uPercent, j
		return m, true
	}
	// "一个半小时": a measure word before the unit.
	end := m.unitAfter(r, j)
	if end == j {
		if j < len(r) && zhMeasureRune(r[j]) && r[j] != '分' && r[j] != '成' {
			end = j + 1
			m.unit = uCount
		} else {
			return m, false
		}
	}
	if m.unit == uCount && end < len(r) && r[end] == '半' {
		end++
		m.v += 0.5
	}
	m.hi = m.v
	m.end = end
	return m, true
}

// numberWordMention accepts an English number word when a unit or noun
// follows ("two days", "three items"); "one" needs a unit.
func numberWordMention(r []rune, s, e int, v float64) (numMention, bool) {
	m := numMention{start: s, end: e, v: v, hi: v, mag: 1}
	end := m.unitAfter(r, e)
	if end == e {
		if v == 1 || v == 0 {
			return m, false
		}
		k := e
		if k < len(r) && r[k] == ' ' {
			k++
		}
		w := string(r[k:latinEnd(r, k)])
		if w == "" || enLex[w] != nil && enLex[w].cues&cueStop != 0 && enLex[w].concepts == nil {
			return m, false
		}
	}
	m.end = end
	return m, true
}
