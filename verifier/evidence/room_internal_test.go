package evidence

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// leafDump is what an index's leaves and numbers say, for comparing two
// indexes built apart.
func leafDump(ix *Index) string {
	var b strings.Builder
	for i := range ix.Leaves {
		lf := &ix.Leaves[i]
		fmt.Fprintf(&b, "%d %s|%s|%s|%v|%v|%d|%d|%d|%d|%d|%d|%v|%v|%v\n", i, lf.Ptr(), lf.Raw(), lf.Str(), lf.Num, lf.Hi,
			lf.Day, lf.Minute, lf.Ev, lf.Node, lf.Src, lf.Kind, lf.Own(), lf.Ctx(), lf.Cat())
	}
	fmt.Fprintf(&b, "nums %v nodes %d ev %d colls %d\n", ix.Nums, len(ix.Nodes), len(ix.Ev), len(ix.Colls))
	return b.String()
}

// BuildIndex builds its parts one after another in one room of leaves and
// joins them in place; the index is the one Join makes of the same parts
// built apart (their leaves copied), whatever the parts are: results that
// are not JSON, failed calls, repeated calls, a result of no leaves, a
// result whose numbers in text outgrow the room it was given (its leaves
// move out, and the parts after it are copied), days fixed at the
// answer's time — and again with the room of the index released before.
// It fails if a part's leaves were read in place where another's had
// been copied over them.
func TestBuildIndexInOneRoomIsJoin(t *testing.T) {
	now := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	var many []string
	for i := range 60 {
		many = append(many, fmt.Sprint(i*7+1))
	}
	crowded, _ := json.Marshal(map[string]string{"t": strings.Join(many, " ")})
	ev := func(id string, v int, result string) Evidence {
		return Evidence{CallID: id, Name: "get_" + id, Version: v, Result: json.RawMessage(result)}
	}
	items := `{"items":[{"name":"Alpha","stock":12,"eta":"Thursday","note":"ships in 3-5 days"},{"name":"Beta","stock":0,"eta":"2024-05-09"}]}`
	sets := map[string][]Evidence{
		"plain":    {ev("a", 1, items), ev("b", 1, `{"orders":[{"id":"ORD-1","total":5.5,"status":"shipped"}]}`)},
		"bad":      {ev("a", 1, items), ev("x", 1, `{not json`), ev("b", 1, `[1,2,{"day":"Mon"}]`)},
		"failed":   {ev("a", 1, items), {CallID: "f", Name: "get_f", Version: 1, Failed: &Failure{Error: "timeout", Message: "no"}}, ev("b", 1, `{"v":3}`)},
		"repeated": {ev("a", 1, `{"v":1}`), ev("b", 1, items), ev("a", 2, `{"v":2,"w":"due on June 3"}`)},
		"empty":    {ev("e", 1, `{}`), ev("a", 1, items), ev("z", 1, `[]`)},
		"outgrown": {ev("c", 1, string(crowded)), ev("a", 1, items), ev("b", 1, `{"v":3}`)},
		"last":     {ev("a", 1, items), ev("c", 1, string(crowded))},
	}
	for name, evs := range sets {
		var parts []*Part
		for _, e := range DedupeEvidence(evs) {
			if e.Failed == nil {
				parts = append(parts, IndexResult(e, LeavesMax))
			}
		}
		apart, err := Join(parts, now)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := leafDump(apart)
		for round := range 3 {
			ix := BuildIndex(evs, now)
			if got := leafDump(ix); got != want {
				t.Fatalf("%s, round %d: BuildIndex's leaves\n%s\nwant Join's\n%s", name, round, got, want)
			}
			ix.Release()
		}
	}
}
