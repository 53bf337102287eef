package verifier

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/toolstream/toolstream/verifier/evidence"
)

// summaryStats reads the statistics a large result's summary states
// (events.CallSucceeded.Summary): an array the summary replaced by an
// object with its count and "stats" sits at the array's pointer, and each
// numeric field's n, min, max and mean there are over all its rows. A
// summary that is not JSON, or states no statistics, gives none.
func summaryStats(summary string) []evidence.FieldStats {
	dec := json.NewDecoder(strings.NewReader(summary))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	var out []evidence.FieldStats
	var walk func(v any, ptr string, depth int)
	walk = func(v any, ptr string, depth int) {
		if depth > 16 {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			if _, ok := x["count"].(json.Number); ok {
				if stats, ok := x["stats"].(map[string]any); ok {
					for field, s := range stats {
						if st, ok := fieldStats(ptr, field, s); ok {
							out = append(out, st)
						}
					}
					return
				}
			}
			for k, c := range x {
				walk(c, ptr+"/"+strings.NewReplacer("~", "~0", "/", "~1").Replace(k), depth+1)
			}
		case []any:
			for i, c := range x {
				walk(c, ptr+"/"+strconv.Itoa(i), depth+1)
			}
		}
	}
	walk(v, "", 0)
	return out
}

// fieldStats reads one field's statistics: n, min, max and mean, all
// numbers.
func fieldStats(array, field string, s any) (evidence.FieldStats, bool) {
	m, ok := s.(map[string]any)
	if !ok {
		return evidence.FieldStats{}, false
	}
	var vals [4]float64
	for i, k := range []string{"n", "min", "max", "mean"} {
		n, ok := m[k].(json.Number)
		if !ok {
			return evidence.FieldStats{}, false
		}
		f, err := n.Float64()
		if err != nil {
			return evidence.FieldStats{}, false
		}
		vals[i] = f
	}
	return evidence.FieldStats{Array: array, Field: field, N: int(vals[0]), Min: vals[1], Max: vals[2], Mean: vals[3]}, true
}
