package memory

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestTokenize(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"I love spicy food", "love spici food"},
		{"Loves, loved, loving!", "love love love"},
		{"The dishes were washed", "dish wash"},
		{"We adopted a cat; the adoption", "adopt cat adopt"},
		{"recommendations recommended", "recommend recommend"},
		{"running swimming falling dressed", "run swim fall dress"},
		{"Allergies to peanuts", "allergi peanut"}, {"allergy allergic", "allergi allerg"},
		{"I can't eat it; don't worry", "eat worri"},
		{"Mom's birthday is on 2024-05-03", "mom birthdai 2024 5 3"},
		{"It cost $1,000.50 in 007", "cost 1000.50 7"},
		{"3pm on the 2nd", "3 pm 2"},
		{"我喜欢吃辣", "喜 欢 吃 辣 我喜 喜欢 欢吃 吃辣"},
		{"推荐一道菜", "推 荐 道 菜 推荐 荐一 一道 道菜"},
		{"Café crème brûlée", "café crème brûlée"}, // only ASCII words are stemmed
		{"東京タワー", "東 京 タ ワ ー 東京 京タ タワ ワー"},
		{"", ""},
		{"the of and", ""},
	} {
		if got := strings.Join(tokenize(c.text), " "); got != c.want {
			t.Errorf("tokenize(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	long := strings.Repeat("a", 200)
	if got := tokenize(long); len(got) != 1 || len(got[0]) != termMax {
		t.Errorf("long word: %q", got)
	}
}

func TestQueryTermsExpand(t *testing.T) {
	terms := func(q string) (out []string) {
		for _, t := range queryTerms(q) {
			out = append(out, t.term)
		}
		return out
	}
	for _, c := range []struct{ q, must string }{
		{"recommend a dish", "food"},
		{"where do I live", "locat"},
		{"推荐一道菜", "food"},
		{"辣的菜", "spici"},
		{"what should I drink", "drink"},
	} {
		if !slices.Contains(terms(c.q), c.must) {
			t.Errorf("%q: terms %v lack %q", c.q, terms(c.q), c.must)
		}
	}
	if got := queryTerms("lake lake LAKE"); len(got) != 1 || got[0].w != 1 {
		t.Errorf("duplicates: %+v", got)
	}
}

func TestPostingRoundTrip(t *testing.T) {
	for _, p := range []posting{
		{status: StatusActive, version: 1, tf: 3, dl: 12, validFrom: 1, validUntil: 0, confidence: 0.7, useCount: 1},
		{status: StatusExpired, version: 1 << 20, tf: 1, dl: 1 << 16, validFrom: math.MaxInt64, validUntil: -5,
			constraint: true, permission: true, confidence: 0.123456789, observedAt: 1 << 62, useCount: 300},
	} {
		got, ok := decodePosting(encodePosting(p))
		if !ok || got != p {
			t.Errorf("%+v → %+v %v", p, got, ok)
		}
	}
	good := encodePosting(posting{status: StatusActive, version: 1, tf: 1, dl: 1, confidence: 1, useCount: 1})
	for _, b := range [][]byte{nil, {99}, {1}, {1, 1, 1}, {0, 0, 1, 1, 1, 0, 0}, good[:len(good)-3]} {
		if _, ok := decodePosting(b); ok {
			t.Errorf("%v decoded", b)
		}
	}
}

func TestKeyEscaping(t *testing.T) {
	for _, s := range []string{"u1", "a/b", "100%", "a%2Fb", "x\x00y", "名前", ""} {
		if got := unesc(esc(s)); got != s {
			t.Errorf("unesc(esc(%q)) = %q", s, got)
		}
		if strings.Contains(esc(s), "/") {
			t.Errorf("esc(%q) = %q has a separator", s, esc(s))
		}
	}
	if esc("a/b") == esc("a%2Fb") {
		t.Error("distinct ids share a key component")
	}
	// one user's prefix never covers another user's keys
	a, b := keysFor("acme", "u"), keysFor("acme", "u/x")
	if strings.HasPrefix(b.prefix, a.prefix) {
		t.Errorf("%q covers %q", a.prefix, b.prefix)
	}
}

func TestSortableFloat(t *testing.T) {
	fs := []float64{math.Inf(-1), -1e9, -2.5, -0.0, 0, 1e-9, 3, 459.5, math.Inf(1)}
	for i := 1; i < len(fs); i++ {
		if sortableFloat(fs[i-1]) > sortableFloat(fs[i]) {
			t.Errorf("%v sorts after %v", fs[i-1], fs[i])
		}
	}
	for _, f := range fs {
		if got := unsortableFloat(sortableFloat(f)); got != f {
			t.Errorf("%v → %v", f, got)
		}
	}
}

func TestBM25(t *testing.T) {
	// rarer terms weigh more; more occurrences score more, with saturation
	if idf(1, 100) <= idf(50, 100) || idf(100, 100) <= 0 {
		t.Error("idf")
	}
	w := idf(5, 100)
	if !(bm25(1, 10, w, 10) < bm25(2, 10, w, 10) && bm25(2, 10, w, 10) < 2*bm25(1, 10, w, 10)) {
		t.Error("tf saturation")
	}
	if bm25(1, 5, w, 10) <= bm25(1, 50, w, 10) {
		t.Error("length normalisation")
	}
}

func TestEstimateTokens(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"The lake was cold.", 5},   // the lake was cold + "."
		{"internationalization", 5}, // 20 bytes: a token per four begun
		{"湖水很冷，但是风景很好。", 12},                      // a token per CJK character and per mark
		{"I can't eat spicy food these days", 10}, // "can't" is one word of 5 bytes: 2
		{"3.5 km", 4},
	} {
		if got := EstimateTokens(c.text); got != c.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", c.text, got, c.want)
		}
	}
}
