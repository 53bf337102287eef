package evidence

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/lang"
)

// sharedFormValues are values that read differently in the readers a
// string value's one normalised form serves: separators, spaces of every
// kind, camel case, the key parts '%' and '$', digits, ideographs, category
// and hedge words.
var sharedFormValues = []string{
	"", " ", "in_transit", "In-Transit", "in  transit", " in transit ", "NOT_READY", "not ready", "未就绪",
	"多云转小雨", "多云-转 小雨", "Light rain", "已发货", "estimated", "ETA", "etaDate", "expectedDelivery",
	"Est. 3-5 days", "forecast_high", "预计 3 天", "SKU-0001", "Widget 12", "ORD-10003", "2024-05-04",
	"C++", "S24+ ", "price$", "50%off", "$M", "12%", "a\u3000b", "a\u00a0b", "x\tdelivered", "\xffbad",
	"Delivered", "CANCELLED", "out_of_stock", "Out of stock", "outOfStock", "有货", "无货", "3.5", "1,200",
	"It's shipped", "projected_revenue", "ExpectedAt2024", "24/7", "—in transit—",
}

// sharedFormAlphabet makes random values of the same pieces.
var sharedFormAlphabet = []string{
	"a", "B", "z", "Q", "0", "7", "_", "-", " ", "  ", "\u3000", "\t", "%", "$", "+", ".", ",", "'",
	"in", "transit", "shipped", "est", "ETA", "expected", "Forecast", "not", "ready", "delivered",
	"多云", "转", "小雨", "预计", "已", "发货", "件", "Widget", "SKU", "ing", "ies", "ed",
}

func sharedFormCorpus() []string {
	r := rand.New(rand.NewPCG(1, 2))
	out := append([]string(nil), sharedFormValues...)
	for range 3000 {
		var b strings.Builder
		for range 1 + r.IntN(8) {
			b.WriteString(sharedFormAlphabet[r.IntN(len(sharedFormAlphabet))])
		}
		out = append(out, b.String())
	}
	return out
}

// categoriesByWhole is CategoriesOf as it was: the words of the value's
// form with '_' and '-' as spaces and spaces collapsed.
func categoriesByWhole(s string) []CatValue {
	if len(s) > 60 || s == "" {
		return nil
	}
	s = strings.Join(strings.Fields(strings.Map(func(c rune) rune {
		if c == '_' || c == '-' {
			return ' '
		}
		return c
	}, s)), " ")
	if cs, ok := wholeCategories(s); ok {
		return cs
	}
	return catsOfWords(ClaimWords([]rune(s)))
}

// What a string value's one normalised form gives each reader is what
// each reader worked out of the value by itself: its categories, hedge,
// tokens and value words. It fails if categoriesOf read words across a
// separator, or hedgeValue split a value otherwise than lang.KeyParts.
func TestOneNormalisedFormReadsAsEachReader(t *testing.T) {
	w := Walker{Ix: NewIndex(0), Now: time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)}
	for _, s := range sharedFormCorpus() {
		si := w.strInfo(s)
		norm := string(lang.Normalize(s))
		if si.norm != norm {
			t.Fatalf("%q: norm %q, want %q", s, si.norm, norm)
		}
		if got, want := si.cat, categoriesByWhole(norm); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: categories %v, want %v", s, got, want)
		}
		if got, want := CategoriesOf(norm), categoriesByWhole(norm); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: CategoriesOf %v, want %v", s, got, want)
		}
		if got, want := w.hedgeValue(s), hedgeWords(s); got != want {
			t.Errorf("%q: hedge %v, want %v", s, got, want)
		}
		var toks []string
		for _, tk := range si.tokensOf() {
			toks = append(toks, tk.S)
		}
		if want := tokenStrings(lang.Normalize(s)); len(toks)+len(want) > 0 && !reflect.DeepEqual(toks, want) {
			t.Errorf("%q: tokens %q, want %q", s, toks, want)
		}
		if got, want := valueWordsFrom(si.runes, si.tokensOf(), si, nil), valueWordsOf(norm); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: value words %v, want %v", s, got, want)
		}
	}
	// The corpus must reach what it is about.
	hedged, catted := 0, 0
	for _, s := range sharedFormCorpus() {
		if hedgeWords(s) {
			hedged++
		}
		if len(CategoriesOf(string(lang.Normalize(s)))) > 0 {
			catted++
		}
	}
	if hedged < 50 || catted < 50 {
		t.Fatalf("corpus too thin: %d hedged, %d with categories", hedged, catted)
	}
}
