package lang

import (
	"slices"
	"testing"
)

func TestKeyParts(t *testing.T) {
	for key, want := range map[string][]string{
		"weight_kg":    {"weight", "kg"},
		"priceUSD":     {"price", "usd"},
		"unitPrice":    {"unit", "price"},
		"eta-minutes":  {"eta", "minutes"},
		"Revenue ($M)": {"revenue", "$", "m"},
		"change%":      {"change", "%"},
		"最高温度℃":        {"最高温度", "℃"},
		"sales30d":     {"sales30d"},
		"ＦＵＬＬ＿ＷＩＤＴＨ":   {"full", "width"},
		"订单no":         {"订单", "no"},
	} {
		if got := KeyParts(key); !slices.Equal(got, want) {
			t.Errorf("KeyParts(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestStemAndNormalize(t *testing.T) {
	for w, want := range map[string]string{
		"ships": "ship", "shipped": "ship", "shipping": "ship", "batteries": "battery", "boxes": "box",
		"daily": "day", "quickly": "quick", "status": "status", "bus": "bus", "is": "is", "planned": "plan",
	} {
		if got := Stem(w); got != want {
			t.Errorf("Stem(%q) = %q, want %q", w, got, want)
		}
	}
	if got := string(Normalize("Ａbc — Don’t　X")); got != "abc - don't x" {
		t.Errorf("Normalize = %q", got)
	}
	if len(Normalize("价格 ＄5")) != len([]rune("价格 ＄5")) {
		t.Error("Normalize changed the number of runes")
	}
	if !IsAllDigits("2024") || IsAllDigits("") || IsAllDigits("20a4") {
		t.Error("IsAllDigits")
	}
	if TruncStem("operating") != "operat" || TruncStem("价格价格价格价格") != "价格价格价格价格" {
		t.Error("TruncStem")
	}
}

// TestOrdinals: English ordinals as words, compounds and 4th; Chinese
// 第 before a numeral and 号 after one, read from numbers.txt.
func TestOrdinals(t *testing.T) {
	d := Default()
	for w, want := range map[string]float64{"first": 1, "Fourth": 4, "twenty-first": 21, "4th": 4, "2nd": 2, "23rd": 23, "twelfth": 12} {
		if v, ok := d.Ordinal(w); !ok || v != want {
			t.Errorf("Ordinal(%q) = %v, %v; want %v", w, v, ok, want)
		}
	}
	for _, w := range []string{"four", "4", "th", "fourths-x", "twenty-twelfth", "nd"} {
		if v, ok := d.Ordinal(w); ok {
			t.Errorf("Ordinal(%q) = %v, want none", w, v)
		}
	}
	for s, want := range map[string][2]float64{"第四周": {4, 2}, "第3批": {3, 2}, "第二十名": {20, 3}, "三号仓": {3, 2}, "12号楼": {12, 3}} {
		v, end, ok := d.ZhOrdinal([]rune(s), 0)
		if !ok || v != want[0] || float64(end) != want[1] {
			t.Errorf("ZhOrdinal(%q) = %v, %d, %v; want %v", s, v, end, ok, want)
		}
	}
	for _, s := range []string{"四周", "第周", "号", "三个"} {
		if v, _, ok := d.ZhOrdinal([]rune(s), 0); ok {
			t.Errorf("ZhOrdinal(%q) = %v, want none", s, v)
		}
	}
}

// TestSegmentTakesTheLongestWord: a lexicon's words are read out of CJK
// runs by forward longest match, text between them stepped over, and a
// word never runs across a non-CJK character.
func TestSegmentTakesTheLongestWord(t *testing.T) {
	l := NewLexicon([]string{"火锅", "普洱", "普洱茶", "奶茶", "茶", ""})
	for _, c := range []struct {
		text string
		want []Match
	}{
		{"周五和同事去吃火锅。", []Match{{"火锅", 7}}},
		{"下午泡了一壶普洱茶", []Match{{"普洱茶", 6}}},
		{"普洱和奶茶", []Match{{"普洱", 0}, {"奶茶", 3}}},
		{"奶 茶", []Match{{"茶", 2}}},
		{"milk tea", nil},
		{"", nil},
	} {
		if got := l.Segment([]rune(c.text)); !slices.Equal(got, c.want) {
			t.Errorf("Segment(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
