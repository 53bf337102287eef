package use

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKernelMatchesGo: the CPU's kernel (AVX where it has it) computes
// what the portable one does, bit for bit, for panels of every depth
// the network has and strides wider than the rows.
func TestKernelMatchesGo(t *testing.T) {
	if !haveAVX {
		t.Skip("no AVX here: gemm4x16 is gemm4x16Go")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range []int{1, 3, 256, 512, 1536} {
		xs, ys := k+5, 3*panelWidth
		x := make([]float32, 3*xs+k)
		w := make([]float32, k*panelWidth)
		b := make([]float32, panelWidth)
		for _, s := range [][]float32{x, w, b} {
			for i := range s {
				s[i] = float32(rng.NormFloat64())
			}
		}
		got := make([]float32, 3*ys+panelWidth+1)
		want := slices.Clone(got)
		gemm4x16(x, xs, w, k, got, ys, b)
		gemm4x16Go(x, xs, w, k, want, ys, b)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("k=%d: y[%d] = %v, portable %v", k, i, got[i], want[i])
			}
		}
		if got[len(got)-1] != 0 {
			t.Fatalf("k=%d: wrote past the last row's 16 columns", k)
		}
	}
}

// TestSplitIsTheSame: a dense map split across goroutines writes the
// same bits as on one, so the vectors do not depend on GOMAXPROCS.
func TestSplitIsTheSame(t *testing.T) {
	enc, err := New()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"I drive a Subaru.", "What vehicle do I own?", "We adopted two cats, Luna and Oliver, last spring."}
	ids := make([][]int, len(texts))
	for i, s := range texts {
		ids[i] = enc.Tokens(s)
	}
	one := enc.net.embed(new(scratch), ids, 1)
	for _, par := range []int{2, 3, 8} {
		got := enc.net.embed(new(scratch), ids, par)
		for i := range one {
			if !slices.Equal(one[i], got[i]) {
				t.Fatalf("par %d: text %d differs", par, i)
			}
		}
	}
	// and a reused scratch gives the same as a fresh one
	s := new(scratch)
	enc.net.embed(s, [][]int{enc.Tokens("a much longer text than the others, to leave the buffers full of its numbers")}, 2)
	again := enc.net.embed(s, ids, 2)
	for i := range one {
		if !slices.Equal(one[i], again[i]) {
			t.Fatalf("reused scratch: text %d differs", i)
		}
	}
}

// BenchmarkEmbedOne embeds one short query, as recall does per call.
func BenchmarkEmbedOne(b *testing.B) {
	enc, err := New()
	if err != nil {
		b.Fatal(err)
	}
	q := []string{"What did Caroline research for her new job?"}
	for b.Loop() {
		if _, err := enc.Embed(context.Background(), q); err != nil {
			b.Fatal(err)
		}
	}
}
