package executor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"unicode/utf8"
)

// The model-facing summary of a result is bounded (Config.SummaryMax): a
// result that fits is its own summary; a large array becomes its count, its
// fields, statistics of its numeric fields (n, min, max, mean and the
// quartiles p25, p50, p75: nearest-rank values of the data, so every one but
// the mean is a value of the result), the counts of each value of its
// low-cardinality string fields, its first rows, the rows holding each
// numeric field's extremes (outliers, by index, beside the first rows) and a
// reference to the whole; long strings are cut. Shrinking goes level by
// level until the summary fits — fewer rows, shorter strings, fewer fields
// described; the last resort names only the size and the reference. The
// summary is a pure function of the result: fields are taken in name order,
// ties by the first row, so the same result always gives the same bytes.

// arrayRowsMax is the longest array a summary keeps whole.
const arrayRowsMax = 10

// shrinkLevel is how much of a large array one attempt keeps: sample rows,
// runes of a string, numeric fields whose extreme rows are shown, fields
// described by statistics or value counts, and values counted per string
// field (a field with more distinct values is not counted).
type shrinkLevel struct{ rows, runes, outliers, described, distinct int }

var shrinkLevels = []shrinkLevel{
	{3, 200, 4, 16, 10},
	{2, 80, 2, 8, 6},
	{1, 40, 1, 4, 4},
	{1, 24, 0, 2, 0},
	{0, 16, 0, 0, 0},
}

// summarize returns the summary of a JSON result; ref names where the whole
// result is ("" when it is inline in the event).
func summarize(result []byte, ref string, max int) string {
	if len(result) <= max && !hasLargeArray(result) {
		return string(result)
	}
	dec := json.NewDecoder(bytes.NewReader(result))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fallback(len(result), ref)
	}
	where := ref
	if where == "" {
		where = "the result field of this event"
	}
	for _, lv := range shrinkLevels {
		b, err := encodeCanonical(shrink(v, lv, where, 0))
		if err == nil && len(b) <= max {
			return string(b)
		}
	}
	return fallback(len(result), ref)
}

func fallback(n int, ref string) string {
	if ref == "" {
		return fmt.Sprintf(`{"bytes":%d,"truncated":true}`, n)
	}
	b, _ := encodeCanonical(map[string]any{"bytes": n, "truncated": true, "ref": ref})
	return string(b)
}

// hasLargeArray reports whether the JSON holds an array longer than
// arrayRowsMax, without decoding it: one pass over the bytes, counting
// the values that start in each open array. data is valid JSON (a
// result is compacted, hence checked, before it is summarized); nesting
// deeper than maxDepthScan is left to hasLargeArrayTokens.
func hasLargeArray(data []byte) bool {
	const maxDepthScan = 64
	var stack [maxDepthScan]int8 // per open container: -1 an object, else the values begun in an array, capped
	var expect [maxDepthScan]bool
	depth := 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch c {
		case ' ', '\t', '\n', '\r', ':':
			continue
		case ',':
			if depth > 0 && stack[depth-1] >= 0 {
				expect[depth-1] = true
			}
			continue
		case ']', '}':
			if depth > 0 {
				depth--
			}
			continue
		}
		// A value (or an object's key) starts here.
		if depth > 0 && stack[depth-1] >= 0 && expect[depth-1] {
			expect[depth-1] = false
			if stack[depth-1]++; stack[depth-1] > arrayRowsMax {
				return true
			}
		}
		switch c {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			if depth == maxDepthScan {
				return hasLargeArrayTokens(data)
			}
			stack[depth], expect[depth] = -1, false
			if c == '[' {
				stack[depth], expect[depth] = 0, true
			}
			depth++
		}
	}
	return false
}

// hasLargeArrayTokens is hasLargeArray by the JSON tokenizer, for
// nesting too deep to scan.
func hasLargeArrayTokens(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		array bool
		n     int
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '[', '{':
				if len(stack) > 0 && stack[len(stack)-1].array {
					stack[len(stack)-1].n++
				}
				stack = append(stack, frame{array: d == '['})
			case ']', '}':
				stack = stack[:len(stack)-1]
			}
		} else if len(stack) > 0 && stack[len(stack)-1].array {
			stack[len(stack)-1].n++
		}
		if len(stack) > 0 && stack[len(stack)-1].array && stack[len(stack)-1].n > arrayRowsMax {
			return true
		}
	}
}

func shrink(v any, lv shrinkLevel, ref string, depth int) any {
	switch x := v.(type) {
	case string:
		if utf8.RuneCountInString(x) > lv.runes {
			r := []rune(x)
			return string(r[:lv.runes]) + fmt.Sprintf("…(%d chars)", len(r))
		}
		return x
	case map[string]any:
		if depth > 8 {
			return map[string]any{"fields": len(x), "truncated": true}
		}
		out := make(map[string]any, len(x))
		for k, c := range x {
			out[k] = shrink(c, lv, ref, depth+1)
		}
		return out
	case []any:
		if len(x) <= arrayRowsMax && depth <= 8 {
			out := make([]any, len(x))
			for i, c := range x {
				out[i] = shrink(c, lv, ref, depth+1)
			}
			return out
		}
		sample := make([]any, 0, lv.rows)
		for i := 0; i < lv.rows && i < len(x); i++ {
			sample = append(sample, shrink(x[i], lv, ref, depth+1))
		}
		out := map[string]any{"count": len(x), "fields": fields(x), "sample": sample, "ref": ref}
		describe(out, x, lv, ref, depth)
		return out
	}
	return v
}

// fields lists the keys of the array's object rows, sorted, at most 32.
func fields(rows []any) []string {
	seen := map[string]bool{}
	for _, r := range rows {
		if m, ok := r.(map[string]any); ok {
			for k := range m {
				seen[k] = true
			}
		}
		if len(seen) > 32 {
			break
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	if len(out) > 32 {
		out = out[:32]
	}
	return out
}

func encodeCanonical(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
