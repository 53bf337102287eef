package check_test

import (
	"encoding/json"
	"github.com/toolstream/toolstream/internal/bench"
	"github.com/toolstream/toolstream/verifier/check"
	"github.com/toolstream/toolstream/verifier/evidence"
	"testing"
	"time"
)

func init() { check.DigestBenchFixture = bench.VerifierFixture }

// The fixture (≈85 KB of evidence, a 10 KB answer) is bench's, shared
// with `toolstream bench`.

// BenchmarkCheck is the cost of one answer as the verifier projection pays
// it: the evidence's indexes read back from the bytes it keeps, then every
// claim checked. BenchmarkDecodeEvidence, in the same run, is one JSON
// decode of that evidence.
func BenchmarkCheck(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	ev, answer := bench.VerifierFixture()
	size := 0
	stored := make([][]byte, len(ev))
	for i, e := range ev {
		size += len(e.Result)
		stored[i], _ = evidence.IndexEvidence(e).MarshalBinary()
	}
	c := check.NewChecker(check.CheckerConfig{})
	now := time.Date(2024, 5, 3, 10, 0, 0, 0, time.UTC)
	claims := len(check.SplitClaims(answer))
	b.SetBytes(int64(size + len(answer)))
	b.ResetTimer()
	for b.Loop() {
		idx := make([]*evidence.EvidenceIndex, len(stored))
		for k, data := range stored {
			x, err := evidence.UnmarshalEvidenceIndex(data, ev[k].Result)
			if err != nil {
				b.Fatal(err)
			}
			idx[k] = x
		}
		if _, err := c.CheckIndexed(answer, idx, now); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(claims)*float64(b.N)/b.Elapsed().Seconds(), "claims/s")
	b.ReportMetric(float64(claims), "claims/answer")
	b.ReportMetric(float64(size), "evidence-bytes")
}

// BenchmarkCheckCold is Check with the indexing of the evidence: what
// `toolstream verify` pays, having no index kept.
func BenchmarkCheckCold(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	ev, answer := bench.VerifierFixture()
	c := check.NewChecker(check.CheckerConfig{})
	now := time.Date(2024, 5, 3, 10, 0, 0, 0, time.UTC)
	for b.Loop() {
		c.Check(answer, ev, now)
	}
}

// BenchmarkIndexEvidence is the cost of indexing the evidence, paid once
// when each result arrives; index-bytes is what the projection keeps.
func BenchmarkIndexEvidence(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	ev, _ := bench.VerifierFixture()
	size, kept := 0, 0
	for _, e := range ev {
		size += len(e.Result)
		data, _ := evidence.IndexEvidence(e).MarshalBinary()
		kept += len(data)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, e := range ev {
			evidence.IndexEvidence(e)
		}
	}
	b.ReportMetric(float64(kept), "index-bytes")
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
		decodeEvidence(b, ev)
	}
}

func decodeEvidence(b *testing.B, ev []evidence.Evidence) {
	for _, e := range ev {
		var v any
		if err := json.Unmarshal(e.Result, &v); err != nil {
			b.Fatal(err)
		}
	}
}
