package evidence

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

type Dimension = lang.Dimension

const (
	DimNone     = lang.DimNone
	DimCount    = lang.DimCount
	DimMass     = lang.DimMass
	DimLength   = lang.DimLength
	DimTime     = lang.DimTime
	DimTemp     = lang.DimTemp
	DimCurrency = lang.DimMoney
	DimPercent  = lang.DimPercent
	dimVolume   = lang.DimVolume
	dimSpeed    = lang.DimSpeed
	dimData     = lang.DimData
	dimEnergy   = lang.DimEnergy
	dimPower    = lang.DimPower
)

type Unit struct {
	Name   string // canonical, e.g. "kg", "USD", "%"
	Dim    Dimension
	Factor float64
	offset float64
	codes  []string // currencies: the ISO codes this unit may mean
	Scale  bool     // temperature with an unknown scale ("degrees", "度")
}

// LangData is the language data every table of the verifier is read
// from (internal/lang's data files).
var LangData = lang.Default()

// units are the verifier's units, one for each unit of the data; a money
// unit is named by its first ISO code ("dollar" is USD).
var units = func() map[*lang.Unit]*Unit {
	m := map[*lang.Unit]*Unit{}
	for _, lu := range LangData.Units() {
		u := &Unit{Name: lu.Name, Dim: lu.Dim, Factor: lu.Factor, offset: lu.Offset, codes: lu.Codes, Scale: lu.Scale}
		if len(lu.Codes) > 0 {
			u.Name = lu.Codes[0]
		}
		m[lu] = u
	}
	return m
}()

// numberTable returns a number section of the data with its values as T.
func numberTable[T ~int | ~int32](section string) map[string]T {
	m := map[string]T{}
	for w, v := range LangData.Numbers(section) {
		m[w] = T(v)
	}
	return m
}

// unitNamed returns the unit the data names name.
func unitNamed(name string) *Unit { return units[LangData.Unit(name)] }

// unitRefs returns a unitref section of the data with the verifier's units.
func unitRefs(section string) map[string]*Unit {
	out := map[string]*Unit{}
	for w, lu := range LangData.UnitRefs(section) {
		out[w] = units[lu]
	}
	return out
}

func (u *Unit) toBase(v float64) float64   { return v*u.Factor + u.offset }
func (u *Unit) fromBase(b float64) float64 { return (b - u.offset) / u.Factor }

var (
	uCount   = unitNamed("count")
	UPercent = unitNamed("%")
	UFrac    = unitNamed("fraction")
	UDay     = unitNamed("d")
	uDegree  = unitNamed("deg")
	uZhe     = unitNamed("zhe") // 折: tenths of the original price
)

// CanonicalUnits lists, per dimension, the units a claimed value is
// converted into before it is looked up among evidence values.
var CanonicalUnits = func() map[Dimension][]*Unit {
	m := map[Dimension][]*Unit{}
	for _, l := range LangData.Lines("canonical units") {
		d, _ := lang.DimensionNamed(l.Name)
		for _, w := range l.Words {
			m[d] = append(m[d], unitNamed(w))
		}
	}
	return m
}()

// The units the rules (and the tests) name.
var (
	UG, UKG, uMG, ULB, uOZ, uT, UJin        = unitNamed("g"), unitNamed("kg"), unitNamed("mg"), unitNamed("lb"), unitNamed("oz"), unitNamed("t"), unitNamed("jin")
	uM, UKM, uCM, uMM, UMI, uFT, UInch, uYD = unitNamed("m"), unitNamed("km"), unitNamed("cm"), unitNamed("mm"), unitNamed("mi"), unitNamed("ft"), unitNamed("in"), unitNamed("yd")
	uMS, uSec, UMin, UHour, uWeek           = unitNamed("ms"), unitNamed("s"), unitNamed("min"), unitNamed("h"), unitNamed("wk")
	uMonth, uYear                           = unitNamed("mo"), unitNamed("yr")
	UC, UF                                  = unitNamed("C"), unitNamed("F")
	uML, uL, uGal                           = unitNamed("ml"), unitNamed("l"), unitNamed("gal")
	UMPS, UKMH, uMPH                        = unitNamed("m/s"), unitNamed("km/h"), unitNamed("mph")
	uKB, uMB, uGB, uTB                      = unitNamed("KB"), unitNamed("MB"), unitNamed("GB"), unitNamed("TB")
	UUSD, UDollar, UCNY, UYen, UJPY         = unitNamed("USD"), unitNamed("dollar"), unitNamed("CNY"), unitNamed("yen"), unitNamed("JPY")
	UEUR, uGBP                              = unitNamed("EUR"), unitNamed("GBP")
)

// UnitWords maps the spelling of a unit after a number (lower case, half
// width) to the unit. Single letters are only units directly after a number.
var UnitWords = unitRefs("unit words")

// unitPrefix maps a currency sign written before a number.
var unitPrefix = unitRefs("unit prefixes")

// maxUnitRunes bounds the lookahead for a unit spelling after a number.
const maxUnitRunes = 18

// unitLens are, by their first rune, the lengths in runes of the unit
// words (bit n: a word of n runes): a number is followed by a unit of the
// lengths its next rune starts only. ASCII runes by index, others by key.
var unitLensASCII, unitLensOther = func() (a [utf8.RuneSelf]uint32, m map[rune]uint32) {
	m = map[rune]uint32{}
	for w := range UnitWords {
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
var keyUnits = unitRefs("key units")

// UnitOfValue parses a unit field's value ("kg", "USD", "°C", "pcs").
func UnitOfValue(s string) *Unit {
	s = strings.ToLower(strings.TrimSpace(s))
	if u, ok := UnitWords[s]; ok {
		return u
	}
	if u, ok := unitPrefix[s]; ok {
		return u
	}
	return nil
}

// Compatible reports whether a claimed unit and an evidence unit can
// describe the same quantity. A missing unit is compatible with anything.
func Compatible(a, b *Unit) bool {
	if a == nil || b == nil {
		return true
	}
	if a.Dim != b.Dim {
		// A bare count ("12 units") fits any unit-less quantity.
		return a.Dim == DimCount && b.Dim == DimCount
	}
	if a.Dim == DimCurrency {
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

// SameUnit reports whether an evidence value in unit e is directly
// comparable to a candidate expressed in unit c (after conversion).
func SameUnit(c, e *Unit) bool {
	if c == nil || e == nil {
		return true
	}
	if c.Dim != e.Dim {
		return false
	}
	switch c.Dim {
	case DimCurrency:
		return Compatible(c, e)
	case DimTemp:
		if c.Scale || e.Scale {
			return true
		}
	case DimCount:
		return true
	}
	return c.Factor == e.Factor && c.offset == e.offset
}

// Convert expresses v (in unit from) in unit to. Both must share a
// dimension; currencies and unknown temperature scales do not convert.
func Convert(v float64, from, to *Unit) (float64, bool) {
	if from == to {
		return v, true
	}
	if from == nil || to == nil || from.Dim != to.Dim {
		return 0, false
	}
	if from.Dim == DimCurrency || from.Scale || to.Scale {
		return 0, false
	}
	out := to.fromBase(from.toBase(v))
	if math.IsNaN(out) || math.IsInf(out, 0) {
		return 0, false
	}
	return out, true
}

// ScaleRatio is how much one unit of from is in units of to (for
// converting a rounding tolerance).
func ScaleRatio(from, to *Unit) float64 {
	if from == nil || to == nil || from.Dim != to.Dim || from.Scale || to.Scale || to.Factor == 0 {
		return 1
	}
	return from.Factor / to.Factor
}

// keyMagnitudes scale a field by its key: 销售额(万元), revenue_millions,
// "Params (M)".
var keyMagnitudes = LangData.Numbers("key magnitudes")

// ---- units and dimensions named by JSON keys ------------------------------

// lastOnlyUnits are key tokens that are units only as the last token of a
// key of several (temp_c, snowfall_in), never alone.
var lastOnlyUnits = LangData.Set("last only units")

// keyUnitOf reads the unit a key names (weight_kg, eta_minutes,
// price_usd) and the dimension of its head word (first_weight_fee is a
// fee).
func keyUnitOf(parts []string) (*Unit, Dimension) {
	if u := perUnitKey(parts); u != nil {
		return u, u.Dim
	}
	for i := len(parts) - 1; i >= 0; i-- {
		p := parts[i]
		if lastOnlyUnits[p] && (len(parts) == 1 || i != len(parts)-1) {
			continue
		}
		if i > 0 && parts[i-1] == "$" && (p == "m" || p == "k" || p == "b" || p == "bn") {
			return UUSD, DimCurrency // "Revenue ($M)": millions of dollars
		}
		if u, ok := unitPrefix[p]; ok && len(p) <= 3 && !isLatinLetter([]rune(p)[0]) {
			return u, DimCurrency // a column "Price ($)", "价格(¥)"
		}
		if i > 0 && (parts[i-1] == "per" || parts[i-1] == "每") {
			continue // fee_per_kg is money, not kilograms
		}
		if p == "min" && i == len(parts)-1 && i > 0 && durationWords[parts[i-1]] {
			return UMin, DimTime // duration_min, eta_min: minutes, not a minimum
		}
		if p == "in" {
			return UInch, DimLength
		}
		if u, ok := keyUnits[p]; ok && u != nil {
			return u, u.Dim
		}
	}
	return nil, keyDim(parts)
}

// perUnitKey returns the numerator's unit of a key ending in a mass per a
// volume (lead_mg_l, 铅_ug_l: a concentration) or a volume per a time
// (flow_m3_s: a flow), nil for any other key. The unit words read such a
// claim the same way ("0.8 mg/L" is in mg, "42 m³/s" in m3), so both
// sides are per the same denominator, and a claim in g/L against a field
// in mg/L is compared by the numerators' factor.
func perUnitKey(parts []string) *Unit {
	n := len(parts)
	if n < 3 {
		return nil
	}
	num, den := keyUnits[parts[n-2]], keyUnits[parts[n-1]]
	if num == nil || den == nil {
		return nil
	}
	if num.Dim == DimMass && den.Dim == dimVolume || num.Dim == dimVolume && den.Dim == DimTime && den.Factor == 1 {
		return num
	}
	return nil
}

// keyUnitOfKey is keyUnitOf of key k's parts, but for a rate: a key
// ending in a unit after a slash ("推理速度(词/秒)", "speed (tokens/s)")
// counts something per that unit, and the unit is not the value's (nor
// is the key's magnitude: keyDim of its parts decides).
func keyUnitOfKey(k string, parts []string) (*Unit, Dimension) {
	if n := len(parts); n >= 2 {
		t := strings.TrimRight(k, " )）]】")
		if last := parts[n-1]; strings.HasSuffix(t, "/"+last) || strings.HasSuffix(t, "/ "+last) {
			if u, ok := keyUnits[last]; ok && u != nil && u.Dim == DimTime {
				return nil, keyDim(parts)
			}
		}
	}
	return keyUnitOf(parts)
}

// KeyUnit infers the unit of a numeric field from its key or a sibling
// unit/currency field, and its dimension from its key's concepts (price →
// currency, stock → count).
func KeyUnit(key string, concepts []string, fields map[string]any) (*Unit, Dimension) {
	u, d := keyUnitOfKey(key, lang.KeyParts(key))
	ki := &keyInfo{unit: u, dim: d}
	var sib *siblings
	if fields != nil {
		sib = &siblings{obj: objectOf(fields)}
	}
	return fieldUnit(ki, key, concepts, sib)
}

// siblings are the fields of an object, and the units its unit and
// currency fields name (unitKeys), read when a field first asks.
type siblings struct {
	obj   jsonObject
	read  bool
	units []*Unit // in the order of unitKeys
}

// of returns the units the object's unit and currency fields name.
func (s *siblings) of() []*Unit {
	if !s.read {
		s.read = true
		for _, uk := range unitKeys {
			if v, ok := s.obj.getString(uk); ok {
				if u := UnitOfValue(v); u != nil {
					s.units = append(s.units, u)
				}
			}
		}
	}
	return s.units
}

// fieldUnit completes a key's unit with its concepts and siblings.
func fieldUnit(ki *keyInfo, key string, concepts []string, sib *siblings) (*Unit, Dimension) {
	if ki.unit != nil {
		return ki.unit, ki.dim
	}
	dim := ki.dim
	if dim == DimNone {
		dim = conceptDim(concepts)
	}
	if sib != nil {
		for _, u := range sib.of() {
			if u.Dim == DimCurrency && dim != DimCurrency && !(dim == DimNone && moneyish(key)) {
				continue
			}
			if u.Dim != DimCurrency && dim != DimNone && dim != u.Dim && dim != DimCount {
				// A count's key (on_hand, qty) beside "unit": "kg" counts
				// in that unit; a key of another measure keeps its own.
				continue
			}
			return u, u.Dim
		}
	}
	if dim == DimCurrency {
		return moneyUnit, dim
	}
	return nil, dim
}

// moneyUnit is an amount of money in a currency the evidence does not say.
var moneyUnit = unitNamed("money")

// unitKeys are the sibling keys holding a field's unit or currency, and
// moneyKeyWords the words inside a key that make an amount money.
var unitKeys, moneyKeyWords = LangData.List("unit keys"), LangData.List("money key words")

func moneyish(key string) bool {
	l := strings.ToLower(key)
	for _, w := range moneyKeyWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// durationWords before "min" make it minutes.
var durationWords = LangData.Set("duration words")

// keyDim is the dimension named by a key's head word: keys are head-last
// (first_weight_fee is a fee, total_qty a count) and what follows "per"
// is a denominator (price_per_night is a price).
func keyDim(parts []string) Dimension {
	for i := len(parts) - 1; i >= 0; i-- {
		if i > 0 && (parts[i-1] == "per" || parts[i-1] == "每") {
			continue
		}
		if parts[i] == "rate" || parts[i] == "rates" {
			continue // a room rate is money, a conversion rate a ratio: let the value say
		}
		var cs []string
		if lang.IsCJK([]rune(parts[i])[0]) {
			for _, w := range SegmentCJK([]rune(parts[i])) {
				cs = append(cs, WordConcepts(w)...)
			}
		} else {
			cs = WordConcepts(parts[i])
		}
		if d := conceptDim(cs); d != DimNone {
			return d
		}
	}
	return DimNone
}

// conceptDim maps key concepts to the dimension of their values.
func conceptDim(concepts []string) Dimension {
	for _, c := range concepts {
		if d, ok := conceptDims[c]; ok && d != DimCurrency {
			return d
		}
	}
	for _, c := range concepts {
		if conceptDims[c] == DimCurrency {
			return DimCurrency
		}
	}
	return DimNone
}

// conceptDims are the dimensions of the concepts that measure one (stock
// is a count, weight a mass).
var conceptDims = func() map[string]Dimension {
	m := map[string]Dimension{}
	for _, l := range LangData.Lines("concept dimensions") {
		d, _ := lang.DimensionNamed(l.Name)
		for _, w := range l.Words {
			m[w] = d
		}
	}
	return m
}()

// keyNegates reports a key that states the negative (out_of_stock,
// non_refundable, is_unavailable, road_closures).
func keyNegates(key string) bool {
	parts := lang.KeyParts(key)
	j := " " + strings.Join(parts, " ") + " "
	switch {
	case strings.Contains(j, " out of stock "), strings.Contains(j, " sold out "), strings.Contains(j, " not "), strings.Contains(j, " no "), strings.Contains(j, " non "):
		return true
	}
	for _, p := range parts {
		if l := EnLex[p]; l != nil && l.Cues&CueNegLex != 0 {
			return true
		}
		if NegPrefixed(p) != "" {
			return true
		}
	}
	return false
}

// UnitConcepts are key words that name a unit, not an attribute: they do
// not count against a field the claim does not name them for.
var UnitConcepts = map[string]bool{
	"usd": true, "cny": true, "eur": true, "gbp": true, "jpy": true, "rmb": true, "kg": true, "lb": true,
	"g": true, "km": true, "mi": true, "cm": true, "mm": true, "day": true, "hour": true,
	"minute": true, "min": true, "hr": true, "second": true, "sec": true, "week": true, "c": true, "f": true,
	"pct": true, "percent": true, "%": true, "mph": true, "ml": true, "in": true, "m": true, "id": true,
}

func UnitConceptNames(u *Unit) []string {
	switch u.Dim {
	case DimCurrency:
		return []string{"price"}
	case DimMass:
		return []string{"weight", u.Name}
	case DimTemp:
		return []string{"temperature"}
	case DimPercent:
		return []string{"percent"}
	case DimLength:
		return []string{u.Name}
	case dimSpeed:
		return []string{"speed"}
	case DimTime:
		n := map[string]string{"d": "day", "h": "hour", "min": "minute", "s": "second", "wk": "week", "mo": "month", "yr": "year"}[u.Name]
		return []string{"duration", n}
	}
	return nil
}

// KeyUnitToken reports whether token p of a JSON key names the unit of its
// values ([key units] and [minor units] of internal/lang/data/units.txt:
// the kg of weight_kg, the pence of fee_pence).
func KeyUnitToken(p string) bool {
	if _, ok := keyUnits[p]; ok {
		return true
	}
	_, ok := minorUnitWords[p]
	return ok
}
