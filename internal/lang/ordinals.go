package lang

import (
	"strconv"
	"strings"
)

// ordinalMarks are numbers.txt's [ordinal marks], read once at load:
// ordinals are looked for at every rune of a claim.
type ordinalMarks struct {
	suffixes      []string
	before, after [][]rune
}

func (d *Data) makeOrdinalMarks() ordinalMarks {
	o := ordinalMarks{suffixes: d.Words("ordinal marks", "suffix")}
	for _, m := range d.Words("ordinal marks", "before") {
		o.before = append(o.before, []rune(m))
	}
	for _, m := range d.Words("ordinal marks", "after") {
		o.after = append(o.after, []rune(m))
	}
	return o
}

// Ordinal reads one English ordinal written as a word: "fourth",
// "twenty-first", or digits with their suffix ("4th", "2nd", "23rd"),
// from numbers.txt's [ordinal words] and [ordinal marks]. It returns
// false for anything else, a cardinal ("four") or bare digits included.
func (d *Data) Ordinal(w string) (float64, bool) {
	w = strings.ToLower(strings.TrimSpace(w))
	if v, ok := d.numbers["ordinal words"][w]; ok {
		return v, true
	}
	for _, suf := range d.ord.suffixes {
		if n, ok := strings.CutSuffix(w, suf); ok && n != "" && IsAllDigits(n) {
			v, err := strconv.ParseFloat(n, 64)
			return v, err == nil && v > 0
		}
	}
	if i := strings.LastIndexAny(w, "- "); i > 0 {
		last, ok := d.numbers["ordinal words"][w[i+1:]]
		if !ok || last >= 10 {
			return 0, false
		}
		tens, ok := d.parseEnNumber(w[:i])
		if !ok || tens < 20 || tens != float64(int64(tens/10)*10) {
			return 0, false
		}
		return tens + last, true
	}
	return 0, false
}

// ZhOrdinal reads a Chinese ordinal starting at r[i]: a mark before a
// numeral (第四, 第3, 第二十) or a numeral and the mark after it that names
// a numbered thing (三号, 3号). It returns the number and where the
// ordinal ends (the noun it counts follows); false if none starts at i.
func (d *Data) ZhOrdinal(r []rune, i int) (float64, int, bool) {
	if i >= len(r) {
		return 0, i, false
	}
	for _, mr := range d.ord.before {
		if hasRunesAt(r, i, mr) {
			if v, end, ok := d.numeralAt(r, i+len(mr)); ok {
				return v, end, true
			}
		}
	}
	v, end, ok := d.numeralAt(r, i)
	if !ok {
		return 0, i, false
	}
	for _, mr := range d.ord.after {
		if hasRunesAt(r, end, mr) {
			return v, end + len(mr), true
		}
	}
	return 0, i, false
}

// numeralAt reads Arabic digits or a Chinese numeral at r[i], a whole
// number above zero.
func (d *Data) numeralAt(r []rune, i int) (float64, int, bool) {
	j := i
	for j < len(r) && r[j] >= '0' && r[j] <= '9' {
		j++
	}
	if j > i {
		v, err := strconv.ParseFloat(string(r[i:j]), 64)
		return v, j, err == nil && v > 0
	}
	if i < len(r) && d.IsZhNumeral(r[i]) {
		v, end, ok := d.ParseZhNumber(r, i)
		return v, end, ok && v > 0 && v == float64(int64(v))
	}
	return 0, i, false
}

func hasRunesAt(r []rune, i int, m []rune) bool {
	if len(m) == 0 || i+len(m) > len(r) {
		return false
	}
	for k, c := range m {
		if r[i+k] != c {
			return false
		}
	}
	return true
}
