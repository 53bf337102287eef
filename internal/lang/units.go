package lang

import (
	"fmt"
	"strings"
)

// Dimension is what a unit measures.
type Dimension uint8

// The dimensions, each with the base unit its factors convert to.
const (
	DimNone    Dimension = iota
	DimCount             // one of a thing
	DimMass              // grams
	DimLength            // metres
	DimTime              // seconds
	DimTemp              // degrees Celsius
	DimMoney             // an amount of one currency (never converted)
	DimPercent           // a fraction (1 is 100 %)
	DimVolume            // millilitres
	DimSpeed             // metres per second
	DimData              // bytes
	DimEnergy            // joules
	DimPower             // watts
)

// dimNames are the dimensions as the data files write them.
var dimNames = map[string]Dimension{
	"count": DimCount, "mass": DimMass, "length": DimLength, "time": DimTime, "temp": DimTemp,
	"money": DimMoney, "percent": DimPercent, "volume": DimVolume, "speed": DimSpeed, "data": DimData,
	"energy": DimEnergy, "power": DimPower,
}

// DimensionNamed returns the dimension a data file calls name.
func DimensionNamed(name string) (Dimension, bool) {
	d, ok := dimNames[name]
	return d, ok
}

// Unit is a unit of a "unit" section: a value v in it is v*Factor+Offset
// in its dimension's base unit.
type Unit struct {
	Name   string // its name in the data ("kg", "dollar")
	Dim    Dimension
	Factor float64
	Offset float64
	Codes  []string // money: the ISO codes the unit may mean ("¥" is CNY or JPY)
	Scale  bool     // a temperature of unknown scale ("degrees", 度)
}

// parseUnit reads "name = dimension factor [offset] [scale] [CODES...]".
func parseUnit(l Line) (*Unit, error) {
	ws := l.Words
	if len(ws) < 2 {
		return nil, l.errorf("want dimension factor")
	}
	dim, ok := dimNames[ws[0]]
	if !ok {
		return nil, l.errorf("unknown dimension %q", ws[0])
	}
	f, err := ParseValue(ws[1])
	if err != nil || f <= 0 {
		return nil, l.errorf("factor %q is not a positive number", ws[1])
	}
	u := &Unit{Name: l.Name, Dim: dim, Factor: f}
	for i, w := range ws[2:] {
		switch {
		case w == "scale":
			u.Scale = true
		case isCode(w):
			if dim != DimMoney {
				return nil, l.errorf("currency code %q on a unit of %s", w, ws[0])
			}
			u.Codes = append(u.Codes, w)
		default:
			v, err := ParseValue(w)
			if err != nil || i != 0 {
				return nil, l.errorf("%q is not an offset, scale or currency code", w)
			}
			u.Offset = v
		}
	}
	return u, nil
}

func isCode(w string) bool {
	return len(w) == 3 && strings.ToUpper(w) == w && w[0] >= 'A' && w[0] <= 'Z' && w[1] >= 'A' && w[2] >= 'A'
}

// Unit returns the unit named name; it panics on a name the data lacks
// (a name written in Go that is not in units.txt is a bug).
func (d *Data) Unit(name string) *Unit {
	u := d.units[name]
	if u == nil {
		panic(fmt.Sprintf("lang: no unit %q", name))
	}
	return u
}

// Units returns every unit, in file order.
func (d *Data) Units() []*Unit { return d.unitList }

// UnitWord returns the unit a word written after a number names ("kg",
// "公里", "degrees celsius").
func (d *Data) UnitWord(w string) (*Unit, bool) {
	u, ok := d.refs["unit words"][strings.ToLower(w)]
	return u, ok
}

// MinorUnit returns the factor of a key token naming money in a minor unit
// ("cents": 0.01), so that amount_cents: 1250 is read as 12.50.
func (d *Data) MinorUnit(token string) (float64, bool) {
	f, ok := d.numbers["minor units"][strings.ToLower(token)]
	return f, ok
}
