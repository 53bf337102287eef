package memory

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolstream/toolstream/internal/lang"
)

// A quantity is a number said with its unit: "135 centimetres", "a metre
// and a half", "1,000 mg", "five hundred milligrams", 四十斤, 23公斤, 一米五.
// A correction of a quantity compares like with like: "a metre and a half
// wide, not 135 cm" replaces the statement that said "135 centimetres",
// and 不是40斤 the one that said 四十斤, because the two name one amount
// of one dimension once the units (internal/lang's unit words and
// factors) and the numbers (English number words, Chinese numerals) are
// read. Money is compared only in one currency: it is never converted.

// amount is one quantity said in a text.
type amount struct {
	value float64
	unit  *lang.Unit
	text  string // as the text says it
}

// base is the quantity in its dimension's base unit.
func (q amount) base() float64 { return q.value*q.unit.Factor + q.unit.Offset }

// same reports whether q and o name one amount: one dimension (and, for
// money, one currency) and the same value in its base unit, up to a
// rounding of the conversion.
func (q amount) same(o amount) bool {
	if q.unit == nil || o.unit == nil || q.unit.Dim != o.unit.Dim || q.unit.Dim == lang.DimNone {
		return false
	}
	if q.unit.Dim == lang.DimMoney && q.unit.Name != o.unit.Name {
		return false
	}
	a, b := q.base(), o.base()
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// quantityWordsMax bounds the words a number in words takes ("three
// hundred and twenty-five").
const quantityWordsMax = 6

// quantityAtEN reads a quantity said from ws[i]: a number in digits or
// words ("a" and "an" are one, before a unit only), "and a half" after it
// or after its unit, and its unit (a unit word of internal/lang, glued to
// the digits or not: "135cm", "135 cm"); it returns the quantity and the
// words it takes, 0 if none starts there.
func quantityAtEN(ws []word, i int) (amount, int) {
	d := lang.Default()
	x := ws[i].low
	var v float64
	n := 0
	switch {
	case x == "":
		return amount{}, 0
	case isDigitByte(x[0]):
		num := strings.TrimRight(x, "abcdefghijklmnopqrstuvwxyzµμ°/")
		if num != x {
			// glued: "135cm", "23kg"
			u, ok := d.UnitWord(x[len(num):])
			f, okn := d.ParseNumber(num)
			if !ok || !okn {
				return amount{}, 0
			}
			return amount{value: f, unit: u, text: ws[i].orig}, 1
		}
		f, ok := d.ParseNumber(x)
		if !ok {
			return amount{}, 0
		}
		v, n = f, 1
	case x == "a" || x == "an":
		v, n = 1, 1
		// "a hundred grams"
		for j := i + 2; j <= len(ws) && j-i <= quantityWordsMax; j++ {
			if f, ok := d.ParseNumber("one " + joinLow(ws[i+1:j])); ok {
				v, n = f, j-i
			}
		}
	default:
		for j := i + 1; j <= len(ws) && j-i <= quantityWordsMax; j++ {
			if f, ok := d.ParseNumber(joinLow(ws[i:j])); ok {
				v, n = f, j-i
			}
		}
		if n == 0 {
			return amount{}, 0
		}
	}
	half := func(k int) bool {
		return k+2 < len(ws) && ws[k].low == "and" && (ws[k+1].low == "a" || ws[k+1].low == "one") && ws[k+2].low == "half"
	}
	k := i + n
	if half(k) {
		v += 0.5
		k += 3
	}
	if k >= len(ws) {
		return amount{}, 0
	}
	u, ok := d.UnitWord(ws[k].low)
	if !ok || utf8.RuneCountInString(ws[k].low) == 1 && !isDigitByte(x[0]) {
		return amount{}, 0
	}
	k++
	if half(k) && v == math.Trunc(v) {
		v += 0.5 // "a metre and a half"
		k += 3
	}
	return amount{value: v, unit: u, text: joinOrig(ws[i:k])}, k - i
}

// zhUnitRunesMax bounds the characters of a Chinese unit word.
const zhUnitRunesMax = 4

// quantitiesZH reads the quantities of a Chinese text: a number in
// Chinese numerals or digits, then its unit (a unit word of
// internal/lang, Chinese or Latin: 四十斤, 23公斤, 23 kg), with 半 after it
// a half more (三斤半) and, after 米, its tenths and hundredths in
// numerals (一米五 is 1.5 metres, 一米六八 1.68).
func quantitiesZH(text string) []amount {
	d := lang.Default()
	rs := []rune(text)
	var out []amount
	for i := 0; i < len(rs); {
		start := i
		var v float64
		switch {
		case unicode.IsDigit(rs[i]):
			j := i
			for j < len(rs) && (unicode.IsDigit(rs[j]) || (rs[j] == '.' || rs[j] == ',') && j+1 < len(rs) && unicode.IsDigit(rs[j+1])) {
				j++
			}
			f, ok := d.ParseNumber(string(rs[i:j]))
			if !ok {
				i = j
				continue
			}
			v, i = f, j
		case d.IsZhNumeral(rs[i]):
			f, end, ok := d.ParseZhNumber(rs, i)
			if !ok || end <= i {
				i++
				continue
			}
			v, i = f, end
		default:
			i++
			continue
		}
		j := i
		for j < len(rs) && rs[j] == ' ' {
			j++
		}
		var u *lang.Unit
		end := j
		if j < len(rs) && lang.IsCJK(rs[j]) {
			for k := min(len(rs), j+zhUnitRunesMax); k > j; k-- {
				if w, ok := d.UnitWord(string(rs[j:k])); ok {
					u, end = w, k
					break
				}
			}
		} else {
			k := j
			for k < len(rs) && rs[k] < utf8.RuneSelf && (unicode.IsLetter(rs[k]) || rs[k] == '/') {
				k++
			}
			if w, ok := d.UnitWord(string(rs[j:k])); ok && k > j {
				u, end = w, k
			}
		}
		if u == nil {
			continue
		}
		switch {
		case end < len(rs) && rs[end] == '半':
			v += 0.5
			end++
		case u.Name == "m" && end < len(rs) && d.IsZhNumeral(rs[end]) && v == math.Trunc(v):
			k, frac, scale := end, 0.0, 0.1
			for k < len(rs) && k-end < 2 {
				f, ok := d.ParseNumber(string(rs[k]))
				if !ok || f > 9 {
					break
				}
				frac += f * scale
				scale /= 10
				k++
			}
			v += frac
			end = k
		}
		out = append(out, amount{value: v, unit: u, text: string(rs[start:end])})
		i = end
	}
	return out
}

// quantitiesIn reads every quantity text says, in order.
func quantitiesIn(text string) []amount {
	if hasHan(text) {
		return quantitiesZH(text)
	}
	ws := words(text)
	var out []amount
	for i := 0; i < len(ws); i++ {
		if q, n := quantityAtEN(ws, i); n > 0 {
			out = append(out, q)
			i += n - 1
		}
	}
	return out
}

// wholeQuantity returns the quantity text is, said alone ("135 cm",
// 四十斤), and whether it is one.
func wholeQuantity(text string) (amount, bool) {
	text = strings.TrimSpace(text)
	if hasHan(text) {
		qs := quantitiesZH(text)
		return firstOf(qs), len(qs) == 1 && qs[0].text == text
	}
	ws := words(text)
	if len(ws) == 0 {
		return amount{}, false
	}
	q, n := quantityAtEN(ws, 0)
	return q, n > 0 && n == len(ws)
}

func firstOf(qs []amount) amount {
	if len(qs) == 0 {
		return amount{}
	}
	return qs[0]
}

// sameQuantityIn returns the text of the quantity text says that is q's
// amount, and whether it says one.
func sameQuantityIn(text string, q amount) (string, bool) {
	for _, o := range quantitiesIn(text) {
		if o.same(q) {
			return o.text, true
		}
	}
	return "", false
}
