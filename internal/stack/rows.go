package stack

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/projector"
	"github.com/vmihailenco/msgpack/v5"
)

// FormatRow renders one row of a view for people: rejections and memory
// rows by their own formats, other values as msgpack decoded to JSON, as
// text, or in hex.
func FormatRow(projection string, key, value []byte) string {
	switch {
	case bytes.HasPrefix(key, []byte("r/")):
		var rj projector.Rejection
		if msgpack.Unmarshal(value, &rj) == nil {
			return fmt.Sprintf("rejected seq %d %s: %s", rj.Seq, rj.Subject, rj.Reason)
		}
	case bytes.HasPrefix(key, []byte("s/")) && projection == memory.Name:
		return memory.FormatEntry(key[2:], value)
	}
	return fmt.Sprintf("%q = %s", bytes.TrimPrefix(key, []byte("s/")), formatValue(value))
}

// FormatRowParts is FormatRow's key and value apart, to show two values of
// one key side by side (replay --diff's changed rows). A row FormatRow
// reads as one phrase (a rejection, a memory entry) is all key.
func FormatRowParts(projection string, key, value []byte) (k, v string) {
	s := FormatRow(projection, key, value)
	if k, v, ok := strings.Cut(s, " = "); ok {
		return k, v
	}
	return s, ""
}

func formatValue(v []byte) string {
	if len(v) > 0 && utf8.Valid(v) && strings.IndexFunc(string(v), func(r rune) bool { return !unicode.IsPrint(r) && !unicode.IsSpace(r) }) < 0 {
		return strconv.Quote(string(v))
	}
	dec := msgpack.NewDecoder(bytes.NewReader(v))
	dec.SetMapDecoder(func(d *msgpack.Decoder) (any, error) { return d.DecodeUntypedMap() })
	var x any
	if err := dec.Decode(&x); err == nil && dec.Buffered().(*bytes.Reader).Len() == 0 {
		if b, err := json.Marshal(jsonable(x)); err == nil {
			return string(b)
		}
	}
	if len(v) > 64 {
		return hex.EncodeToString(v[:64]) + fmt.Sprintf("… (%d bytes)", len(v))
	}
	return hex.EncodeToString(v)
}

// jsonable turns decoded msgpack into something encoding/json takes: maps
// with non-string keys get string keys; byte strings that are text become
// strings.
func jsonable(x any) any {
	switch t := x.(type) {
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, v := range t {
			m[fmt.Sprint(k)] = jsonable(v)
		}
		return m
	case map[string]any:
		for k, v := range t {
			t[k] = jsonable(v)
		}
		return t
	case []any:
		for i := range t {
			t[i] = jsonable(t[i])
		}
		return t
	case []byte:
		if utf8.Valid(t) {
			return string(t)
		}
		return hex.EncodeToString(t)
	}
	return x
}
