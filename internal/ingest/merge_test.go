package ingest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestDeltaMerger: which deltas join and where a run ends.
func TestDeltaMerger(t *testing.T) {
	args := func(resp, item, call, d string) Out {
		return Out{Response: resp, Item: item, CallID: call, Body: &events.ArgumentsDelta{Delta: d}}
	}
	text := func(item string, ix int, x string) Out {
		return Out{Response: "r", Item: item, Body: &events.TextDelta{Index: ix, Text: x}}
	}
	done := Out{Response: "r", Item: "a", CallID: "c1", Body: &events.ArgumentsDone{}}
	big := strings.Repeat("x", MergedDeltaMax-2)
	for _, tc := range []struct {
		name string
		in   [][]Out // the outs of each raw event
		want []string
	}{
		{"one call's deltas join, named by the first, timed by the last",
			[][]Out{{args("r", "a", "c1", `{"a"`)}, {args("r", "a", "c1", `:1`)}, {args("r", "a", "c1", `}`)}, {done}},
			[]string{`0.0@2 model.arguments_delta a c1 "{\"a\":1}"`, `3.0@3 model.arguments_done a c1 ""`}},
		{"another call's delta ends a run",
			[][]Out{{args("r", "a", "c1", `{`)}, {args("r", "b", "c2", `{`)}, {args("r", "a", "c1", `}`)}},
			[]string{`0.0@0 model.arguments_delta a c1 "{"`, `1.0@1 model.arguments_delta b c2 "{"`, `2.0@2 model.arguments_delta a c1 "}"`}},
		{"any other event ends a run",
			[][]Out{{args("r", "a", "c1", `{`), done, args("r", "a", "c1", `}`)}},
			[]string{`0.0@0 model.arguments_delta a c1 "{"`, `0.1@0 model.arguments_done a c1 ""`, `0.2@0 model.arguments_delta a c1 "}"`}},
		{"text joins text of its item and index only",
			[][]Out{{text("m", 0, "Hel")}, {text("m", 0, "lo")}, {text("m", 1, "!")}, {text("n", 1, "?")}, {args("r", "m", "", "{")}},
			[]string{`0.0@1 model.text_delta m  "Hello"`, `2.0@2 model.text_delta m  "!"`, `3.0@3 model.text_delta n  "?"`, `4.0@4 model.arguments_delta m  "{"`}},
		{"a run ends before MergedDeltaMax bytes",
			[][]Out{{args("r", "a", "c1", big)}, {args("r", "a", "c1", "12")}, {args("r", "a", "c1", "3")}},
			[]string{fmt.Sprintf(`0.0@1 model.arguments_delta a c1 %q`, big+"12"), `2.0@2 model.arguments_delta a c1 "3"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m DeltaMerger
			var got []string
			emit := func(p Placed) error {
				s, _ := deltaText(p.Body)
				got = append(got, fmt.Sprintf("%d.%d@%d %s %s %s %q", p.Pos, p.N, p.At, p.Body.Kind(), p.Item, p.CallID, s))
				return nil
			}
			for i, outs := range tc.in {
				if err := m.Add(int64(i), int64(i), outs, emit); err != nil {
					t.Fatal(err)
				}
			}
			if err := m.Flush(emit); err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
