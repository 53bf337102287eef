package check

import (
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
	"math"
	"testing"
)

func TestScanNumbers(t *testing.T) {
	tests := []struct {
		text   string
		v, hi  float64
		unit   string
		approx bool
	}{
		{"It costs $24.50", 24.5, 24.5, "USD", false},
		{"weighs 2.3 kg", 2.3, 2.3, "kg", false},
		{"1,234,567 units", 1234567, 1234567, "count", false},
		{"revenue of $4.2 billion", 4.2e9, 4.2e9, "USD", false},
		{"3-5 business days", 3, 5, "d", false},
		{"between 3 and 5 days", 3, 5, "d", false},
		{"$4.3–4.5 billion", 4.3e9, 4.5e9, "USD", false},
		{"12.5%", 12.5, 12.5, "%", false},
		{"a 14-day trial", 14, 14, "d", false},
		{"68°F", 68, 68, "F", false},
		{"库存 12 件", 12, 12, "count", false},
		{"售价 199 元", 199, 199, "CNY", false},
		{"１２件", 12, 12, "count", false},
		{"1.2 万件", 12000, 12000, "count", false},
		{"2350 亿元", 2.35e11, 2.35e11, "CNY", false},
		{"还剩两件", 2, 2, "count", false},
		{"三天", 3, 3, "d", false},
		{"二十五度", 25, 25, "deg", false},
		{"百分之二十", 20, 20, "%", false},
		{"打八折", 80, 80, "%", false},
		{"8.5折", 85, 85, "%", false},
		{"3到5天", 3, 5, "d", false},
		{"零下3度", -3, -3, "deg", false},
		{"two days", 2, 2, "d", false},
		{"1.5k followers", 1500, 1500, "", false},
	}
	for _, tt := range tests {
		ms := evidence.ScanNumbers(lang.Normalize(tt.text), nil)
		if len(ms) != 1 {
			t.Errorf("scanNumbers(%q) found %d numbers: %+v", tt.text, len(ms), ms)
			continue
		}
		m := ms[0]
		name := ""
		if m.Unit != nil {
			name = m.Unit.Name
		}
		if math.Abs(m.V-tt.v) > 1e-6*math.Max(1, tt.v) || math.Abs(m.Hi-tt.hi) > 1e-6*math.Max(1, tt.hi) || name != tt.unit {
			t.Errorf("scanNumbers(%q) = %v–%v %q; want %v–%v %q", tt.text, m.V, m.Hi, name, tt.v, tt.hi, tt.unit)
		}
	}
}

func TestScanNumbersSkips(t *testing.T) {
	for _, text := range []string{"order ORD-88231", "SKU A12", "the 1st item", "一定送到", "一共", "第3名", "一箱牛奶", "十分满意"} {
		if ms := evidence.ScanNumbers(lang.Normalize(text), nil); len(ms) != 0 {
			t.Errorf("scanNumbers(%q) = %+v, want none", text, ms)
		}
	}
}

func TestTolerance(t *testing.T) {
	c := NewChecker(CheckerConfig{})
	tests := []struct {
		text  string
		value float64 // an evidence value
		want  bool
	}{
		{"20°C", 19.6, true},       // rounding to the digit written
		{"about 20", 19.6, true},   // hedged
		{"about 20", 18.5, true},   // within the last digit's rounding, at most 10%
		{"about 20", 17, false},    // too far
		{"$5", 4.5, false},         // prices are written exactly
		{"about $5", 4.9, true},    //
		{"12.5%", 12.47, true},     // rounding
		{"2 万元", 18600, false},     // a magnitude does not round 7%
		{"约 86 折", 85.7, true},     // a point either way
		{"about 13%", 11.5, false}, // not 5% of 13
		{"3.2 billion", 3.24e9, true},
		{"3.2 billion", 3.3e9, false},
	}
	for _, tt := range tests {
		r := lang.Normalize(tt.text)
		ms := evidence.ScanNumbers(r, nil)
		if len(ms) != 1 {
			t.Fatalf("%q: %d numbers", tt.text, len(ms))
		}
		m := ms[0]
		for _, w := range evidence.ClaimWords(r) {
			if w.Cues()&evidence.CueApprox != 0 {
				m.Approx = true
			}
		}
		tol := c.tolerance(&m, m.V)
		if got := math.Abs(m.V-tt.value) <= tol; got != tt.want {
			t.Errorf("%q vs %v: within tolerance %v = %v, want %v", tt.text, tt.value, tol, got, tt.want)
		}
	}
}

func TestOneUnitArticle(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want float64
		n    int
	}{
		{"the delay is under an hour", 1, 1},
		{"it takes an hour and a half", 90, 1},
		{"$20 an hour", 20, 1},
	} {
		ms := evidence.ScanNumbers(lang.Normalize(tc.s), nil)
		if len(ms) != tc.n || ms[0].V != tc.want {
			t.Errorf("%q: got %+v", tc.s, ms)
		}
	}
}
