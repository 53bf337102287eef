package lang

import (
	"strconv"
	"strings"
)

// zhNumerals are the Chinese numerals of numbers.txt by rune.
type zhNumerals struct {
	digits map[rune]float64 // 一 … 九, 零, 〇, 两
	mults  map[rune]float64 // 十 百 千
	mags   map[rune]float64 // 万 亿
}

func (d *Data) makeZhNumerals() zhNumerals {
	z := zhNumerals{digits: map[rune]float64{}, mults: map[rune]float64{}, mags: map[rune]float64{}}
	for sec, m := range map[string]map[rune]float64{"zh digits": z.digits, "zh multipliers": z.mults, "zh magnitudes": z.mags} {
		for w, v := range d.numbers[sec] {
			if r := []rune(w); len(r) == 1 {
				m[r[0]] = v
			}
		}
	}
	return z
}

// IsZhNumeral reports whether r is a Chinese numeral (a digit, 十, 万 …).
func (d *Data) IsZhNumeral(r rune) bool {
	_, a := d.zh.digits[r]
	_, b := d.zh.mults[r]
	_, c := d.zh.mags[r]
	return a || b || c
}

// ParseZhNumber reads a Chinese numeral starting at r[i] (二十五, 两,
// 一百零五, 三千五百, 三万二千) and returns its value and where it ends;
// false if r[i] starts none (a magnitude alone, 万, is none).
func (d *Data) ParseZhNumber(r []rune, i int) (float64, int, bool) {
	var total, section, num float64
	j := i
	seen := false
	for ; j < len(r); j++ {
		c := r[j]
		if v, ok := d.zh.digits[c]; ok {
			num = v
			seen = true
			continue
		}
		if m, ok := d.zh.mults[c]; ok {
			if num == 0 {
				num = 1
			}
			section += num * m
			num = 0
			seen = true
			continue
		}
		if m, ok := d.zh.mags[c]; ok {
			if !seen && section == 0 {
				return 0, i, false
			}
			total += (section + num) * m
			section, num = 0, 0
			seen = true
			continue
		}
		break
	}
	if j == i {
		return 0, i, false
	}
	return total + section + num, j, true
}

// ZhDigitRun reads r, two or more Chinese digits and nothing else, digit
// by digit (八五 is 85, 二〇二六 2026): the way a discount (八五折) or a
// year is written, not a numeral (八十五); false for anything else.
func (d *Data) ZhDigitRun(r []rune) (float64, bool) {
	if len(r) < 2 {
		return 0, false
	}
	var v float64
	for _, c := range r {
		n, ok := d.zh.digits[c]
		if !ok {
			return 0, false
		}
		v = v*10 + n
	}
	return v, true
}

// NumberWord returns the value of one English number word ("seven",
// "twenty", "dozen").
func (d *Data) NumberWord(w string) (float64, bool) {
	v, ok := d.numbers["number words"][strings.ToLower(w)]
	return v, ok
}

// ParseNumber reads a whole string as a number: digits ("3,500", "2.5"),
// English number words, compound too ("twenty-one", "three hundred and
// five", "two thousand"), or a Chinese numeral (三千五百, 两万). It
// returns false for anything else, and for text around the number.
func (d *Data) ParseNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	if v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64); err == nil {
		return v, true
	}
	if r := []rune(s); IsCJK(r[0]) || r[0] == '〇' {
		v, end, ok := d.ParseZhNumber(r, 0)
		return v, ok && end == len(r)
	}
	return d.parseEnNumber(strings.ToLower(s))
}

// numberWordSpacer splits number words at hyphens and commas; made once,
// not per number read.
var numberWordSpacer = strings.NewReplacer("-", " ", ",", " ")

// parseEnNumber reads English number words: units and tens joined by a
// hyphen or space, "hundred", and magnitude words closing a group.
func (d *Data) parseEnNumber(s string) (float64, bool) {
	words := strings.Fields(numberWordSpacer.Replace(s))
	if v, ok := d.numbers["number words"][strings.Join(words, " ")]; ok {
		return v, true // "a dozen"
	}
	var total, group float64
	seen := false
	for i, w := range words {
		if w == "and" && seen && i+1 < len(words) {
			continue
		}
		if w == "hundred" {
			if group == 0 {
				group = 1
			}
			group *= 100
			seen = true
			continue
		}
		if m, ok := d.numbers["magnitude words"][w]; ok && len(w) > 2 {
			if !seen {
				return 0, false
			}
			total += group * m
			group = 0
			continue
		}
		v, ok := d.numbers["number words"][w]
		if !ok || v >= 100 {
			return 0, false
		}
		group += v
		seen = true
	}
	if !seen {
		return 0, false
	}
	return total + group, true
}
