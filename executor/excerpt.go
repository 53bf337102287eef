package executor

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/toolstream/toolstream/events"
)

// excerpt returns what the verifier reads of a result too large to keep
// inline (events.CallSucceeded.Excerpt): the result's values in document
// order, an object's keys sorted, as JSON of at most max bytes in which
// every value sits at the pointer it has in the whole result and is the
// whole value (a string is never cut). A member that does not fit is left
// out and the next is tried; in an array the element that does not fit
// ends it, and the cut records the array's whole length. An object none of
// whose members fits is left out as a whole. The cuts count against max
// (their pointer and cutBytes each). A result that is not JSON gives
// nothing.
func excerpt(result []byte, max int) ([]byte, []events.ArrayCut) {
	dec := json.NewDecoder(bytes.NewReader(result))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, nil
	}
	x := excerpter{max: max, buf: make([]byte, 0, min(max, len(result)))}
	if !x.value(v, "", 0) {
		return nil, nil
	}
	return x.buf, x.cuts
}

type excerpter struct {
	buf  []byte
	max  int
	cuts []events.ArrayCut
	// cutLen is what the cuts cost of the bound (their pointers and
	// cutBytes each).
	cutLen int
	enc    bytes.Buffer
}

// cutBytes is what a cut costs of an excerpt's bound besides its pointer:
// its encoding's keys and numbers.
const cutBytes = 24

// room returns the bytes left under the bound.
func (x *excerpter) room() int { return x.max - len(x.buf) - x.cutLen }

// undo takes the excerpt back to its first buf bytes and cuts.
func (x *excerpter) undo(buf, cuts int) {
	for _, c := range x.cuts[cuts:] {
		x.cutLen -= len(c.Pointer) + cutBytes
	}
	x.buf, x.cuts = x.buf[:buf], x.cuts[:cuts]
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// value appends v, found at ptr, when it fits with owed closing bytes
// after it, and reports whether it did; what it did not append it leaves
// as it was.
func (x *excerpter) value(v any, ptr string, owed int) bool {
	switch t := v.(type) {
	case map[string]any:
		if x.room() < 2+owed {
			return false
		}
		mark, ncuts := len(x.buf), len(x.cuts)
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		x.buf = append(x.buf, '{')
		n := 0
		for _, k := range keys {
			m, nc := len(x.buf), len(x.cuts)
			if n > 0 {
				x.buf = append(x.buf, ',')
			}
			x.buf = append(x.buf, x.scalar(k)...)
			x.buf = append(x.buf, ':')
			if !x.value(t[k], ptr+"/"+pointerEscaper.Replace(k), owed+1) {
				x.undo(m, nc)
				continue
			}
			n++
		}
		if n == 0 && len(keys) > 0 {
			x.undo(mark, ncuts)
			return false
		}
		x.buf = append(x.buf, '}')
		return true
	case []any:
		// An element leaves room for the cut that would say how long the
		// array is, so that any element may end it.
		cut := len(ptr) + cutBytes
		if x.room() < 2+owed+cut {
			return false
		}
		x.buf = append(x.buf, '[')
		for i, e := range t {
			m, nc := len(x.buf), len(x.cuts)
			if i > 0 {
				x.buf = append(x.buf, ',')
			}
			if !x.value(e, ptr+"/"+strconv.Itoa(i), owed+1+cut) {
				x.undo(m, nc)
				x.cuts = append(x.cuts, events.ArrayCut{Pointer: ptr, Len: len(t), Kept: i})
				x.cutLen += cut
				break
			}
		}
		x.buf = append(x.buf, ']')
		return true
	default:
		b := x.scalar(v)
		if x.room() < len(b)+owed {
			return false
		}
		x.buf = append(x.buf, b...)
		return true
	}
}

// scalar returns the JSON of a string, number, boolean or null (valid
// until the next call).
func (x *excerpter) scalar(v any) []byte {
	x.enc.Reset()
	e := json.NewEncoder(&x.enc)
	e.SetEscapeHTML(false)
	_ = e.Encode(v) // NB: a decoded value always encodes
	return bytes.TrimSuffix(x.enc.Bytes(), []byte("\n"))
}
