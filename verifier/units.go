package verifier

import (
	"github.com/toolstream/toolstream/internal/lang"

	"math"
	"strings"
	"unicode/utf8"
)

// Units: what a number measures, and how to convert it.
//
// Every unit belongs to one dimension and converts to that dimension's base
// (grams, metres, seconds, degrees Celsius, fractions, millilitres, metres per
// second, bytes) by base = value*factor + offset. Currencies never convert
// into each other (no exchange rates are evidence); a currency unit carries
// the set of ISO codes its symbol may mean ("¥" is CNY or JPY).

type dimension uint8

const (
	dimNone dimension = iota
	dimCount
	dimMass
	dimLength
	dimTime
	dimTemp
	dimCurrency
	dimPercent
	dimVolume
	dimSpeed
	dimData
)

type unit struct {
	name   string // canonical, e.g. "kg", "USD", "%"
	dim    dimension
	factor float64
	offset float64
	codes  []string // currencies: the ISO codes this unit may mean
	scale  bool     // temperature with an unknown scale ("degrees", "度")
}

func (u *unit) toBase(v float64) float64   { return v*u.factor + u.offset }
func (u *unit) fromBase(b float64) float64 { return (b - u.offset) / u.factor }

var (
	uCount   = &unit{name: "count", dim: dimCount, factor: 1}
	uPercent = &unit{name: "%", dim: dimPercent, factor: 0.01}
	uFrac    = &unit{name: "fraction", dim: dimPercent, factor: 1}
	uDay     = &unit{name: "d", dim: dimTime, factor: 86400}
	uDegree  = &unit{name: "deg", dim: dimTemp, factor: 1, scale: true}
	uZhe     = &unit{name: "zhe", dim: dimPercent, factor: 0.1} // 折: tenths of the original price
)

func cur(codes ...string) *unit {
	return &unit{name: codes[0], dim: dimCurrency, factor: 1, codes: codes}
}

// canonicalUnits lists, per dimension, the units a claimed value is
// converted into before it is looked up among evidence values.
var canonicalUnits = map[dimension][]*unit{
	dimMass:    {uG, uKG, uMG, uLB, uOZ, uT, uJin},
	dimLength:  {uM, uKM, uCM, uMM, uMI, uFT, uInch, uYD},
	dimTime:    {uSec, uMin, uHour, uDay, uWeek, uMS},
	dimTemp:    {uC, uF},
	dimVolume:  {uML, uL, uGal},
	dimSpeed:   {uMPS, uKMH, uMPH},
	dimData:    {uKB, uMB, uGB, uTB},
	dimPercent: {uPercent, uFrac},
}

var (
	uG   = &unit{name: "g", dim: dimMass, factor: 1}
	uKG  = &unit{name: "kg", dim: dimMass, factor: 1000}
	uMG  = &unit{name: "mg", dim: dimMass, factor: 0.001}
	uLB  = &unit{name: "lb", dim: dimMass, factor: 453.59237}
	uOZ  = &unit{name: "oz", dim: dimMass, factor: 28.349523125}
	uT   = &unit{name: "t", dim: dimMass, factor: 1e6}
	uJin = &unit{name: "jin", dim: dimMass, factor: 500}

	uM    = &unit{name: "m", dim: dimLength, factor: 1}
	uKM   = &unit{name: "km", dim: dimLength, factor: 1000}
	uCM   = &unit{name: "cm", dim: dimLength, factor: 0.01}
	uMM   = &unit{name: "mm", dim: dimLength, factor: 0.001}
	uMI   = &unit{name: "mi", dim: dimLength, factor: 1609.344}
	uFT   = &unit{name: "ft", dim: dimLength, factor: 0.3048}
	uInch = &unit{name: "in", dim: dimLength, factor: 0.0254}
	uYD   = &unit{name: "yd", dim: dimLength, factor: 0.9144}

	uMS    = &unit{name: "ms", dim: dimTime, factor: 0.001}
	uSec   = &unit{name: "s", dim: dimTime, factor: 1}
	uMin   = &unit{name: "min", dim: dimTime, factor: 60}
	uHour  = &unit{name: "h", dim: dimTime, factor: 3600}
	uWeek  = &unit{name: "wk", dim: dimTime, factor: 7 * 86400}
	uMonth = &unit{name: "mo", dim: dimTime, factor: 30 * 86400}
	uYear  = &unit{name: "yr", dim: dimTime, factor: 365 * 86400}

	uC = &unit{name: "C", dim: dimTemp, factor: 1}
	uF = &unit{name: "F", dim: dimTemp, factor: 5.0 / 9.0, offset: -32 * 5.0 / 9.0}

	uML  = &unit{name: "ml", dim: dimVolume, factor: 1}
	uL   = &unit{name: "l", dim: dimVolume, factor: 1000}
	uGal = &unit{name: "gal", dim: dimVolume, factor: 3785.411784}

	uMPS = &unit{name: "m/s", dim: dimSpeed, factor: 1}
	uKMH = &unit{name: "km/h", dim: dimSpeed, factor: 1000.0 / 3600}
	uMPH = &unit{name: "mph", dim: dimSpeed, factor: 1609.344 / 3600}

	uKB = &unit{name: "KB", dim: dimData, factor: 1e3}
	uMB = &unit{name: "MB", dim: dimData, factor: 1e6}
	uGB = &unit{name: "GB", dim: dimData, factor: 1e9}
	uTB = &unit{name: "TB", dim: dimData, factor: 1e12}

	uUSD    = cur("USD")
	uDollar = cur("USD", "CAD", "AUD", "HKD", "SGD", "NZD")
	uCNY    = cur("CNY")
	uYen    = cur("CNY", "JPY")
	uJPY    = cur("JPY")
	uEUR    = cur("EUR")
	uGBP    = cur("GBP")
)

// unitWords maps the spelling of a unit after a number (lower case, half
// width) to the unit. Single letters are only units directly after a number.
var unitWords = map[string]*unit{
	"kg": uKG, "kgs": uKG, "kilogram": uKG, "kilograms": uKG, "kilo": uKG, "kilos": uKG,
	"g": uG, "gram": uG, "grams": uG, "gramme": uG, "grammes": uG, "mg": uMG,
	"lb": uLB, "lbs": uLB, "pound": uLB, "pounds": uLB, "oz": uOZ, "ounce": uOZ, "ounces": uOZ,
	"tonne": uT, "tonnes": uT, "ton": uT, "tons": uT,
	"公斤": uKG, "千克": uKG, "克": uG, "毫克": uMG, "斤": uJin, "吨": uT, "磅": uLB, "盎司": uOZ,
	"km": uKM, "kms": uKM, "kilometer": uKM, "kilometers": uKM, "kilometre": uKM, "kilometres": uKM,
	"m": uM, "meter": uM, "meters": uM, "metre": uM, "metres": uM, "cm": uCM, "mm": uMM,
	"mi": uMI, "mile": uMI, "miles": uMI, "ft": uFT, "feet": uFT, "foot": uFT,
	"inch": uInch, "inches": uInch, "yd": uYD, "yard": uYD, "yards": uYD,
	"公里": uKM, "千米": uKM, "米": uM, "厘米": uCM, "毫米": uMM, "英里": uMI, "英尺": uFT, "英寸": uInch,
	"ms": uMS, "millisecond": uMS, "milliseconds": uMS,
	"s": uSec, "sec": uSec, "secs": uSec, "second": uSec, "seconds": uSec,
	"min": uMin, "mins": uMin, "minute": uMin, "minutes": uMin,
	"h": uHour, "hr": uHour, "hrs": uHour, "hour": uHour, "hours": uHour,
	"day": uDay, "days": uDay, "business day": uDay, "business days": uDay, "working day": uDay,
	"working days": uDay, "calendar days": uDay,
	"week": uWeek, "weeks": uWeek, "wk": uWeek, "wks": uWeek,
	"month": uMonth, "months": uMonth, "year": uYear, "years": uYear, "yr": uYear, "yrs": uYear,
	"秒": uSec, "秒钟": uSec, "毫秒": uMS, "分钟": uMin, "小时": uHour, "个小时": uHour, "钟头": uHour,
	"天": uDay, "工作日": uDay, "个工作日": uDay, "周": uWeek, "个星期": uWeek, "星期": uWeek,
	"个月": uMonth, "年": uYear,
	"°c": uC, "℃": uC, "c": uC, "celsius": uC, "degrees celsius": uC, "degree celsius": uC,
	"°f": uF, "℉": uF, "f": uF, "fahrenheit": uF, "degrees fahrenheit": uF, "degree fahrenheit": uF,
	"°": uDegree, "degrees": uDegree, "degree": uDegree, "deg": uDegree,
	"摄氏度": uC, "华氏度": uF, "度": uDegree,
	"%": uPercent, "percent": uPercent, "per cent": uPercent, "pct": uPercent, "percentage points": uPercent,
	"ml": uML, "milliliter": uML, "milliliters": uML, "millilitre": uML, "l": uL, "liter": uL,
	"liters": uL, "litre": uL, "litres": uL, "gal": uGal, "gallon": uGal, "gallons": uGal,
	"毫升": uML, "升": uL,
	"km/h": uKMH, "kph": uKMH, "kmh": uKMH, "mph": uMPH, "m/s": uMPS, "公里/小时": uKMH, "米/秒": uMPS,
	"kb": uKB, "mb": uMB, "gb": uGB, "tb": uTB,
	"usd": uUSD, "dollar": uDollar, "dollars": uDollar, "us dollars": uUSD, "bucks": uDollar,
	"cny": uCNY, "rmb": uCNY, "yuan": uCNY, "元": uCNY, "块": uCNY, "块钱": uCNY, "人民币": uCNY,
	"美元": uUSD, "美金": uUSD, "jpy": uJPY, "yen": uJPY, "日元": uJPY, "円": uJPY,
	"eur": uEUR, "euro": uEUR, "euros": uEUR, "欧元": uEUR, "gbp": uGBP, "英镑": uGBP,
	"pcs": uCount, "pc": uCount, "piece": uCount, "pieces": uCount, "unit": uCount, "units": uCount,
	"件": uCount, "个": uCount, "台": uCount, "箱": uCount, "份": uCount, "双": uCount, "套": uCount,
	"瓶": uCount, "包": uCount, "盒": uCount, "张": uCount, "本": uCount, "支": uCount, "位": uCount,
	"人": uCount, "间": uCount, "晚": uCount, "次": uCount, "只": uCount, "辆": uCount, "单": uCount,
	"笔": uCount, "条": uCount, "家": uCount, "款": uCount, "种": uCount, "名": uCount, "张票": uCount,
	"袋": uCount, "期": uCount, "折": uZhe,
}

// unitPrefix maps a currency sign written before a number.
var unitPrefix = map[string]*unit{
	"$": uDollar, "us$": uUSD, "usd": uUSD, "¥": uYen, "￥": uYen, "rmb": uCNY, "cny": uCNY,
	"€": uEUR, "eur": uEUR, "£": uGBP, "gbp": uGBP, "jpy": uJPY,
}

// maxUnitRunes bounds the lookahead for a unit spelling after a number.
const maxUnitRunes = 18

// unitLens are, by their first rune, the lengths in runes of the unit
// words (bit n: a word of n runes): a number is followed by a unit of the
// lengths its next rune starts only. ASCII runes by index, others by key.
var unitLensASCII, unitLensOther = func() (a [utf8.RuneSelf]uint32, m map[rune]uint32) {
	m = map[rune]uint32{}
	for w := range unitWords {
		r := []rune(w)
		if len(r) > maxUnitRunes {
			panic("verifier: unit word " + w + " longer than maxUnitRunes")
		}
		if r[0] < utf8.RuneSelf {
			a[r[0]] |= 1 << len(r)
		} else {
			m[r[0]] |= 1 << len(r)
		}
	}
	return a, m
}()

// unitWordLens returns the lengths of the unit words starting with r[k]
// (unitLens), none past the end of r.
func unitWordLens(r []rune, k int) uint32 {
	switch {
	case k >= len(r):
		return 0
	case r[k] < utf8.RuneSelf:
		return unitLensASCII[r[k]]
	}
	return unitLensOther[r[k]]
}

// keyUnits maps a token of a JSON key (weight_kg, temp_f, eta_minutes) to
// the unit its values are in. Single letters only count as the last token
// of a key of several tokens.
var keyUnits = map[string]*unit{
	"kg": uKG, "kgs": uKG, "g": uG, "grams": uG, "mg": uMG, "lb": uLB, "lbs": uLB, "oz": uOZ,
	"km": uKM, "m": uM, "cm": uCM, "mm": uMM, "mi": uMI, "miles": uMI, "ft": uFT, "meters": uM,
	"ms": uMS, "sec": uSec, "secs": uSec, "seconds": uSec, "mins": uMin, "minutes": uMin,
	"hours": uHour, "hrs": uHour, "hr": uHour, "h": uHour, "days": uDay, "day": uDay, "weeks": uWeek,
	"c": uC, "celsius": uC, "f": uF, "fahrenheit": uF,
	"usd": uUSD, "cny": uCNY, "rmb": uCNY, "eur": uEUR, "gbp": uGBP, "jpy": uJPY, "cents": nil,
	"pct": uPercent, "percent": uPercent, "%": uPercent, "ml": uML, "l": uL, "kmh": uKMH, "kph": uKMH, "mps": uMPS,
	"mph": uMPH, "gb": uGB, "mb": uMB,
	"公斤": uKG, "千克": uKG, "克": uG, "公里": uKM, "米": uM, "天": uDay, "小时": uHour, "分钟": uMin,
	"元": uCNY, "摄氏度": uC, "℃": uC,
}

// unitOfValue parses a unit field's value ("kg", "USD", "°C", "pcs").
func unitOfValue(s string) *unit {
	s = strings.ToLower(strings.TrimSpace(s))
	if u, ok := unitWords[s]; ok {
		return u
	}
	if u, ok := unitPrefix[s]; ok {
		return u
	}
	return nil
}

// compatible reports whether a claimed unit and an evidence unit can
// describe the same quantity. A missing unit is compatible with anything.
func compatible(a, b *unit) bool {
	if a == nil || b == nil {
		return true
	}
	if a.dim != b.dim {
		// A bare count ("12 units") fits any unit-less quantity.
		return a.dim == dimCount && b.dim == dimCount
	}
	if a.dim == dimCurrency {
		if len(a.codes) == 0 || len(b.codes) == 0 {
			return true // an amount of money in an unknown currency
		}
		for _, x := range a.codes {
			for _, y := range b.codes {
				if x == y {
					return true
				}
			}
		}
		return false
	}
	return true
}

// sameUnit reports whether an evidence value in unit e is directly
// comparable to a candidate expressed in unit c (after conversion).
func sameUnit(c, e *unit) bool {
	if c == nil || e == nil {
		return true
	}
	if c.dim != e.dim {
		return false
	}
	switch c.dim {
	case dimCurrency:
		return compatible(c, e)
	case dimTemp:
		if c.scale || e.scale {
			return true
		}
	case dimCount:
		return true
	}
	return c.factor == e.factor && c.offset == e.offset
}

// convert expresses v (in unit from) in unit to. Both must share a
// dimension; currencies and unknown temperature scales do not convert.
func convert(v float64, from, to *unit) (float64, bool) {
	if from == to {
		return v, true
	}
	if from == nil || to == nil || from.dim != to.dim {
		return 0, false
	}
	if from.dim == dimCurrency || from.scale || to.scale {
		return 0, false
	}
	out := to.fromBase(from.toBase(v))
	if math.IsNaN(out) || math.IsInf(out, 0) {
		return 0, false
	}
	return out, true
}

// scaleRatio is how much one unit of from is in units of to (for
// converting a rounding tolerance).
func scaleRatio(from, to *unit) float64 {
	if from == nil || to == nil || from.dim != to.dim || from.scale || to.scale || to.factor == 0 {
		return 1
	}
	return from.factor / to.factor
}

// keyMagnitudes scale a field by its key: 销售额(万元), revenue_millions,
// "Params (M)".
var keyMagnitudes = map[string]float64{
	"万元": 1e4, "万": 1e4, "亿元": 1e8, "亿": 1e8, "千元": 1e3, "百万": 1e6,
	"thousand": 1e3, "thousands": 1e3, "k": 1e3, "million": 1e6, "millions": 1e6, "mn": 1e6,
	"billion": 1e9, "billions": 1e9, "bn": 1e9,
}

// ---- units and dimensions named by JSON keys ------------------------------

// lastOnlyUnits are key tokens that are units only as the last token of a
// key of several (temp_c, snowfall_in), never alone.
var lastOnlyUnits = map[string]bool{"in": true, "m": true, "c": true, "f": true, "g": true, "h": true, "l": true, "s": true,
	"day": true, "week": true} // day_high, 52_week_low: which day or week, not a duration

// keyUnitOf reads the unit a key names (weight_kg, eta_minutes,
// price_usd) and the dimension of its head word (first_weight_fee is a
// fee).
func keyUnitOf(parts []string) (*unit, dimension) {
	for i := len(parts) - 1; i >= 0; i-- {
		p := parts[i]
		if lastOnlyUnits[p] && (len(parts) == 1 || i != len(parts)-1) {
			continue
		}
		if i > 0 && parts[i-1] == "$" && (p == "m" || p == "k" || p == "b" || p == "bn") {
			return uUSD, dimCurrency // "Revenue ($M)": millions of dollars
		}
		if u, ok := unitPrefix[p]; ok && len(p) <= 3 && !isLatinLetter([]rune(p)[0]) {
			return u, dimCurrency // a column "Price ($)", "价格(¥)"
		}
		if i > 0 && (parts[i-1] == "per" || parts[i-1] == "每") {
			continue // fee_per_kg is money, not kilograms
		}
		if p == "min" && i == len(parts)-1 && i > 0 && durationWords[parts[i-1]] {
			return uMin, dimTime // duration_min, eta_min: minutes, not a minimum
		}
		if p == "in" {
			return uInch, dimLength
		}
		if u, ok := keyUnits[p]; ok && u != nil {
			return u, u.dim
		}
	}
	return nil, keyDim(parts)
}

// keyUnit infers the unit of a numeric field from its key or a sibling
// unit/currency field, and its dimension from its key's concepts (price →
// currency, stock → count).
func keyUnit(key string, concepts []string, siblings map[string]any) (*unit, dimension) {
	u, d := keyUnitOf(keyParts(key))
	ki := &keyInfo{unit: u, dim: d}
	return fieldUnit(ki, key, concepts, siblings)
}

// fieldUnit completes a key's unit with its concepts and siblings.
func fieldUnit(ki *keyInfo, key string, concepts []string, siblings map[string]any) (*unit, dimension) {
	if ki.unit != nil {
		return ki.unit, ki.dim
	}
	dim := ki.dim
	if dim == dimNone {
		dim = conceptDim(concepts)
	}
	if siblings != nil {
		for _, uk := range []string{"currency", "currency_code", "unit", "units", "uom", "temp_unit", "temperature_unit", "weight_unit", "货币", "单位", "币种"} {
			s, ok := siblings[uk].(string)
			if !ok {
				continue
			}
			u := unitOfValue(s)
			if u == nil {
				continue
			}
			if u.dim == dimCurrency && dim != dimCurrency && !(dim == dimNone && moneyish(key)) {
				continue
			}
			if u.dim != dimCurrency && dim != dimNone && dim != u.dim {
				continue
			}
			return u, u.dim
		}
	}
	if dim == dimCurrency {
		return moneyUnit, dim
	}
	return nil, dim
}

// moneyUnit is an amount of money in a currency the evidence does not say.
var moneyUnit = &unit{name: "money", dim: dimCurrency, factor: 1}

func moneyish(key string) bool {
	l := strings.ToLower(key)
	for _, w := range []string{"amount", "value", "total", "price", "cost", "fee", "tax", "fare", "金额", "价", "费"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// durationWords before "min" make it minutes.
var durationWords = map[string]bool{
	"duration": true, "time": true, "eta": true, "travel": true, "wait": true, "drive": true,
	"walk": true, "flight": true, "ride": true, "prep": true, "cook": true, "delay": true,
	"trip": true, "journey": true, "runtime": true, "length": true,
}

// keyDim is the dimension named by a key's head word: keys are head-last
// (first_weight_fee is a fee, total_qty a count) and what follows "per"
// is a denominator (price_per_night is a price).
func keyDim(parts []string) dimension {
	for i := len(parts) - 1; i >= 0; i-- {
		if i > 0 && (parts[i-1] == "per" || parts[i-1] == "每") {
			continue
		}
		if parts[i] == "rate" || parts[i] == "rates" {
			continue // a room rate is money, a conversion rate a ratio: let the value say
		}
		var cs []string
		if lang.IsCJK([]rune(parts[i])[0]) {
			for _, w := range segmentCJK([]rune(parts[i])) {
				cs = append(cs, wordConcepts(w)...)
			}
		} else {
			cs = wordConcepts(parts[i])
		}
		if d := conceptDim(cs); d != dimNone {
			return d
		}
	}
	return dimNone
}

// conceptDim maps key concepts to the dimension of their values.
func conceptDim(concepts []string) dimension {
	for _, c := range concepts {
		switch c {
		case "stock", "guest", "seat", "review", "count", "night", "sales", "user":
			return dimCount
		case "weight":
			return dimMass
		case "temperature":
			return dimTemp
		case "distance":
			return dimLength
		case "humidity", "chance", "percent", "ratio":
			return dimPercent
		}
	}
	for _, c := range concepts {
		switch c {
		case "price", "subtotal", "shipping", "tax", "revenue", "balance", "profit", "original":
			return dimCurrency
		}
	}
	return dimNone
}

// keyParts splits a key into lower-case parts: snake, kebab, camel case,
// digits, and the characters %, ℃.
func keyParts(key string) []string {
	var parts []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			parts = append(parts, string(cur))
			cur = cur[:0]
		}
	}
	r := []rune(key)
	for i, c := range r {
		c = normRune(c)
		switch {
		case c == '%' || c == '℃' || c == '$' || c == '€' || c == '£' || c == '¥':
			flush()
			parts = append(parts, string(c))
		case lang.IsCJK(c):
			cur = append(cur, c)
		case c < 128 && (c >= 'a' && c <= 'z' || c >= '0' && c <= '9'):
			if i > 0 && r[i] >= 'A' && r[i] <= 'Z' && r[i-1] >= 'a' && r[i-1] <= 'z' {
				flush()
			}
			if len(cur) > 0 && lang.IsCJK(cur[len(cur)-1]) {
				flush()
			}
			cur = append(cur, c)
		default:
			flush()
		}
	}
	flush()
	return parts
}

// keyNegates reports a key that states the negative (out_of_stock,
// non_refundable, is_unavailable, road_closures).
func keyNegates(key string) bool {
	parts := keyParts(key)
	j := " " + strings.Join(parts, " ") + " "
	switch {
	case strings.Contains(j, " out of stock "), strings.Contains(j, " sold out "), strings.Contains(j, " not "), strings.Contains(j, " no "), strings.Contains(j, " non "):
		return true
	}
	for _, p := range parts {
		if l := enLex[p]; l != nil && l.cues&cueNegLex != 0 {
			return true
		}
		if negPrefixed(p) != "" {
			return true
		}
	}
	return false
}

// unitConcepts are key words that name a unit, not an attribute: they do
// not count against a field the claim does not name them for.
var unitConcepts = map[string]bool{
	"usd": true, "cny": true, "eur": true, "gbp": true, "jpy": true, "rmb": true, "kg": true, "lb": true,
	"g": true, "km": true, "mi": true, "cm": true, "mm": true, "day": true, "hour": true,
	"minute": true, "min": true, "hr": true, "second": true, "sec": true, "week": true, "c": true, "f": true,
	"pct": true, "percent": true, "%": true, "mph": true, "ml": true, "in": true, "m": true, "id": true,
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
