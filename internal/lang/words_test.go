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
