package verifier_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/toolstream/toolstream/bench"
	"github.com/toolstream/toolstream/verifier"
)

// The fixture (≈100 KB of evidence, a 10 KB answer) is bench's, shared
// with `toolstream bench`.

func BenchmarkCheck(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	ev, answer := bench.VerifierFixture()
	size := 0
	for _, e := range ev {
		size += len(e.Result)
	}
	c := verifier.NewChecker(verifier.CheckerConfig{})
	now := time.Date(2024, 5, 3, 10, 0, 0, 0, time.UTC)
	claims := len(verifier.SplitClaims(answer))
	b.SetBytes(int64(size + len(answer)))
	b.ResetTimer()
	for b.Loop() {
		c.Check(answer, ev, now)
	}
	b.ReportMetric(float64(claims)*float64(b.N)/b.Elapsed().Seconds(), "claims/s")
	b.ReportMetric(float64(claims), "claims/answer")
	b.ReportMetric(float64(size), "evidence-bytes")
}

func BenchmarkDecodeEvidence(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	ev, _ := bench.VerifierFixture()
	size := 0
	for _, e := range ev {
		size += len(e.Result)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	for b.Loop() {
		for _, e := range ev {
			var v any
			if err := json.Unmarshal(e.Result, &v); err != nil {
				b.Fatal(err)
			}
		}
	}
}
