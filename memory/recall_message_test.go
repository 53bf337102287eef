package memory

import (
	"math"
	"testing"
)

// TestARecordIsReadWithItsMessage: the cosines with the query of the
// records of one message are raised to that of the sum of the message's
// vectors, each where that is higher; never lowered; a record alone in
// its message, one written as itself (no message) and one without a
// vector are left alone, and records of other messages are not summed.
func TestARecordIsReadWithItsMessage(t *testing.T) {
	q := []float32{1, 0, 0}
	unit := func(x, y, z float32) []float32 {
		n := float32(math.Sqrt(float64(x*x + y*y + z*z)))
		return []float32{x / n, y / n, z / n}
	}
	hit := func(id, msg string) Hit { return Hit{Record: Record{ID: id, Message: msg}} }
	hits := []Hit{
		hit("m1", "m1"),   // says little alone
		hit("m1#2", "m1"), // near the query: raises m1
		hit("m1#3", "m1"), // no vector
		hit("m2", "m2"),   // alone in its message
		hit("ep", ""),     // written as itself
		hit("m3", "m3"),   // near the query, alone: not summed with m1
		hit("m4", "m4"),   // two of one message, both far
		hit("m4#2", "m4"), //
		hit("m5", "m5"),   // near the query
		hit("m5#2", "m5"), // far: the sum lowers nothing of m5's
	}
	xs := [][]float32{unit(0.2, 0, 1), unit(0.9, 0.1, 0), nil, unit(0.1, 1, 0), unit(0.1, 0, 1), unit(1, 0, 0),
		unit(0.1, 1, 0), unit(0.1, 0, 1), unit(1, 0.1, 0), unit(0, 1, 0)}
	cos := make([]float64, len(hits))
	for i, x := range xs {
		cos[i] = math.NaN()
		if x != nil {
			cos[i] = cosine(q, x)
		}
	}
	before := append([]float64(nil), cos...)
	readWithItsMessage(q, hits, cos, xs)
	sum := func(a, b []float32) []float32 {
		out := make([]float32, len(a))
		for d := range a {
			out[d] = a[d] + b[d]
		}
		return out
	}
	if want := cosine(q, sum(xs[0], xs[1])); math.Abs(cos[0]-want) > 1e-9 || !(cos[0] > before[0]) {
		t.Errorf("m1: cosine %.3f (alone %.3f), want %.3f with m1#2", cos[0], before[0], want)
	}
	if cos[1] != max(before[1], cosine(q, sum(xs[0], xs[1]))) {
		t.Errorf("m1#2: cosine %.3f, was %.3f", cos[1], before[1])
	}
	if want := cosine(q, sum(xs[6], xs[7])); math.Abs(cos[6]-max(before[6], want)) > 1e-9 || math.Abs(cos[7]-max(before[7], want)) > 1e-9 {
		t.Errorf("m4: cosines %.3f %.3f, want the larger of each and %.3f", cos[6], cos[7], want)
	}
	if cos[8] != before[8] || cos[9] <= before[9] {
		t.Errorf("m5: cosines %.3f %.3f (alone %.3f %.3f): the near one kept, the far one raised", cos[8], cos[9], before[8], before[9])
	}
	for _, i := range []int{3, 4, 5} {
		if cos[i] != before[i] {
			t.Errorf("%s: cosine %.3f, was %.3f", hits[i].Record.ID, cos[i], before[i])
		}
	}
	if !math.IsNaN(cos[2]) {
		t.Errorf("m1#3: cosine %v, want none", cos[2])
	}
}
