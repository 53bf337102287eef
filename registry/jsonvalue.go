package registry

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Arguments are checked on every call, by the assembler and again by the
// executor, so reading them costs what the call costs. readJSON reads a
// JSON text into exactly the values jsonschema.UnmarshalJSON makes
// (map[string]any, []any, json.Number, string, bool, nil; the last of
// duplicate keys wins; invalid UTF-8 and lone surrogates become U+FFFD)
// without reflection, and appendCanonical writes a value back byte for byte
// as canonicalJSON does (sorted keys, no HTML escaping), without
// reflection either. A parity test holds both to the library.

// readJSON is jsonschema.UnmarshalJSON of data, faster. A text that is
// not one JSON value goes to the library itself, for its error.
func readJSON(data []byte) (any, error) {
	if !json.Valid(data) {
		return jsonschema.UnmarshalJSON(bytes.NewReader(data))
	}
	d := jsonReader{data: data}
	return d.value(), nil
}

// jsonReader reads a text json.Valid accepted.
type jsonReader struct {
	data []byte
	i    int
}

func (d *jsonReader) skipSpace() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *jsonReader) value() any {
	d.skipSpace()
	switch c := d.data[d.i]; c {
	case '{':
		d.i++
		m := map[string]any{}
		d.skipSpace()
		if d.data[d.i] == '}' {
			d.i++
			return m
		}
		for {
			d.skipSpace()
			k := d.str()
			d.skipSpace()
			d.i++ // ':'
			m[k] = d.value()
			d.skipSpace()
			c := d.data[d.i]
			d.i++
			if c == '}' {
				return m
			}
		}
	case '[':
		d.i++
		a := []any{}
		d.skipSpace()
		if d.data[d.i] == ']' {
			d.i++
			return a
		}
		for {
			a = append(a, d.value())
			d.skipSpace()
			c := d.data[d.i]
			d.i++
			if c == ']' {
				return a
			}
		}
	case '"':
		return d.str()
	case 't':
		d.i += 4
		return true
	case 'f':
		d.i += 5
		return false
	case 'n':
		d.i += 4
		return nil
	default:
		start := d.i
		for d.i < len(d.data) {
			switch d.data[d.i] {
			case '-', '+', '.', 'e', 'E', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
				d.i++
				continue
			}
			break
		}
		return json.Number(d.data[start:d.i])
	}
}

// str reads a string at d.i (its opening quote) as encoding/json unquotes
// it.
func (d *jsonReader) str() string {
	d.i++ // '"'
	start := d.i
	// Fast path: no escapes, no control or non-ASCII bytes before the
	// closing quote.
	for d.i < len(d.data) {
		c := d.data[d.i]
		if c == '"' {
			s := string(d.data[start:d.i])
			d.i++
			return s
		}
		if c == '\\' || c >= utf8.RuneSelf {
			break
		}
		d.i++
	}
	b := make([]byte, 0, d.i-start+8)
	b = append(b, d.data[start:d.i]...)
	for {
		c := d.data[d.i]
		switch {
		case c == '"':
			d.i++
			return string(b)
		case c == '\\':
			d.i++
			switch e := d.data[d.i]; e {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := hex4(d.data[d.i+1 : d.i+5])
				d.i += 4
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if d.i+6 < len(d.data) && d.data[d.i+1] == '\\' && d.data[d.i+2] == 'u' {
						r2 = hex4(d.data[d.i+3 : d.i+7])
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						d.i += 6
						r = dec
					} else {
						r = utf8.RuneError
					}
				}
				b = utf8.AppendRune(b, r)
			default: // '"', '\\', '/'
				b = append(b, e)
			}
			d.i++
		case c < utf8.RuneSelf:
			b = append(b, c)
			d.i++
		default:
			r, size := utf8.DecodeRune(d.data[d.i:])
			d.i += size
			b = utf8.AppendRune(b, r) // RuneError for an invalid byte, as encoding/json
		}
	}
}

func hex4(h []byte) rune {
	n, _ := strconv.ParseUint(string(h), 16, 32)
	return rune(n)
}

// appendCanonical appends the canonical JSON of v (as canonicalJSON writes
// it) to dst; ok is false for a value readJSON and coercion never make.
func appendCanonical(dst []byte, v any) (out []byte, ok bool) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case bool:
		return strconv.AppendBool(dst, v), true
	case json.Number:
		if v == "" {
			return append(dst, '0'), true
		}
		return append(dst, v...), true
	case string:
		return appendString(dst, v), true
	case []any:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, ok = appendCanonical(dst, e); !ok {
				return nil, false
			}
		}
		return append(dst, ']'), true
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, strings.Compare)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, k)
			dst = append(dst, ':')
			if dst, ok = appendCanonical(dst, v[k]); !ok {
				return nil, false
			}
		}
		return append(dst, '}'), true
	}
	return nil, false
}

const hexDigits = "0123456789abcdef"

// appendString writes s as encoding/json does without HTML escaping.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '\\', '"':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
