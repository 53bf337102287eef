package memory

import (
	"math"
	"testing"
	"time"
)

// TestATurnIsReadWithTheOneBefore: the cosines with the query of two
// records said one after the other (two sources, within ctxGap) are
// raised to that of the sum of their vectors, each where that is
// higher; never lowered; not by a record of its own source, nor across
// a pause, nor without vectors.
func TestATurnIsReadWithTheOneBefore(t *testing.T) {
	at := func(d time.Duration) int64 { return time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC).Add(d).UnixNano() }
	hit := func(id, msg string, when time.Duration) Hit {
		return Hit{Record: Record{ID: id, Message: msg, ObservedAt: at(when)}}
	}
	q := []float32{1, 0, 0}
	unit := func(x, y, z float32) []float32 {
		n := float32(math.Sqrt(float64(x*x + y*y + z*z)))
		return []float32{x / n, y / n, z / n}
	}
	hits := []Hit{
		hit("question", "m1", 0),                    // near the query
		hit("answer", "m2", 30*time.Second),         // says little alone
		hit("same", "m2", 30*time.Second),           // the answer's own message: not read with it
		hit("later", "m3", time.Hour),               // after a pause
		hit("novec", "m4", time.Hour+time.Second),   // no vector: unchanged
		hit("after", "m5", time.Hour+2*time.Second), // the one before has no vector
		hit("said", "m6", 2*time.Hour),              // says little alone
		hit("reply", "m7", 2*time.Hour+time.Second), // near the query: raises the one before
	}
	xs := [][]float32{unit(0.9, 0.1, 0), unit(0.2, 0, 1), unit(0.2, 1, 0), unit(0.1, 0, 1), nil, unit(0.1, 1, 0),
		unit(0.2, 0, 1), unit(0.9, 0, 0.1)}
	cos := make([]float64, len(hits))
	for i, x := range xs {
		cos[i] = math.NaN()
		if x != nil {
			cos[i] = cosine(q, x)
		}
	}
	before := append([]float64(nil), cos...)
	readWithTheTurnBefore(q, hits, cos, xs)
	sum := make([]float32, 3)
	for d := range sum {
		sum[d] = xs[0][d] + xs[1][d]
	}
	if want := cosine(q, sum); math.Abs(cos[1]-want) > 1e-9 || !(cos[1] > before[1]) {
		t.Errorf("answer: cosine %.3f (alone %.3f), want %.3f with the question", cos[1], before[1], want)
	}
	if want := cosine(q, sum); before[0] > want && cos[0] != before[0] {
		t.Errorf("question: cosine %.3f, was %.3f above the pair's %.3f", cos[0], before[0], want)
	}
	for d := range sum {
		sum[d] = xs[6][d] + xs[7][d]
	}
	if want := cosine(q, sum); math.Abs(cos[6]-want) > 1e-9 || !(cos[6] > before[6]) || cos[7] != before[7] {
		t.Errorf("said, reply: cosines %.3f, %.3f (alone %.3f, %.3f), want %.3f and as before", cos[6], cos[7], before[6], before[7], want)
	}
	for _, i := range []int{2, 3, 5} {
		if cos[i] != before[i] {
			t.Errorf("%s: cosine %.3f, was %.3f", hits[i].Record.ID, cos[i], before[i])
		}
	}
	if !math.IsNaN(cos[4]) {
		t.Errorf("novec: cosine %v, want none", cos[4])
	}
}
