package verifier

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

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
	var out []numMention
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
	case k+2 <= len(r) && string(r[k:k+2]) == "to" && (k+2 == len(r) || r[k+2] == ' '):
		sepEnd = k + 2
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
		return m, false // 一箱, 一个: an article, not a count
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

func unitConceptNames(u *unit) []string {
	switch u.dim {
	case dimCurrency:
		return []string{"price"}
	case dimMass:
		return []string{"weight", u.name}
	case dimTemp:
		return []string{"temperature"}
	case dimPercent:
		return []string{"percent"}
	case dimLength:
		return []string{u.name}
	case dimSpeed:
		return []string{"speed"}
	case dimTime:
		n := map[string]string{"d": "day", "h": "hour", "min": "minute", "s": "second", "wk": "week", "mo": "month", "yr": "year"}[u.name]
		return []string{"duration", n}
	}
	return nil
}

// checkNumber checks one claimed number.
func (cx *claimCtx) checkNumber(m *numMention) fact {
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
	// 2. No field named by the claim: accept a match the claim can own —
	// its keys share a word with the claim, its unit is the claim's, or it
	// is the only field with that value.
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
	f := fact{verdict: events.VerdictSupported, reason: reason}
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
			if cx.inScope(l) {
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
		if cx.near(m, sum/float64(len(g)), ks) && (pairs || cx.hasConcept("average")) {
			return supported(ix, "average of "+strconv.Itoa(len(g))+" fields", g...), true
		}
		_ = lo
		_ = hi
	}
	// Counts: elements of an array the claim names.
	if m.unit == nil || m.unit.dim == dimCount {
		for i := range ix.nodes {
			n := &ix.nodes[i]
			if !n.array || n.length == 0 || float64(n.length) != m.v {
				continue
			}
			if !cx.nodeInScope(int32(i)) {
				continue
			}
			nc := n.concepts
			if n.parent >= 0 {
				nc = append(append([]string(nil), nc...), ix.nodes[n.parent].concepts...)
			}
			if overlap(append(append([]string(nil), cx.concepts...), m.head...), nc) > 0 {
				f := fact{verdict: events.VerdictSupported, reason: "count of elements",
					refs: []events.EvidenceRef{ix.nodeRef(int32(i), strconv.Itoa(n.length))}}
				return f, true
			}
		}
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
	for i, a := range pool {
		x := ix.leaves[a].num
		for _, b := range pool[i+1:] {
			y := ix.leaves[b].num
			if !cx.scoped && len(targets) > 0 && !containsInt32(targets, a) && !containsInt32(targets, b) && lastToken(ix.leaves[a].ptr) != lastToken(ix.leaves[b].ptr) {
				continue // combine what the claim names, or one field across subjects
			}
			if ix.leaves[a].ptr == ix.leaves[b].ptr {
				continue
			}
			if !pct || m.unit == nil {
				if cx.near(m, x+y, ks) {
					return supported(ix, "sum", a, b), true
				}
				if cx.near(m, math.Abs(x-y), ks) {
					return supported(ix, "difference", a, b), true
				}
				if cx.near(m, x*y, ks) && (x != 1 && y != 1) {
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

// derivedPool returns the evidence numbers a derived value may be built
// from: the targets, then numbers in scope whose keys share a concept with
// the claim, then (when a subject is named) the other numbers in scope.
func (cx *claimCtx) derivedPool(m *numMention, targets []int32) []int32 {
	ix := cx.ix
	limit := cx.c.cfg.DerivedLeavesMax
	pool := append([]int32(nil), targets...)
	add := func(l int32) {
		if len(pool) < limit && !containsInt32(pool, l) {
			pool = append(pool, l)
		}
	}
	concepts := append(append([]string(nil), cx.concepts...), m.head...)
	ratio := m.unit != nil && m.unit.dim == dimPercent
	for _, c := range concepts {
		for _, l := range ix.byConcept[c] {
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
