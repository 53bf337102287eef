package verifier

import (
	"testing"

	"github.com/toolstream/toolstream/verifier/evidence"
)

// The statistics of a summary sit at the pointer of the array they
// describe, nested or escaped; a summary that is not JSON or a field whose
// statistics are not all numbers gives none.
func TestSummaryStats(t *testing.T) {
	got := summaryStats(`{"page":1,"data":{"a/b":{"count":600,"fields":["amount"],"stats":{"amount":{"n":600,"min":20,"max":912,"mean":45.2,"p50":44},"bad":{"n":3,"min":"x","max":1,"mean":1}},"sample":[],"ref":"r"}},"list":[{"rows":{"count":20,"stats":{"v":{"n":20,"min":-1,"max":1.5,"mean":0}}}}]}`)
	want := map[string]evidence.FieldStats{
		"/data/a~1b amount": {Array: "/data/a~1b", Field: "amount", N: 600, Min: 20, Max: 912, Mean: 45.2},
		"/list/0/rows v":    {Array: "/list/0/rows", Field: "v", N: 20, Min: -1, Max: 1.5, Mean: 0},
	}
	if len(got) != len(want) {
		t.Fatalf("stats %+v", got)
	}
	for _, st := range got {
		if w, ok := want[st.Array+" "+st.Field]; !ok || w != st {
			t.Errorf("stats %+v, want %+v", st, w)
		}
	}
	for _, bad := range []string{``, `{"bytes":90000,"truncated":true,"ref":"r"}`, `{"count":`, `[1,2`} {
		if got := summaryStats(bad); len(got) != 0 {
			t.Errorf("%q: %+v", bad, got)
		}
	}
}
