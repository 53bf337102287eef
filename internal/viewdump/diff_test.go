package viewdump_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/viewdump"
	"github.com/toolstream/toolstream/projector"
)

// slicePager pages through sorted "key=value" rows, pageRows a page.
func slicePager(rows []string, pageRows int) viewdump.Pager {
	return func(after []byte) ([][2][]byte, bool, error) {
		i := 0
		if after != nil {
			i = slices.IndexFunc(rows, func(r string) bool { k, _, _ := strings.Cut(r, "="); return k > string(after) })
			if i < 0 {
				i = len(rows)
			}
		}
		var out [][2][]byte
		for ; i < len(rows) && len(out) < pageRows; i++ {
			k, v, _ := strings.Cut(rows[i], "=")
			out = append(out, [2][]byte{[]byte(k), []byte(v)})
		}
		return out, i == len(rows), nil
	}
}

func changes(t *testing.T, a, b viewdump.Pager) (string, viewdump.DiffCount) {
	t.Helper()
	var got []string
	n, err := viewdump.Diff(a, b, func(c viewdump.Change) error {
		got = append(got, fmt.Sprintf("%s:%s:%s>%s", []string{"-", "+", "~"}[c.Kind], c.Key, c.A, c.B))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(got, " "), n
}

// TestDiff: every key that differs is reported once, in key order, with
// both values, whatever the page sizes; equal keys are only counted.
func TestDiff(t *testing.T) {
	for _, tc := range []struct {
		a, b []string
		want string
		same int
	}{
		{nil, nil, "", 0},
		{[]string{"a=1"}, nil, "-:a:1>", 0},
		{nil, []string{"a=1"}, "+:a:>1", 0},
		{[]string{"a=1", "b=2"}, []string{"a=1", "b=2"}, "", 2},
		{[]string{"a=1", "b=2", "d=4"}, []string{"a=1", "b=3", "c=3", "e="}, "~:b:2>3 +:c:>3 -:d:4> +:e:>", 1},
		{[]string{"k=", "m=x"}, []string{"k=", "m="}, "~:m:x>", 1},
	} {
		for _, pages := range [][2]int{{1, 1}, {1, 3}, {2, 1}, {100, 100}} {
			got, n := changes(t, slicePager(tc.a, pages[0]), slicePager(tc.b, pages[1]))
			if got != tc.want || n.Same != tc.same || n.Differ() != len(strings.Fields(tc.want)) {
				t.Errorf("%v vs %v, pages %v: %q %+v, want %q and %d equal", tc.a, tc.b, pages, got, n, tc.want, tc.same)
			}
		}
	}
	stop := errors.New("stop")
	n, err := viewdump.Diff(slicePager([]string{"a=1", "b=1"}, 1), slicePager(nil, 1), func(viewdump.Change) error { return stop })
	if !errors.Is(err, stop) || n.OnlyA != 1 {
		t.Errorf("an error of fn: %v %+v", err, n)
	}
}

// TestDiffViews compares two real views (Pebble, through ViewPager): one
// item's text changed, one item only in each.
func TestDiffViews(t *testing.T) {
	ctx := context.Background()
	view := func(name string, items map[string]string) *projector.View {
		l, err := projector.NewLocal(filepath.Join(t.TempDir(), name), texts{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		var seq uint64
		for _, item := range slices.Sorted(func(yield func(string) bool) {
			for k := range items {
				if !yield(k) {
					return
				}
			}
		}) {
			seq++
			subj, _ := events.ModelSubject("acme", "r1", item)
			data, err := events.Encode(&events.Event{ID: events.ModelEventID("acme", "r1", seq, 0), Tenant: "acme", Response: "r1", Item: item,
				Body: &events.TextDelta{Text: items[item]}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.Apply(ctx, &projector.Msg{Seq: seq, Subject: subj, Data: data}); err != nil {
				t.Fatal(err)
			}
		}
		v := l.Runner().View()
		t.Cleanup(func() { v.Close() })
		return v
	}
	a := view("a", map[string]string{"i1": "one", "i2": "two", "i3": "three"})
	b := view("b", map[string]string{"i1": "one", "i2": "TWO", "i4": "four"})
	got, n := changes(t, viewdump.ViewPager(a, 1), viewdump.ViewPager(b, 2))
	want := []string{"~:s/acme\x00item\x00i2:two>TWO", "-:s/acme\x00item\x00i3:three>", "+:s/acme\x00item\x00i4:>four"}
	if got != strings.Join(want, " ") || n.Same != 1 {
		t.Errorf("diff of two views:\n %q %+v\nwant\n %q", got, n, want)
	}
}
