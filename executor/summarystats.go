package executor

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
)

// valuesKey names the elements themselves in the statistics of an array
// of numbers or strings (its rows have no fields).
const valuesKey = "value"

// column is one field's values across an array's rows.
type column struct {
	nums    []float64
	numText []json.Number // as the result wrote them, beside nums
	minAt   int           // row of the first minimum, -1 when no number
	maxAt   int           // row of the first maximum
	lo, hi  float64
	strs    map[string]int // counts of string values, nil once over the cap
	strRows int
}

// describe adds to a large array's summary out the statistics of its
// numeric fields ("stats"), the value counts of its low-cardinality string
// fields ("counts") and the rows holding its numeric fields' extremes
// ("outliers"), as far as lv allows. Rows are objects (their top-level
// fields are described) or scalars (described under valuesKey); other
// rows are not described.
func describe(out map[string]any, rows []any, lv shrinkLevel, ref string, depth int) {
	if lv.described == 0 {
		return
	}
	cols := columns(rows, lv.distinct)
	names := make([]string, 0, len(cols))
	for k := range cols {
		names = append(names, k)
	}
	slices.Sort(names)
	stats, counts := map[string]any{}, map[string]any{}
	var extremeFields []string
	for _, name := range names {
		if len(stats)+len(counts) == lv.described {
			break
		}
		c := cols[name]
		switch {
		case len(c.nums) > 0:
			stats[name] = c.stats()
			if name != valuesKey && len(extremeFields) < lv.outliers {
				extremeFields = append(extremeFields, name)
			}
		case c.strs != nil && len(c.strs) > 0 && len(c.strs) < c.strRows:
			// Counted only when some value repeats: a column of distinct
			// names says nothing a sample does not.
			// Values that read the same once cut are counted together:
			// one key each, whatever order the map gives them in.
			cuts := make(map[string]int, len(c.strs))
			for v, n := range c.strs {
				cuts[cut(v, lv.runes)] += n
			}
			m := make(map[string]any, len(cuts))
			for v, n := range cuts {
				m[v] = n
			}
			counts[name] = m
		}
	}
	if len(stats) > 0 {
		out["stats"] = stats
	}
	if len(counts) > 0 {
		out["counts"] = counts
	}
	// The rows holding the extremes, beside the first rows (the sample).
	why := map[int][]string{}
	for _, name := range extremeFields {
		c := cols[name]
		for _, e := range []struct {
			at   int
			side string
		}{{c.minAt, "min "}, {c.maxAt, "max "}} {
			if e.at >= lv.rows {
				why[e.at] = append(why[e.at], e.side+name)
			}
		}
	}
	if len(why) == 0 {
		return
	}
	at := make([]int, 0, len(why))
	for i := range why {
		at = append(at, i)
	}
	slices.Sort(at)
	outliers := make([]any, 0, len(at))
	for _, i := range at {
		outliers = append(outliers, map[string]any{"index": i, "is": strings.Join(why[i], ", "), "row": shrink(rows[i], lv, ref, depth+1)})
	}
	out["outliers"] = outliers
}

// columns gathers the top-level fields of rows (valuesKey for scalar
// rows). A string field stops being counted once it has more than
// distinct values.
func columns(rows []any, distinct int) map[string]*column {
	cols := map[string]*column{}
	add := func(name string, v any, row int) {
		c := cols[name]
		if c == nil {
			c = &column{minAt: -1, maxAt: -1, strs: map[string]int{}}
			cols[name] = c
		}
		switch x := v.(type) {
		case json.Number:
			f, err := x.Float64()
			if err != nil {
				return
			}
			if c.minAt < 0 || f < c.lo {
				c.minAt, c.lo = row, f
			}
			if c.maxAt < 0 || f > c.hi {
				c.maxAt, c.hi = row, f
			}
			c.nums = append(c.nums, f)
			c.numText = append(c.numText, x)
		case string:
			c.strRows++
			if c.strs == nil {
				return
			}
			c.strs[x]++
			if len(c.strs) > distinct {
				c.strs = nil
			}
		}
	}
	for i, r := range rows {
		switch x := r.(type) {
		case map[string]any:
			for k, v := range x {
				add(k, v, i)
			}
		case json.Number, string:
			add(valuesKey, x, i)
		}
	}
	return cols
}

// stats are the column's numbers described: n, min, max, mean (six
// significant digits) and the quartiles by nearest rank, each a value as
// the result wrote it.
func (c *column) stats() map[string]any {
	order := make([]int, len(c.nums))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case c.nums[a] < c.nums[b]:
			return -1
		case c.nums[a] > c.nums[b]:
			return 1
		}
		return 0
	})
	rank := func(p int) json.Number { // nearest rank: the smallest value with at least p% at or below it
		k := (p*len(order) + 99) / 100
		return c.numText[order[max(k, 1)-1]]
	}
	var sum float64
	for _, f := range c.nums {
		sum += f
	}
	st := map[string]any{
		"n": len(c.nums), "min": c.numText[order[0]], "max": c.numText[order[len(order)-1]],
		"p25": rank(25), "p50": rank(50), "p75": rank(75),
	}
	if mean := sum / float64(len(c.nums)); !math.IsInf(mean, 0) && !math.IsNaN(mean) { // a sum past float64's range has no mean to give
		st["mean"] = json.Number(strconv.FormatFloat(mean, 'g', 6, 64))
	}
	return st
}

// cut is s at most runes long, marked when cut.
func cut(s string, runes int) string {
	r := []rune(s)
	if len(r) <= runes {
		return s
	}
	return string(r[:runes]) + "…"
}
