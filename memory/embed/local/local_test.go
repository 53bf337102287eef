package local

import (
	"context"
	"math"
	"testing"

	"github.com/toolstream/toolstream/memory/embed"
)

func cos(t *testing.T, w *Words, a, b string) float64 {
	t.Helper()
	vs, err := w.Embed(context.Background(), []string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	return embed.Cosine(vs[0], vs[1])
}

// TestParaphraseIsNearer: a question is nearer the sentence that answers
// it in other words than a sentence about something else.
func TestParaphraseIsNearer(t *testing.T) {
	w, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ q, near, far string }{
		{"what vehicle do I own?", "I drive a Subaru", "My sister lives in Lisbon"},
		{"which pet do we have?", "We adopted a beagle last weekend", "The quarterly tax report is due on Friday"},
		{"what instrument am I learning?", "I started taking cello lessons", "We booked flights to Kyoto"},
	} {
		n, f := cos(t, w, c.q, c.near), cos(t, w, c.q, c.far)
		t.Logf("%q: %.3f near, %.3f far", c.q, n, f)
		if n <= f {
			t.Errorf("%q: %q at %.3f is not nearer than %q at %.3f", c.q, c.near, n, c.far, f)
		}
	}
}

func TestVectorsAreUnitOrZeroAndDeterministic(t *testing.T) {
	w, err := New()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"I drive a Subaru", "", "我开斯巴鲁", "zzqxv", "Subarus"}
	a, _ := w.Embed(context.Background(), texts)
	b, _ := w.Embed(context.Background(), texts)
	for i, v := range a {
		if len(v) != w.Dim() {
			t.Fatalf("%q: %d dimensions", texts[i], len(v))
		}
		var n float64
		for j, x := range v {
			if x != b[i][j] {
				t.Fatalf("%q: not deterministic", texts[i])
			}
			n += float64(x) * float64(x)
		}
		want := 1.0
		if texts[i] == "" || texts[i] == "我开斯巴鲁" || texts[i] == "zzqxv" {
			want = 0
		}
		if math.Abs(n-want) > 1e-5 {
			t.Errorf("%q: squared norm %.6f, want %v", texts[i], n, want)
		}
	}
	if k, n := w.Known("Subarus and zzqxv"); k != 2 || n != 3 {
		t.Errorf("Known: %d of %d, want 2 of 3 (a plural found by its stem)", k, n)
	}
}

// TestMatchPrefersTheAnswer: Match scores the sentence that answers a
// question in other words over sentences about other things, stays in
// [0, 1], and is 1 for the question itself.
func TestMatchPrefersTheAnswer(t *testing.T) {
	w, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ q, near, far string }{
		{"What vehicle do I own?", "I drive a Subaru.", "My sister lives in Lisbon."},
		{"What musical instrument am I learning?", "I started taking cello lessons.", "The quarterly tax report is due on Friday."},
		{"What sport does my spouse do on weekends?", "My husband plays golf every Sunday.", "I bought a new laptop last week."},
	} {
		n, f := w.Match(c.q, c.near), w.Match(c.q, c.far)
		t.Logf("%q: %.3f near, %.3f far", c.q, n, f)
		if n <= f || n < 0 || n > 1 || f < 0 {
			t.Errorf("%q: %q scores %.3f, %q %.3f", c.q, c.near, n, c.far, f)
		}
		if s := w.Match(c.q, c.q); math.Abs(s-1) > 1e-9 {
			t.Errorf("%q against itself: %.3f, want 1", c.q, s)
		}
	}
	// Chinese by the word classes (zh_test.go): a class the query names and
	// the record holds is all it counts
	if s := w.Match("我开什么车", "我开斯巴鲁"); s != 1 {
		t.Errorf("Chinese: %.3f, want 1 (vehicle, the one class asked, is held)", s)
	}
	if s := w.Match("我开什么车", "我养了一只猫"); s != 0 {
		t.Errorf("Chinese: %.3f, want 0 (no class asked is held)", s)
	}
}
