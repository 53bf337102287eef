package check

import (
	"slices"
	"testing"
)

func claimTexts(cs []Claim) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Text
	}
	return out
}

func TestSplitClaims(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		want   []string
	}{
		{"sentences", "Item A is in stock. Item B is not! Is C available?",
			[]string{"Item A is in stock.", "Item B is not!", "Is C available?"}},
		{"and clauses", "Item A costs $5 and has 12 units in stock.",
			[]string{"Item A costs $5", "has 12 units in stock."}},
		{"but clauses", "A is in stock, but B is sold out.",
			[]string{"A is in stock", "B is sold out."}},
		{"noun conjunction stays", "A and B are both in stock.",
			[]string{"A and B are both in stock."}},
		{"between range stays", "Delivery takes between 3 and 5 days.",
			[]string{"Delivery takes between 3 and 5 days."}},
		{"comma clauses", "The keyboard costs $89, the mouse costs $24.50, and the hub costs $39.99.",
			[]string{"The keyboard costs $89", "the mouse costs $24.50", "the hub costs $39.99."}},
		{"comma list stays", "A, B, and C are in stock.",
			[]string{"A, B, and C are in stock."}},
		{"decimals", "It weighs 3.5 kg. The fee is $2.50.",
			[]string{"It weighs 3.5 kg.", "The fee is $2.50."}},
		{"thousands", "Revenue was $1,234,567 in total.",
			[]string{"Revenue was $1,234,567 in total."}},
		{"abbreviations", "Dr. Smith ships items, e.g. chairs and desks. They arrive in approx. 3 days.",
			[]string{"Dr. Smith ships items, e.g. chairs and desks.", "They arrive in approx. 3 days."}},
		{"U.S.", "It ships within the U.S. only.",
			[]string{"It ships within the U.S. only."}},
		{"lower-case sentence start", "It gets 91.5 on test. w/o pretraining it drops to 88.7.",
			[]string{"It gets 91.5 on test.", "w/o pretraining it drops to 88.7."}},
		{"unit abbreviation ends a sentence", "BM25 answers in 12 ms. Ours is slower.",
			[]string{"BM25 answers in 12 ms.", "Ours is slower."}},
		{"title abbreviation", "Ms. Lee ordered it.",
			[]string{"Ms. Lee ordered it."}},
		{"bullets", "Stock levels:\n- Item A: 12 units\n- Item B: 30 units\n* Item C: none",
			[]string{"Stock levels", "Item A: 12 units", "Item B: 30 units", "Item C: none"}},
		{"numbered list", "1. Order placed\n2) Payment received\n3. Shipped on May 2",
			[]string{"Order placed", "Payment received", "Shipped on May 2"}},
		{"decimal at line start", "3.5 kg is the weight.",
			[]string{"3.5 kg is the weight."}},
		{"chinese sentences", "商品 A 可用库存 12 件。明天一定送到！还有问题吗？",
			[]string{"商品 A 可用库存 12 件。", "明天一定送到！", "还有问题吗？"}},
		{"chinese comma", "您好，商品 A 有货，售价 199 元。",
			[]string{"您好", "商品 A 有货", "售价 199 元。"}},
		{"chinese semicolon", "A 有 12 件；B 有 30 件。",
			[]string{"A 有 12 件", "B 有 30 件。"}},
		{"chinese but", "商品 A 有货但是商品 B 缺货。",
			[]string{"商品 A 有货", "商品 B 缺货。"}},
		{"chinese moreover", "订单已发货而且明天送达。",
			[]string{"订单已发货", "明天送达。"}},
		{"chinese and clauses", "商品 A 有 12 件和商品 B 有 30 件。",
			[]string{"商品 A 有 12 件", "商品 B 有 30 件。"}},
		{"chinese and nouns stay", "商品 A 和商品 B 都有货。",
			[]string{"商品 A 和商品 B 都有货。"}},
		{"chinese and between numbers stays", "气温在 3 和 5 度之间。",
			[]string{"气温在 3 和 5 度之间。"}},
		{"chinese bingqie", "订单已支付并且已发货。",
			[]string{"订单已支付", "已发货。"}},
		{"full-width digits", "商品Ａ库存１２件。重量３.５公斤。",
			[]string{"商品Ａ库存１２件。", "重量３.５公斤。"}},
		{"chinese list", "1、商品 A 有货\n2、商品 B 缺货",
			[]string{"商品 A 有货", "商品 B 缺货"}},
		{"mixed", "Order ORD-1 已发货. It arrives tomorrow.",
			[]string{"Order ORD-1 已发货.", "It arrives tomorrow."}},
		{"empty", "  \n\n ", nil},
		{"punctuation only", "---\n***", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SplitClaims(tt.answer)
			if !slices.Equal(claimTexts(got), tt.want) {
				t.Fatalf("SplitClaims(%q)\n got %q\nwant %q", tt.answer, claimTexts(got), tt.want)
			}
			checkOffsets(t, tt.answer, got)
		})
	}
}

// checkOffsets checks that every claim is exactly its rune range of the
// answer and that claims are in order without overlap.
func checkOffsets(t *testing.T, answer string, cs []Claim) {
	t.Helper()
	r := []rune(answer)
	end := 0
	for _, c := range cs {
		if c.Start < end || c.End > len(r) || c.Start >= c.End {
			t.Fatalf("claim %q has bad range [%d,%d)", c.Text, c.Start, c.End)
		}
		if string(r[c.Start:c.End]) != c.Text {
			t.Fatalf("claim %q is not runes [%d,%d) = %q", c.Text, c.Start, c.End, string(r[c.Start:c.End]))
		}
		end = c.End
	}
}

func FuzzSplitClaims(f *testing.F) {
	for _, s := range []string{"A has 12. B has 30.", "商品 A 可用库存 12 件，明天一定送到。", "1. x\n- y, and z", "e.g. 3.5 kg", "A has \xff12. B\xe5\x95 has 30."} {
		f.Add(s)
	}
	// Invalid UTF-8 too: a claim's text is its runes as string(runes)
	// writes them (U+FFFD for a bad byte), not the answer's bytes.
	f.Fuzz(func(t *testing.T, s string) {
		checkOffsets(t, s, SplitClaims(s))
	})
}
