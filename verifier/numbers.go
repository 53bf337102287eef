package verifier

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolstream/toolstream/events"
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
}

var enNumberWords = map[string]float64{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
	"fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
	"nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
	"seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "dozen": 12, "a dozen": 12,
}

var magnitudeWords = map[string]float64{
	"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "bn": 1e9, "mn": 1e6,
	"k": 1e3, "m": 1e6, "b": 1e9,
}

// scanNumbers finds the numbers of normalised text r, skipping runes
// marked in blocked (may be nil).
func scanNumbers(r []rune, blocked []bool) []numMention {
	out := fractionMentions(r, blocked)
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
			w, e := latinWord(r, i)
			if v, ok := enNumberWords[w]; ok {
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

func fractionMentions(r []rune, blocked []bool) []numMention {
	s := string(r)
	if !strings.Contains(s, "half") && !strings.Contains(s, "quarter") {
		return nil
	}
	var out []numMention
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

func isLatinLetter(c rune) bool { return unicode.IsLetter(c) && !isCJK(c) }

// skipAlnum returns the index of the last rune of the identifier that
// starts at i (at least i, so that a scan always advances).
func skipAlnum(r []rune, i int) int {
	j := i + 1
	for j < len(r) && (isDigit(r[j]) || isLatinLetter(r[j]) || r[j] == '-' || r[j] == '_' || r[j] == '.' && j+1 < len(r) && isDigit(r[j+1])) {
		j++
	}
	return j - 1
}

func latinWord(r []rune, i int) (string, int) {
	j := i
	for j < len(r) && isLatinLetter(r[j]) {
		j++
	}
	return string(r[i:j]), j
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
		w, e := latinWord(r, j)
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
			if j+1 < len(r) && r[j] == '千' && (r[j+1] == '克' || r[j+1] == '米') {
				return j // 千克, 千米 are units
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
	w, e := latinWord(r, k)
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
	for n := min(maxUnitRunes, len(r)-k); n > 0; n-- {
		s := string(r[k : k+n])
		u, ok := unitWords[s]
		if !ok {
			continue
		}
		last := r[k+n-1]
		if isLatinLetter(last) && k+n < len(r) && (isLatinLetter(r[k+n]) || isDigit(r[k+n])) {
			continue // "12 inches" not "12 in"; "5 mins" not "5 min"+"s"
		}
		if isLatinLetter(r[k]) && n == 1 && space && s != "%" {
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
		w, _ := latinWord(r, k)
		if w == "" || enLex[w] != nil && enLex[w].cues&cueStop != 0 && enLex[w].concepts == nil {
			return m, false
		}
	}
	m.end = end
	return m, true
}

// ---- checking a number ------------------------------------------------------

// cand is a claimed value expressed in one unit, with its tolerance.
type cand struct {
	v, tol float64
	u      *unit
}

// tolerance returns the absolute tolerance of a claimed value v written
// with m's precision.
func (c *Checker) tolerance(m *numMention, v float64) float64 {
	rel := c.cfg.Tolerance
	half := 0.5 * math.Pow(10, -float64(m.decimals)) * m.mag
	if m.unit != nil && m.unit.dim == dimCurrency && m.decimals == 0 && m.mag == 1 && !m.approx {
		half = 0 // "$5" is not a rounded "$4.50": prices are written exactly
	}
	if !m.approx {
		// "2 万" is not 18,600: rounding stays within 2.5%.
		half = math.Min(half, math.Max(0.025*math.Abs(v), 0.5*math.Pow(10, -float64(m.decimals))))
	}
	if m.approx && m.unit != nil && m.unit.dim == dimPercent {
		// "about 13%": a point either way, not 5% of the value.
		return math.Max(math.Max(half, 1), c.cfg.Tolerance*math.Abs(v))
	}
	if !m.approx && m.decimals > 0 && m.unit != uPercent {
		// "93.4" says 93.35–93.45: the digits written are the precision.
		// (Unit conversions and percentages keep the relative tolerance.)
		return math.Max(half*(1+1e-9), 1e-9)
	}
	if m.approx {
		rel = c.cfg.ApproxTolerance
		if m.decimals == 0 && v != 0 {
			// "about 20": rounding at the last non-zero digit, at most 10%.
			p := 1.0
			for x := math.Abs(v) / m.mag; x >= 10 && math.Mod(x, 10) == 0; x /= 10 {
				p *= 10
			}
			half = math.Max(half, math.Min(0.5*p*m.mag, 0.1*math.Abs(v)))
		}
	}
	return math.Max(math.Max(rel*math.Abs(v), half), 1e-9)
}

// candidates expresses claimed value v in every unit it may appear in.
func (c *Checker) candidates(m *numMention, v float64) []cand {
	tol := c.tolerance(m, v)
	u := m.unit
	switch {
	case u == nil || u.dim == dimCurrency || u.dim == dimCount:
		return []cand{{v, tol, u}}
	case u.dim == dimPercent:
		return []cand{{v, tol, uPercent}, {v / 100, tol / 100, uFrac}}
	case u.scale:
		return []cand{{v, tol, uC}, {v, tol, uF}, {v, tol, u}}
	}
	out := []cand{{v, tol, u}}
	for _, cu := range canonicalUnits[u.dim] {
		if cu == u {
			continue
		}
		if x, ok := convert(v, u, cu); ok {
			out = append(out, cand{x, math.Max(tol*scaleRatio(u, cu), c.cfg.Tolerance*math.Abs(x)), cu})
		}
	}
	return out
}

// unitFits reports whether evidence leaf lf may hold candidate k of a
// number claimed in unit claimed.
func unitFits(lf *leaf, k cand, claimed *unit) bool {
	switch {
	case claimed == nil:
		return true
	case lf.unit != nil:
		if k.u == uFrac {
			return lf.unit.dim == dimPercent && lf.unit != uPercent
		}
		return sameUnit(k.u, lf.unit) && compatible(claimed, lf.unit)
	case lf.dim != dimNone:
		if claimed.dim == dimPercent {
			return lf.dim == dimPercent
		}
		return (lf.dim == claimed.dim || claimed.dim == dimCount && lf.dim == dimCount) && (k.u == claimed || claimed.scale)
	default:
		return k.u == claimed || k.u == uFrac || claimed.scale && k.u != claimed || claimed.dim == dimCount
	}
}

// matches returns the numeric leaves equal to the claimed value v (any
// candidate), in index order.
func (cx *claimCtx) matches(m *numMention, v float64) []int32 {
	ix := cx.ix
	var out []int32
	for _, k := range cx.c.candidates(m, v) {
		lo := sort.Search(len(ix.nums), func(i int) bool { return ix.leaves[ix.nums[i]].num >= k.v-k.tol })
		for i := lo; i < len(ix.nums); i++ {
			l := ix.nums[i]
			lf := &ix.leaves[l]
			if lf.num > k.v+k.tol {
				break
			}
			if unitFits(lf, k, m.unit) {
				out = append(out, l)
			}
		}
	}
	sortUnique(&out)
	return out
}

func sortUnique(s *[]int32) {
	x := *s
	sort.Slice(x, func(i, j int) bool { return x[i] < x[j] })
	out := x[:0]
	for i, v := range x {
		if i == 0 || v != x[i-1] {
			out = append(out, v)
		}
	}
	*s = out
}

// dimFits reports whether a leaf may measure what a number claimed in unit
// u measures.
func dimFits(lf *leaf, u *unit) bool {
	if u == nil {
		return true
	}
	d := lf.dim
	if lf.unit != nil {
		d = lf.unit.dim
	}
	if d == dimNone {
		return true
	}
	if u.dim == dimCount {
		return d == dimCount
	}
	if d != u.dim {
		return false
	}
	return lf.unit == nil || compatible(u, lf.unit)
}

// numberConcepts returns the concepts a claimed number is looked up
// by: the claim's, the noun after the number, and what its unit measures.
func (cx *claimCtx) numberConcepts(m *numMention) []string {
	// The claim's words, less those naming another number ("$348 … with
	// free shipping": shipping is what is free, not what costs $348).
	var c []string
	for _, x := range cx.concepts {
		other := false
		for i := range cx.nums {
			if o := &cx.nums[i]; o != m && slices.Contains(o.head, x) && !slices.Contains(m.local, x) {
				other = true
			}
		}
		if !other {
			c = append(c, x)
		}
	}
	c = append(c, m.head...)
	if m.unit != nil {
		c = append(c, unitConceptNames(m.unit)...)
	}
	return dedupe(c)
}

// checkNumber checks one claimed number. A scope inherited through a
// pronoun from an earlier sentence is a guess: when the number fails
// there but holds in the evidence at large ("In Japan it sells for
// ¥3,600" after a sentence about the EU), the wider reading wins.
func (cx *claimCtx) checkNumber(m *numMention) fact {
	f := cx.checkNumberIn(m)
	if cx.soft && f.verdict != events.VerdictSupported {
		wide := *cx
		wide.scoped, wide.soft = false, false
		if g := wide.checkNumberIn(m); g.verdict == events.VerdictSupported {
			return g
		}
	}
	return f
}

func (cx *claimCtx) checkNumberIn(m *numMention) fact {
	ix := cx.ix
	if m.free && !cx.freeApplies() {
		return fact{}
	}
	concepts := cx.numberConcepts(m)
	keep := func(lf *leaf) bool { return lf.kind == kindNum && dimFits(lf, m.unit) }
	find := func(cs []string) []int32 {
		ts := cx.targets(cs, keep)
		if m.unit != nil && m.unit.dim != dimCount && slices.ContainsFunc(ts, func(l int32) bool { return knownDim(&ix.leaves[l]) }) {
			// A field known to measure what the unit measures beats one of
			// unknown kind: "1 bag up to 23 kg" is about weight_limit_kg.
			ts = slices.DeleteFunc(ts, func(l int32) bool { return !knownDim(&ix.leaves[l]) })
		}
		return ts
	}
	// The words nearest the number name its field best: the noun after it
	// ("30 in stock", "2,000 reviews"), the word before it (含税费共计
	// 2713.6 元), the words since the previous number, then the claim.
	var targets []int32
	if len(m.head) > 0 {
		targets = find(m.head)
	}
	if len(targets) == 0 && len(m.near) > 0 {
		targets = find(m.near)
	}
	if len(targets) == 0 && len(m.local) > 0 {
		local := m.local
		if m.unit != nil {
			local = dedupe(append(append([]string(nil), local...), unitConceptNames(m.unit)...))
		}
		targets = find(local)
	}
	if len(targets) == 0 {
		targets = find(concepts)
	}
	if len(targets) == 0 && m.unit != nil && m.unit.dim != dimCount && m.unit.dim != dimNone && cx.scoped {
		// "A: $25" — no attribute word, but the unit names the field.
		targets = cx.scopeLeaves(func(lf *leaf) bool {
			d := lf.dim
			if lf.unit != nil {
				d = lf.unit.dim
			}
			return lf.kind == kindNum && d == m.unit.dim && dimFits(lf, m.unit)
		})
	}
	if m.bound != 0 {
		return cx.checkBound(m, targets)
	}
	if m.isRange {
		return cx.checkRange(m, targets, concepts)
	}
	all := cx.matches(m, m.v)
	var in []int32
	for _, l := range all {
		if cx.inScope(l) {
			in = append(in, l)
		}
	}
	// 1. A matching field for this subject and attribute.
	for _, t := range targets {
		if containsLeaf(in, t) {
			return supported(ix, "value matches", t)
		}
	}
	pairs := cx.cues&(cueDerive|cueThan|cueMore|cueLess) != 0 || m.unit != nil && m.unit.dim == dimPercent || hasAny(m.head, "total")
	if len(targets) > 0 {
		if f, ok := cx.derived(m, targets, pairs); ok {
			return f
		}
		best := targets[0]
		return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(best)},
			reason: "evidence says " + ix.leaves[best].raw + " at " + ix.leaves[best].ptr}
	}
	// 2. No field named by the claim. A count of the list the noun after
	// the number names ("two shipments") comes first; then a match the
	// claim can own — its keys share a word with the claim, its unit is
	// the claim's, or it is the only field with that value.
	if len(m.head) > 0 || m.headWord != "" {
		if f, ok := cx.count(m, m.head); ok {
			return f
		}
	}
	if cx.cues&cueThan != 0 && cx.cues&(cueMore|cueLess) != 0 && len(cx.groups) >= 2 {
		// "4 more points per game than Brown": a difference first.
		if f, ok := cx.derived(m, nil, true); ok {
			return f
		}
	}
	for _, l := range in {
		lf := &ix.leaves[l]
		if m.unit != nil && m.unit.dim == dimPercent && lf.unit == nil && lf.dim != dimPercent && overlap(concepts, lf.own) == 0 {
			continue // "14%" is not the 15 of "iPhone 15"
		}
		if len(cx.concepts) == 0 || overlap(concepts, lf.own) > 0 || overlap(concepts, lf.ctx) > 0 ||
			m.unit != nil && m.unit.dim != dimCount && (lf.unit != nil || lf.dim == m.unit.dim) || oneField(ix, in) {
			return supported(ix, "value matches", l)
		}
	}
	if f, ok := cx.derived(m, nil, pairs || cx.scoped); ok {
		return f
	}
	if m.unit != nil && m.unit.dim == dimTime {
		if f, ok := cx.durationAsDates(m); ok {
			return f
		}
	}
	if len(in) > 0 {
		return fact{verdict: events.VerdictUnsupported, weak: true,
			reason: "the value appears at " + ix.leaves[in[0]].ptr + " but not as what the claim says"}
	}
	for _, l := range all {
		return fact{verdict: events.VerdictUnsupported,
			reason: "the value belongs to another subject at " + ix.leaves[l].ptr}
	}
	return fact{verdict: events.VerdictUnsupported, reason: "no evidence has this value"}
}

func knownDim(lf *leaf) bool { return lf.unit != nil || lf.dim != dimNone }

// oneField reports whether the leaves are one field (one pointer, or one
// key across the copies of a value).
func oneField(ix *index, ls []int32) bool {
	for _, l := range ls[1:] {
		if ix.leaves[l].ptr != ix.leaves[ls[0]].ptr {
			return false
		}
	}
	return true
}

// freeApplies reports whether "free" in the claim is a price of zero:
// free shipping, 免运费, no fee — not a free trial or free cancellation,
// and not "free over $50" (a condition, checked by its number).
func (cx *claimCtx) freeApplies() bool {
	for _, m := range cx.nums {
		if !m.free {
			return false
		}
	}
	return hasAny(cx.concepts, "shipping", "price", "delivery")
}

func containsLeaf(s []int32, l int32) bool {
	i := sort.Search(len(s), func(i int) bool { return s[i] >= l })
	return i < len(s) && s[i] == l
}

func hasAny(s []string, xs ...string) bool {
	for _, x := range xs {
		for _, y := range s {
			if x == y {
				return true
			}
		}
	}
	return false
}

func supported(ix *index, reason string, ls ...int32) fact {
	f := fact{verdict: events.VerdictSupported, reason: reason, leaves: ls}
	for _, l := range ls {
		f.refs = append(f.refs, ix.ref(l))
	}
	return f
}

// near reports whether evidence value x equals claimed value v within the
// tolerance of any of v's candidates (ignoring units: derived values).
func (cx *claimCtx) near(m *numMention, x float64, ks []cand) bool {
	for _, k := range ks {
		if math.Abs(x-k.v) <= k.tol {
			return true
		}
	}
	return false
}

// checkBound checks "more than 10", "within 3 days", "不超过 5 件": every
// field the claim names must satisfy it; with no such field, the evidence
// stating the same number (a limit of "up to 300 lbs") supports it.
func (cx *claimCtx) checkBound(m *numMention, targets []int32) fact {
	ix := cx.ix
	if len(targets) == 0 {
		for _, l := range cx.matches(m, m.v) {
			// The same number stated as a limit ("up to 300 lbs"), strictly:
			// "超过 10 亿" is not "9.8 亿" rounded.
			x, ok := cx.inClaimUnit(m, &ix.leaves[l])
			if cx.inScope(l) && ok && math.Abs(x-m.v) <= cx.c.cfg.Tolerance*math.Abs(m.v) {
				return supported(ix, "the evidence states the same bound", l)
			}
		}
		if m.unit != nil && m.unit.dim == dimTime {
			if f, ok := cx.durationAsDates(m); ok {
				return f
			}
		}
		return fact{verdict: events.VerdictUnsupported, reason: "no evidence field for the bound"}
	}
	tol := cx.c.tolerance(m, m.v)
	var held []int32
	for _, t := range targets {
		lf := &ix.leaves[t]
		x, ok := cx.inClaimUnit(m, lf)
		if !ok {
			continue
		}
		// A range in the evidence ("3-5 days") must hold at both ends.
		y := x + (lf.hi - lf.num)
		hold := false
		switch m.bound {
		case cueGT:
			hold = x > m.v
		case cueGE:
			hold = x >= m.v-tol
		case cueLT:
			hold = y < m.v
		case cueLE:
			hold = y <= m.v+tol
		}
		if !hold {
			return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(t)},
				reason: "bound fails: evidence says " + lf.raw + " at " + lf.ptr}
		}
		held = append(held, t)
	}
	if len(held) == 0 {
		return fact{verdict: events.VerdictUnsupported, reason: "no comparable evidence value"}
	}
	return supported(ix, "bound holds", held[:min(len(held), cx.c.cfg.EvidenceRefsMax)]...)
}

// inClaimUnit expresses an evidence value in the claim's unit.
func (cx *claimCtx) inClaimUnit(m *numMention, lf *leaf) (float64, bool) {
	if m.unit == nil || lf.unit == nil {
		if m.unit != nil && m.unit.dim == dimPercent && lf.num <= 1 && lf.unit == nil {
			return lf.num * 100, true
		}
		return lf.num, true
	}
	if m.unit.dim == dimPercent && lf.unit.dim == dimPercent {
		return lf.num * lf.unit.factor * 100, true
	}
	if !compatible(m.unit, lf.unit) {
		return 0, false
	}
	if x, ok := convert(lf.num, lf.unit, m.unit); ok {
		return x, true
	}
	return lf.num, m.unit.dim == lf.unit.dim
}

// checkRange checks "between 3 and 5 days", "3-5 个工作日".
func (cx *claimCtx) checkRange(m *numMention, targets []int32, concepts []string) fact {
	ix := cx.ix
	lo := cx.matches(m, m.v)
	hi := cx.matches(&numMention{unit: m.unit, decimals: m.decimals, mag: m.mag, approx: m.approx}, m.hi)
	var loT, hiT int32 = -1, -1
	for _, t := range targets {
		lf := &ix.leaves[t]
		if lf.hi != lf.num && containsLeaf(lo, t) {
			// A range in a string: both ends must match.
			x, _ := cx.inClaimUnit(m, lf)
			y := x + (lf.hi - lf.num)
			if math.Abs(y-m.hi) <= cx.c.tolerance(m, m.hi) {
				return supported(ix, "range matches", t)
			}
		}
		if loT < 0 && containsLeaf(lo, t) {
			loT = t
		} else if hiT < 0 && containsLeaf(hi, t) {
			hiT = t
		}
	}
	if loT >= 0 && hiT >= 0 {
		return supported(ix, "range matches", loT, hiT)
	}
	for _, t := range targets {
		x, ok := cx.inClaimUnit(m, &ix.leaves[t])
		if ok && ix.leaves[t].hi == ix.leaves[t].num && x >= m.v-cx.c.tolerance(m, m.v) && x <= m.hi+cx.c.tolerance(m, m.hi) && len(targets) == 1 {
			return supported(ix, "value within the range", t)
		}
	}
	if len(targets) > 0 && cx.scoped {
		// "raises ROUGE-L from 41.2 to 43.5": the ends may belong to two
		// subjects; look for both in the same field of any subject.
		wide := *cx
		wide.scoped = false
		all := wide.targets(concepts, func(lf *leaf) bool { return lf.kind == kindNum && dimFits(lf, m.unit) })
		var a, b int32 = -1, -1
		for _, t := range all {
			if a < 0 && containsLeaf(lo, t) {
				a = t
			} else if b < 0 && containsLeaf(hi, t) {
				b = t
			}
		}
		if a >= 0 && b >= 0 {
			return supported(ix, "range ends match", a, b)
		}
	}
	if len(targets) > 0 {
		return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(targets[0])},
			reason: "range differs: evidence says " + ix.leaves[targets[0]].raw + " at " + ix.leaves[targets[0]].ptr}
	}
	var a, b int32 = -1, -1
	for _, l := range lo {
		if cx.inScope(l) {
			a = l
			break
		}
	}
	for _, l := range hi {
		if cx.inScope(l) && l != a {
			b = l
			break
		}
	}
	if a >= 0 && b >= 0 {
		return supported(ix, "range matches", a, b)
	}
	if a >= 0 && ix.leaves[a].hi != ix.leaves[a].num {
		return supported(ix, "range matches", a)
	}
	if m.unit != nil && m.unit.dim == dimTime {
		if f, ok := cx.durationAsDates(m); ok {
			return f
		}
	}
	return fact{verdict: events.VerdictUnsupported, reason: "no evidence for the range"}
}

// derived looks for the claimed value as a value computed from evidence
// numbers: aggregates (sum, mean, min, max) of the targets or of a field
// across a collection, a count of elements, and — when the claim says so
// (total, difference, more, 一共, 平均 …) — pairwise sums, differences,
// products, ratios and percentage changes.
func (cx *claimCtx) derived(m *numMention, targets []int32, pairs bool) (fact, bool) {
	ix := cx.ix
	ks := cx.c.candidates(m, m.v)
	pool := cx.derivedPool(m, targets)
	// Aggregates over the targets (or the pool) grouped by field name.
	groups := groupByField(ix, pool)
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		var sum, lo, hi float64
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, l := range g {
			x := ix.leaves[l].num
			sum += x
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		if cx.near(m, sum, ks) {
			return supported(ix, "sum of "+strconv.Itoa(len(g))+" fields", g...), true
		}
		if cx.near(m, sum/float64(len(g)), ks) && cx.hasConcept("average") {
			return supported(ix, "average of "+strconv.Itoa(len(g))+" fields", g...), true
		}
		_ = lo
		_ = hi
	}
	if f, ok := cx.count(m, append(append([]string(nil), cx.concepts...), m.head...)); ok {
		return f, true
	}
	if !pairs || len(pool) < 2 {
		return fact{}, false
	}
	frac := []cand{}
	for _, k := range ks {
		if k.u == uFrac {
			frac = append(frac, k)
		}
	}
	pct := m.unit != nil && m.unit.dim == dimPercent
	ratio := cx.hasWord("times", "twice", "double", "half", "倍", "x")
	// Products and ratios need the claim to say it computes; a sum or a
	// difference of the subject's own fields is plain arithmetic.
	mult := cx.cues&(cueDerive|cueThan|cueMore|cueLess|cueUp|cueDown) != 0
	// Numbers the claim itself states may be factors: "两晚共需 1360 元"
	// is 2 × 680.
	var factors []float64
	for _, o := range cx.nums {
		if o.v != m.v && !o.free && o.v == math.Trunc(o.v) && o.v >= 2 && o.v <= 100 {
			factors = append(factors, o.v)
		}
	}
	for _, a := range pool {
		for _, k := range factors {
			if x := ix.leaves[a].num; cx.near(m, x*k, ks) && mult {
				return supported(ix, "product with a number the claim states", a), true
			}
		}
	}
	for i, a := range pool {
		x := ix.leaves[a].num
		for _, b := range pool[i+1:] {
			y := ix.leaves[b].num
			if !cx.scoped && len(targets) > 0 && !containsInt32(targets, a) && !containsInt32(targets, b) && lastToken(ix.leaves[a].ptr) != lastToken(ix.leaves[b].ptr) {
				continue // combine what the claim names, or one field across subjects
			}
			if ix.leaves[a].ptr == ix.leaves[b].ptr && !(ix.leaves[a].text && ix.leaves[b].text) {
				continue // a value and its scaled copy
			}
			if !pct || m.unit == nil {
				if cx.near(m, x+y, ks) {
					return supported(ix, "sum", a, b), true
				}
				if cx.near(m, math.Abs(x-y), ks) {
					return supported(ix, "difference", a, b), true
				}
				if mult && cx.near(m, x*y, ks) && (x != 1 && y != 1) {
					return supported(ix, "product", a, b), true
				}
				if ratio && (y != 0 && cx.near(m, x/y, ks) || x != 0 && cx.near(m, y/x, ks)) {
					return supported(ix, "ratio", a, b), true
				}
			}
			if pct {
				for _, p := range [][2]float64{{x, y}, {y, x}} {
					if p[1] == 0 {
						continue
					}
					if cx.near(m, p[0]/p[1], frac) || cx.near(m, math.Abs(p[0]-p[1])/p[1], frac) {
						return supported(ix, "percentage", a, b), true
					}
				}
				if cx.near(m, math.Abs(x-y), ks[:1]) {
					return supported(ix, "difference", a, b), true
				}
			}
		}
	}
	return fact{}, false
}

// count finds the claimed number as the number of elements of a list the
// claim names: "3 orders", "two shipments", "三个班".
func (cx *claimCtx) count(m *numMention, concepts []string) (fact, bool) {
	ix := cx.ix
	if m.unit != nil && m.unit.dim != dimCount || m.v != math.Trunc(m.v) || m.v < 0 {
		return fact{}, false
	}
	for _, i := range ix.arrays {
		n := &ix.nodes[i]
		if n.length == 0 || float64(n.length) != m.v || !cx.nodeInScope(i) {
			continue
		}
		nc := n.concepts
		if n.parent >= 0 {
			nc = append(append([]string(nil), nc...), ix.nodes[n.parent].concepts...)
		}
		if overlap(concepts, nc) > 0 || ix.membersNamed(i, m.headWord) {
			return fact{verdict: events.VerdictSupported, reason: "count of elements",
				refs: []events.EvidenceRef{ix.nodeRef(i, strconv.Itoa(n.length))}}, true
		}
	}
	return fact{}, false
}

// derivedPool returns the evidence numbers a derived value may be built
// from: the targets, then numbers in scope whose keys share a concept with
// the claim, then (when a subject is named) the other numbers in scope.
func (cx *claimCtx) derivedPool(m *numMention, targets []int32) []int32 {
	ix := cx.ix
	limit := cx.c.cfg.DerivedLeavesMax
	pool := make([]int32, 0, limit)
	add := func(l int32) {
		if len(pool) < limit && !containsInt32(pool, l) {
			pool = append(pool, l)
		}
	}
	for _, t := range targets {
		if len(pool) >= limit/2 {
			break
		}
		add(t)
	}
	for _, l := range cx.context {
		if ix.leaves[l].kind == kindNum {
			add(l)
		}
		for _, t := range ix.textOf[l] { // "14.3亿元" named whole
			if ix.leaves[t].kind == kindNum {
				add(t)
			}
		}
	}
	// The same field of the other members: "removing the CRF reduces test
	// F1 by 0.9" compares the CRF row with the full model's.
	if len(targets) > 0 && len(targets) <= 4 && (cx.cues&(cueDerive|cueThan|cueMore|cueLess|cueUp|cueDown) != 0 || m.unit != nil && m.unit.dim == dimPercent) {
		for _, t := range targets {
			for _, l := range cx.siblingsOf(t) {
				add(l)
			}
		}
	}
	concepts := cx.numberConcepts(m)
	ratio := m.unit != nil && m.unit.dim == dimPercent
	for _, c := range concepts {
		for _, l := range ix.byConcept[c] {
			if len(pool) >= limit {
				break
			}
			// A percentage is a ratio of two numbers of any unit.
			if lf := &ix.leaves[l]; lf.kind == kindNum && cx.inScope(l) && (ratio || dimFits(lf, m.unit)) {
				add(l)
			}
		}
	}
	if cx.scoped {
		for _, n := range cx.scope {
			nd := &ix.nodes[n]
			for l := nd.leafLo; l < nd.leafHi && len(pool) < limit; l++ {
				if lf := &ix.leaves[l]; lf.kind == kindNum {
					add(l) // any unit: 3 × $4.50
				}
			}
			// Fields of the enclosing objects (an msrp beside the offers).
			for p := nd.parent; p >= 0; p = ix.nodes[p].parent {
				pn := &ix.nodes[p]
				for l := pn.leafLo; l < pn.leafHi && len(pool) < limit; l++ {
					if lf := &ix.leaves[l]; lf.node == p && lf.kind == kindNum && dimFits(lf, m.unit) {
						add(l)
					}
				}
			}
		}
	}
	sortUnique(&pool)
	return pool
}

// membersNamed reports whether every object of array n has a name
// containing word: "3 warehouses" counts {"Denver warehouse", …}, "三个班"
// counts {一班, 二班, 三班}.
func (ix *index) membersNamed(n int32, word string) bool {
	if word == "" {
		return false
	}
	w := subjectKey(word)
	nd := &ix.nodes[n]
	count := 0
	for j := n + 1; j < nd.nodeHi; j = ix.nodes[j].nodeHi {
		s := ix.nodes[j].subject
		if s == "" {
			return false
		}
		ok := strings.Contains(strings.ToLower(s), word)
		for _, t := range tokenStrings(normalize(s)) {
			ok = ok || subjectKey(t) == w
		}
		if !ok {
			return false
		}
		count++
	}
	return count > 0
}

// siblingsOf returns the fields with leaf t's key in the other members of
// the collection t's object belongs to.
func (cx *claimCtx) siblingsOf(t int32) []int32 {
	ix := cx.ix
	lf := &ix.leaves[t]
	key := lastToken(lf.ptr)
	var out []int32
	for _, cl := range ix.colls {
		in := false
		for _, mb := range cl.members {
			if ix.inNode(t, mb) {
				in = true
			}
		}
		if !in {
			continue
		}
		for _, mb := range cl.members {
			nd := &ix.nodes[mb]
			for l := nd.leafLo; l < nd.leafHi; l++ {
				if o := &ix.leaves[l]; l != t && o.kind == kindNum && !o.text && o.scaled == lf.scaled && lastToken(o.ptr) == key {
					out = append(out, l)
				}
			}
		}
		break
	}
	return out
}

func containsInt32(s []int32, v int32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// groupByField groups leaves by their key (the last pointer token) so that
// a field is summed across the elements of a collection.
func groupByField(ix *index, pool []int32) [][]int32 {
	var keys []string
	by := map[string][]int32{}
	for _, l := range pool {
		p := ix.leaves[l].ptr
		k := p[strings.LastIndexByte(p, '/')+1:]
		if _, err := strconv.Atoi(k); err == nil {
			k = "#" // array elements
		}
		if ix.leaves[l].scaled {
			k += "|scaled"
		}
		if ix.leaves[l].text {
			k += "|text"
		}
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], l)
	}
	out := make([][]int32, 0, len(keys)+1)
	for _, k := range keys {
		out = append(out, by[k])
	}
	if len(keys) > 1 && len(pool) <= 8 {
		out = append(out, pool) // "in total" across different fields
	}
	return out
}

// ---- the words around a claimed number -------------------------------------

// attachNumberCues gives each number the cues written next to it: about
// 20, more than 10, 3 天以内, 20 左右, and the noun after it.
func (cx *claimCtx) attachNumberCues() {
	for k := range cx.nums {
		m := &cx.nums[k]
		if m.free {
			// "free shipping": the word after names what is free.
			for i := range cx.words {
				if w := &cx.words[i]; w.start >= m.end && w.info != nil && len(w.info.concepts) > 0 {
					m.head, m.headEnd = w.info.concepts, w.end
					break
				}
			}
			continue
		}
		prevWords, nextWords := 0, 0
		for i := len(cx.words) - 1; i >= 0 && prevWords < 3; i-- {
			w := &cx.words[i]
			if w.end > m.start {
				continue
			}
			prevWords++
			c := w.cues()
			if c&cueApprox != 0 {
				m.approx = true
			}
			if b := c & (cueGT | cueGE | cueLT | cueLE); b != 0 && m.bound == 0 {
				m.bound = firstBound(b)
			}
			if c&cueStop == 0 && w.info != nil && len(w.info.concepts) > 0 && prevWords > 1 {
				break
			}
		}
		if m.start > 0 {
			switch cx.norm[m.start-1] {
			case '~', '≈':
				m.approx = true
			case '>':
				m.bound = cueGT
			case '<':
				m.bound = cueLT
			case '≥':
				m.bound = cueGE
			case '≤':
				m.bound = cueLE
			}
		}
		if m.end < len(cx.norm) && cx.norm[m.end] == '+' {
			m.bound = cueGE
		}
		if c, ok := measureConcepts[m.unitWord]; ok {
			m.head = c
		}
		if m.unitWord == "折" {
			m.head = []string{"price", "discount"}
		}
		// The words just before the number, back to the previous number or
		// subject: "商品 A 可用库存 12 件", "weighs about 4.4 lb".
		from := max(0, m.start-16)
		for _, o := range cx.nums {
			if o.end <= m.start && o.headEnd > from {
				from = min(o.headEnd, m.start) // "1 bag up to 23 kg": bag is 1's
			}
		}
		for _, sp := range cx.spans {
			if sp[1] <= m.start && sp[1] > from {
				from = sp[1]
			}
		}
		m.local = dedupe(append(cx.conceptsIn(from, m.start), m.head...))
		for i := len(cx.words) - 1; i >= 0; i-- {
			w := &cx.words[i]
			if w.end > m.start || w.start < from {
				continue
			}
			c := cx.conceptsIn(w.start, w.end)
			if len(c) == 0 {
				continue
			}
			m.near = c
			// A compound: 促销价 (a one-ideograph head), "sale price".
			if i > 0 {
				p := &cx.words[i-1]
				if p.start >= from && (w.cjk && w.end-w.start == 1 && p.cjk || !w.cjk && !p.cjk && p.info != nil && len(p.info.concepts) > 0 && p.end+1 == w.start) {
					m.near = dedupe(append(c, cx.conceptsIn(p.start, p.end)...))
				}
			}
			break
		}
		headDone := false
		for i := range cx.words {
			w := &cx.words[i]
			if w.start < m.end || nextWords >= 4 {
				continue
			}
			if w.info == nil || w.info.cues&cueStop == 0 || nextWords == 0 {
				nextWords++ // stop words ("的", "of") do not count
			}
			c := w.cues()
			switch {
			case c&cueAfterGE != 0:
				m.bound = cueGE
			case w.s == "左右" || w.s == "上下" || w.s == "or so":
				m.approx = true
			case w.s == "多" && nextWords == 1 && w.start <= m.end+1:
				m.bound = cueGT // "3000多条": more than 3000
			case c&cueLE != 0 && (w.cjk || w.s == "or less"):
				m.bound = cueLE
			}
			if w.start < len(cx.used) && cx.used[w.start] || headDone {
				continue
			}
			if w.info != nil && w.info.cues&cueStop != 0 && len(w.info.concepts) == 0 {
				continue
			}
			// The first word after the number that is not a stop word is its
			// noun, if anything is: "30 in stock", "$348 … with free
			// shipping" has none.
			headDone = true
			if m.headWord == "" {
				m.headWord = w.s // "三个班", "3 warehouses": what is counted
			}
			if w.info != nil && len(w.info.concepts) > 0 && m.head == nil {
				m.head, m.headEnd = w.info.concepts, w.end
			} else if w.info == nil && !w.cjk && m.head == nil && nextWords <= 2 {
				m.head = wordConcepts(w.s)
				if m.head != nil {
					m.headEnd = w.end
				}
			} else if w.info == nil && w.cjk && m.head == nil && nextWords <= 2 {
				// 200 元违约金: the unknown words after the number, as bigrams.
				e := w.end
				for e < len(cx.norm) && isCJK(cx.norm[e]) && !cx.used[e] && e-w.start < 6 {
					if l := zhLex[string(cx.norm[e])]; l != nil && l.cues&cueStop != 0 {
						break
					}
					e++
				}
				if c := segmentCJK(cx.norm[w.start:e]); e-w.start >= 2 {
					m.head, m.headEnd = c, e
				}
			}
		}
	}
}

func firstBound(b cue) cue {
	for _, c := range []cue{cueGT, cueGE, cueLT, cueLE} {
		if b&c != 0 {
			return c
		}
	}
	return 0
}

// measureConcepts say what a Chinese measure word counts: 2 人 are guests.
var measureConcepts = map[string][]string{
	"人": {"guest"}, "位": {"guest"}, "名": {"guest"}, "晚": {"night"}, "间": {"room"},
	"张": {"seat"}, "单": {"order"}, "笔": {"order"}, "款": {"item"}, "种": {"item"},
}

// feeWords name a charge: "no fee", 不收手续费 state a price of zero.
var feeWords = map[string]bool{
	"fee": true, "fees": true, "charge": true, "charges": true, "cost": true, "costs": true,
	"deposit": true, "surcharge": true, "费": true, "手续费": true, "运费": true, "邮费": true,
	"费用": true, "收费": true, "定金": true, "押金": true, "附加费": true,
}

// ---- comparisons between subjects, superlatives, trends -------------------

// numberOf returns the best numeric field for concepts within nodes.
func (cx *claimCtx) numberOf(nodes []int32, concepts []string) int32 {
	sub := *cx
	sub.scope, sub.scoped = nodes, true
	ts := sub.targets(concepts, func(lf *leaf) bool { return lf.kind == kindNum && (!lf.text || lf.textShort) && !lf.scaled })
	if len(ts) == 0 {
		return -1
	}
	return ts[0]
}

// comparison checks "A is cheaper than B", "A 比 B 贵".
func (cx *claimCtx) comparison() fact {
	if cx.cues&(cueMore|cueLess) == 0 {
		return fact{}
	}
	if cx.cues&cueThan == 0 || len(cx.groups) < 2 {
		return cx.comparedToOther()
	}
	ix := cx.ix
	dir, thanAt := 0, -1
	for _, w := range cx.words {
		c := w.cues()
		if c&cueThan != 0 && thanAt < 0 {
			thanAt = w.start
		}
		if dir == 0 && c&(cueGT|cueGE|cueLT|cueLE) == 0 {
			if c&cueMore != 0 {
				dir = 1
			} else if c&cueLess != 0 {
				dir = -1
			}
		}
	}
	if dir == 0 {
		return fact{}
	}
	left, right := cx.groups[0], cx.groups[1]
	if slices.Equal(left, right) {
		return fact{}
	}
	if thanAt >= 0 && cx.spans[0][0] > thanAt && cx.spans[1][0] < thanAt {
		left, right = right, left
	} else if thanAt >= 0 && cx.spans[0][0] > thanAt && cx.spans[1][0] > thanAt {
		// "Compared with B, A is cheaper": the reference comes first.
		left, right = right, left
	}
	a, b := cx.numberOf(left, cx.concepts), cx.numberOf(right, cx.concepts)
	if a < 0 || b < 0 {
		// No field the comparison names: say nothing, and let the claim's
		// other parts (a difference "by 4 points") decide.
		return fact{}
	}
	dir *= cx.speedSign(a)
	x, y := ix.leaves[a].num, ix.leaves[b].num
	if (dir > 0 && x > y) || (dir < 0 && x < y) {
		return supported(ix, "comparison holds", a, b)
	}
	return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(a), ix.ref(b)}, reason: "comparison fails"}
}

// comparedToOther checks "B's rating is higher", 钱塘江景酒店评分更高 with
// no "than": of two members of a collection, against the other one.
func (cx *claimCtx) comparedToOther() fact {
	if len(cx.groups) != 1 || len(cx.nums) > 0 {
		return fact{}
	}
	ix := cx.ix
	dir := 0
	for _, w := range cx.words {
		c := w.cues()
		if c&(cueGT|cueGE|cueLT|cueLE|cueMost|cueLeast) != 0 || w.s == "多" || w.s == "少" || w.s == "高" || w.s == "低" || w.s == "大" || w.s == "小" {
			continue // bare 多/高 are not comparatives without 更 or 比
		}
		if c&cueMore != 0 {
			dir = 1
			break
		}
		if c&cueLess != 0 {
			dir = -1
			break
		}
	}
	if dir == 0 {
		return fact{}
	}
	for _, cl := range ix.colls {
		if len(cl.members) != 2 {
			continue
		}
		own, other := int32(-1), int32(-1)
		for _, mb := range cl.members {
			if slices.ContainsFunc(cx.groups[0], func(s int32) bool { return ix.ancestorOf(mb, s) }) {
				own = mb
			} else {
				other = mb
			}
		}
		if own < 0 || other < 0 {
			continue
		}
		a, b := cx.numberOf([]int32{own}, cx.concepts), cx.numberOf([]int32{other}, cx.concepts)
		if a < 0 || b < 0 {
			return fact{}
		}
		dir *= cx.speedSign(a)
		if x, y := ix.leaves[a].num, ix.leaves[b].num; dir > 0 && x > y || dir < 0 && x < y {
			return supported(ix, "comparison with the other holds", a, b)
		}
		return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(a), ix.ref(b)}, reason: "comparison with the other fails"}
	}
	return fact{}
}

// fastWords and slowWords speak of time: faster is less time but more
// speed.
var fastWords = map[string]bool{
	"fast": true, "faster": true, "fastest": true, "quick": true, "quicker": true, "quickest": true,
	"slow": true, "slower": true, "slowest": true, "快": true, "更快": true, "最快": true,
	"慢": true, "更慢": true, "最慢": true,
}

// speedSign returns -1 when the claim says fast/slow of a field that
// measures speed (faster is then more), else 1.
func (cx *claimCtx) speedSign(l int32) int {
	if !slices.Contains(cx.ix.leaves[l].own, "speed") && !slices.Contains(cx.ix.leaves[l].ctx, "speed") {
		return 1
	}
	for _, w := range cx.words {
		if fastWords[w.s] {
			return -1
		}
	}
	return 1
}

// trend checks "revenue rose in 2023", "营收下降" against a series: the
// numeric fields of the subject whose keys are years or periods (a table
// row with 2022 and 2023 columns), compared in key order — the year the
// claim names against the one before it, else the last against the first.
func (cx *claimCtx) trend() fact {
	up, down := cx.cues&cueUp != 0, cx.cues&cueDown != 0
	if up == down || !cx.scoped || len(cx.scope) != 1 {
		return fact{}
	}
	ix := cx.ix
	n := cx.scope[0]
	type point struct {
		key float64
		l   int32
	}
	var series []point
	nd := &ix.nodes[n]
	for l := nd.leafLo; l < nd.leafHi; l++ {
		lf := &ix.leaves[l]
		if lf.node != n || lf.kind != kindNum || lf.text || lf.scaled {
			continue
		}
		k, err := strconv.ParseFloat(cx.keyOf(l), 64)
		if err != nil {
			continue
		}
		series = append(series, point{k, l})
	}
	if len(series) < 2 {
		return fact{}
	}
	slices.SortFunc(series, func(a, b point) int { return cmp.Compare(a.key, b.key) })
	from, to := series[0], series[len(series)-1]
	for i, p := range series {
		if i > 0 && cx.hasConcept(strconv.FormatFloat(p.key, 'f', -1, 64)) {
			from, to = series[i-1], p
		}
	}
	x, y := ix.leaves[from.l].num, ix.leaves[to.l].num
	if up && y > x || down && y < x {
		return supported(ix, "the series moves that way", from.l, to.l)
	}
	return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(from.l), ix.ref(to.l)}, reason: "the series moves the other way"}
}

// keyOf returns the field name of leaf l: its key, or for a table cell its
// column name.
func (cx *claimCtx) keyOf(l int32) string {
	lf := &cx.ix.leaves[l]
	if len(lf.own) == 1 && isAllDigits(lf.own[0]) {
		return lf.own[0]
	}
	k := lastToken(lf.ptr)
	if isAllDigits(k) && lf.node >= 0 && !cx.ix.nodes[lf.node].array {
		return "" // a table cell under a column that is not a period
	}
	return k
}

// superlative checks "B has the most stock", "A 最便宜" against the other
// members of the subject's collection.
func (cx *claimCtx) superlative() fact {
	if cx.cues&(cueMost|cueLeast) == 0 {
		return fact{}
	}
	subj := []int32(nil)
	switch {
	case len(cx.groups) == 1:
		subj = cx.groups[0]
	case len(cx.groups) == 0 && cx.scoped && len(cx.scope) == 1:
		subj = cx.scope // "Wednesday will be the coldest day": the day named
	default:
		return fact{}
	}
	for _, m := range cx.nums {
		if !m.free {
			return fact{}
		}
	}
	ix := cx.ix
	dir := 1
	for _, w := range cx.words {
		if c := w.cues(); c&cueLeast != 0 {
			dir = -1
			break
		} else if c&cueMost != 0 {
			break
		}
	}
	for _, cl := range ix.colls {
		var own int32 = -1
		for _, mb := range cl.members {
			for _, s := range subj {
				if ix.ancestorOf(mb, s) {
					own = mb
				}
			}
		}
		if own < 0 {
			continue
		}
		a := cx.numberOf([]int32{own}, cx.concepts)
		if a < 0 {
			continue
		}
		dir := dir * cx.speedSign(a)
		for _, mb := range cl.members {
			if mb == own {
				continue
			}
			b := cx.numberOf([]int32{mb}, cx.concepts)
			if b < 0 {
				continue
			}
			x, y := ix.leaves[a].num, ix.leaves[b].num
			if dir > 0 && y > x || dir < 0 && y < x {
				return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(a), ix.ref(b)}, reason: "another member is more extreme"}
			}
		}
		return supported(ix, "superlative holds", a)
	}
	return fact{verdict: events.VerdictUnsupported, reason: "nothing to compare with"}
}

// countsMembers reports a number written next to the quantifier ("all 3
// items", "these 3 days", 三款牛奶都, 两天都).
func (cx *claimCtx) countsMembers(m numMention) bool {
	at := -1
	for i, w := range cx.words {
		if w.end > m.start {
			at = i
			break
		}
	}
	if at < 0 {
		return false
	}
	for i, w := range cx.words {
		if w.cues()&cueUniversal != 0 && (i < at && at-i <= 3 || i > at && i-at <= 3) {
			return true
		}
	}
	return false
}

// ---- numbers (and dates) the evidence writes inside keys and strings -------

// keyNumbers indexes what a numeric field's key says about its value: a
// magnitude (the value in 万元 is also indexed in 元) and a number in the
// key itself (sales_30d is about 30 days).
func (w *walker) keyNumbers(id int32, ki *keyInfo) {
	ix := w.ix
	base := ix.leaves[id]
	if ki.mag != 1 {
		lf := base
		lf.num, lf.hi, lf.scaled = base.num*ki.mag, base.hi*ki.mag, true
		if ki.magCurrency {
			lf.unit, lf.dim = uCNY, dimCurrency
		}
		if ki.magUnit != nil {
			lf.unit, lf.dim = ki.magUnit, ki.magUnit.dim
		}
		ix.leaves = append(ix.leaves, lf)
	}
	for _, m := range ki.numbers {
		lf := base
		lf.num, lf.hi, lf.unit, lf.dim, lf.text = m.v, m.v, m.unit, m.unit.dim, true
		ix.leaves = append(ix.leaves, lf)
	}
}

// textItem is a number or a date written inside a string value, with the
// concepts of the words around it; worked out once per distinct string.
type textItem struct {
	date    bool
	bare    bool // nothing but the number and its unit in the string
	num, hi float64
	unit    *unit
	day     int32
	clock   int16
	pos     int32
	near    []string
}

// textItems finds the numbers ("3-5 business days", "$25.00", "revenue
// rose 12% to 3.2 billion") and dates ("launches on June 3", "landfall on
// Thursday evening", resolved against the answer's time) in s.
func (w *walker) textItems(s string, dates bool) []textItem {
	key := s
	if !dates {
		key = "\x00" + s
	}
	if items, ok := w.ix.texts[key]; ok {
		return items
	}
	var items []textItem
	norm := normalize(s)
	var toks []token
	near := func(a, b int) []string {
		if toks == nil {
			toks = tokenize(norm)
		}
		return nearbyConcepts(toks, a, b, 6)
	}
	if strings.ContainsAny(s, "0123456789０１２３４５６７８９") {
		for k, m := range scanNumbers(norm, nil) {
			if k >= textNumbersMax {
				break
			}
			bare := true
			for i, c := range norm {
				if (i < m.start || i >= m.end) && (unicode.IsLetter(c) || unicode.IsDigit(c)) {
					bare = false
					break
				}
			}
			items = append(items, textItem{num: m.v, hi: m.hi, unit: m.unit, pos: int32(m.start), near: near(m.start, m.end), bare: bare})
		}
	}
	if dates && len(s) >= 5 && mightHaveDate(norm) {
		for k, te := range scanTimes(norm, w.now, make([]bool, len(norm))) {
			if k >= textDatesMax || len(te.days) == 0 {
				continue
			}
			items = append(items, textItem{date: true, day: te.days[0], clock: int16(te.clock), pos: int32(te.start), near: near(te.start, te.end)})
		}
	}
	w.ix.texts[key] = items
	return items
}

// textNumbers and textDates index the items of a string value as leaves
// pointing at the string.
func (w *walker) textNumbers(id int32, s string) {
	if s == "" || len(s) > 20000 {
		return
	}
	w.textLeaves(id, s, false)
}

func (w *walker) textDates(id int32, s string) {
	if s == "" || len(s) > 20000 {
		return
	}
	w.textLeaves(id, s, true)
}

func (w *walker) textLeaves(id int32, s string, dates bool) {
	ix := w.ix
	base := ix.leaves[id]
	items := w.textItems(s, true)
	// The string is the value itself when nothing but one number and its
	// unit is written in it.
	short := !dates && len(items) == 1 && !items[0].date && items[0].bare
	for _, it := range items {
		if it.date != dates {
			continue
		}
		lf := base
		lf.text, lf.cat, lf.src, lf.textPos = true, nil, id, it.pos
		lf.ctx = appendCtx(base.ctx, it.near)
		if dates {
			lf.hasDay, lf.day, lf.minute = true, it.day, it.clock
		} else {
			lf.kind, lf.str, lf.textShort = kindNum, "", short
			lf.num, lf.hi, lf.unit, lf.dim = it.num, it.hi, it.unit, dimNone
			if it.unit != nil {
				lf.dim = it.unit.dim
			}
		}
		ix.leaves = append(ix.leaves, lf)
	}
}

// textHedged reports whether a value found in text sits in a sentence
// that calls it an estimate (expected, possible, 预计).
func (ix *index) textHedged(l int32) bool {
	lf := &ix.leaves[l]
	if !lf.text || lf.src < 0 {
		return false
	}
	r := []rune(ix.leaves[lf.src].str)
	if int(lf.textPos) >= len(r) {
		return false
	}
	return nearbyHedge(r, tokenize(r), int(lf.textPos), int(lf.textPos)+1)
}

// nearbyHedge reports an estimate word (expected, possible, 预计) in the
// sentence of the text around [s, e).
func nearbyHedge(r []rune, toks []token, s, e int) bool {
	lo, hi := s, e
	for lo > 0 && !strings.ContainsRune(".!?。！？\n", r[lo-1]) {
		lo--
	}
	for hi < len(r) && !strings.ContainsRune(".!?。！？\n", r[hi]) {
		hi++
	}
	for _, tk := range toks {
		if tk.start < lo || tk.end > hi {
			continue
		}
		if l := enLex[tk.s]; l != nil && l.cues&cueHedge != 0 {
			return true
		}
	}
	for _, w := range segmentCJKKeep(r[lo:hi]) {
		if l := zhLex[w]; l != nil && l.cues&cueHedge != 0 {
			return true
		}
	}
	return false
}

// nearbyConcepts returns the concepts of up to n tokens around [s, e).
func nearbyConcepts(toks []token, s, e, n int) []string {
	var out []string
	for _, tk := range toks {
		if tk.end <= s && tk.end > s-40 || tk.start >= e && tk.start < e+40 {
			for _, c := range wordConcepts(tk.s) {
				if len(out) < n {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// textNumbersMax and textDatesMax bound the numbers and dates taken from
// one string value.
const (
	textNumbersMax = 64
	textDatesMax   = 16
)
