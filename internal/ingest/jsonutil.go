package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// checkObject returns ErrTooLarge for more than EventMax bytes and
// ErrMalformedInput unless raw is exactly one JSON object.
func checkObject(raw []byte) error {
	if len(raw) > EventMax {
		return fmt.Errorf("%w: %d bytes (max %d)", ErrTooLarge, len(raw), EventMax)
	}
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return fmt.Errorf("%w: empty event", ErrMalformedInput)
	}
	if !json.Valid(t) {
		return fmt.Errorf("%w: not valid JSON", ErrMalformedInput)
	}
	if t[0] != '{' {
		return fmt.Errorf("%w: not a JSON object", ErrMalformedInput)
	}
	return nil
}

// present reports whether a raw field was there and not null.
func present(r json.RawMessage) bool {
	r = bytes.TrimSpace(r)
	return len(r) > 0 && !bytes.Equal(r, []byte("null"))
}

func isObject(r json.RawMessage) bool {
	r = bytes.TrimSpace(r)
	return len(r) > 0 && r[0] == '{'
}

// scalarText returns a string field's value, a number or boolean's JSON text,
// and "" for null, absence, objects and arrays. Error codes are strings at one
// provider and numbers at another.
func scalarText(r json.RawMessage) string {
	r = bytes.TrimSpace(r)
	if len(r) == 0 {
		return ""
	}
	switch r[0] {
	case '"':
		return stringText(r)
	case '{', '[', 'n':
		return ""
	}
	return string(r)
}

// fragmentText returns an arguments fragment: a JSON string's value, or the
// compact JSON text of any other value (some OpenAI-compatible servers send
// "arguments" as an object), or "" for null and absence.
func fragmentText(r json.RawMessage) string {
	r = bytes.TrimSpace(r)
	if !present(r) {
		return ""
	}
	if r[0] == '"' {
		return stringText(r)
	}
	return compactJSON(r)
}

// compactJSON returns r without insignificant white space, keeping key order.
func compactJSON(r json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, r); err != nil {
		return string(r)
	}
	return b.String()
}

// appendQuoted appends s as a JSON string. Only '"', '\\' and control
// characters are escaped, so the output is stable and readable; invalid UTF-8
// becomes U+FFFD.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendEscaped(b, s)
	return append(b, '"')
}

// appendEscaped appends the body of a JSON string holding s (no quotes).
func appendEscaped(b []byte, s string) []byte { return appendEscapedBytes(b, []byte(s)) }

// appendEscapedBytes is appendEscaped for bytes.
func appendEscapedBytes(b []byte, s []byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, `\u00`...)
				b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return b
}

// quoteJSON returns s as a JSON string.
func quoteJSON(s string) string { return string(appendQuoted(nil, s)) }

// itoa is strconv.Itoa, short for id building.
func itoa(i int) string { return strconv.Itoa(i) }

// stringText returns the value of the JSON string r (r[0] == '"', white
// space may follow), or "" when r is not one string. The scanner's pass and unquoting (jsonscan.go,
// encoding/json's result) stand in for json.Unmarshal, which checked and
// decoded again, through reflection, each text delta and argument fragment
// the scanner had just read.
func stringText(r json.RawMessage) string {
	s := &scanner{b: r}
	end, plain := s.str(0)
	if end < 0 || s.ws(end) != len(r) {
		return ""
	}
	return unquoteBody(r[1:end-1], plain)
}
