package ingest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The edge's decoder: one pass over a raw event that checks it is one JSON
// object and pulls the few fields an adapter reads, skipping (and checking)
// the rest. encoding/json checked every event twice (json.Valid, then
// Unmarshal's own scan) and decoded through reflection; this reads each
// byte once.
//
// It answers only where its answer is certainly encoding/json's. Anything
// where the two could differ, or that it does not handle, makes it give up
// (ok false) and the adapter decodes the event with encoding/json as
// before, which decides what the event is (its typed error included). It
// gives up on: bytes that are not valid JSON, white space other than JSON's
// around the object, nesting deeper than scanDepthMax, a key with an escape
// or a non-ASCII byte, a key that matches a field only case-insensitively
// (encoding/json would take it), a field said twice, a value of another
// type than its field's (a string where an object is read, a number that
// is no int), and anything an adapter's own decoder refuses. So bad input
// keeps exactly its typed errors, and the fast path is the common case of
// well-formed provider events. FuzzScanMatchesEncodingJSON checks the
// answers against encoding/json's.
//
// Strings are unquoted as encoding/json unquotes them: escapes decoded, a
// lone surrogate and each byte of invalid UTF-8 replaced by U+FFFD. Raw
// values (json.RawMessage fields) are sub-slices of the event, not copies:
// they are valid only while the event's bytes are, which is the Feed in
// progress.

// scanDepthMax bounds the nesting the scanner follows; deeper input is
// left to encoding/json (whose own bound is 10,000).
const scanDepthMax = 256

// scanner walks one raw event. fail is set when it gives up.
type scanner struct {
	b     []byte
	depth int
	fail  bool
	// spell makes an escaped or non-ASCII key (rawKey) go to the object's
	// field as written, where it matches no name, so that other checks it
	// for a misspelling before the scan gives up (encoding/json folds
	// it); without spell the scan gives up at once.
	spell, rawKey bool
	// misspelt is set (and the scan given up) for a key one byte off a
	// field the adapter reads at that place (other): a corrupted name,
	// whose value the adapter would pass over unread.
	misspelt error
}

// giveUp marks the event as one to leave to encoding/json and returns -1.
func (s *scanner) giveUp() int {
	s.fail = true
	return -1
}

// ws returns the index of the first byte at or after i that is not JSON
// white space.
func (s *scanner) ws(i int) int {
	for i < len(s.b) {
		switch s.b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// top scans the whole event as one object, calling field for each member
// (see object), and reports whether it was one well-formed object with
// only JSON white space around it and every field taken.
func (s *scanner) top(field func(key []byte, i int) int) bool {
	i := s.ws(0)
	if i >= len(s.b) || s.b[i] != '{' {
		return false
	}
	i = s.object(i, field)
	if i < 0 || s.fail {
		return false
	}
	return s.ws(i) == len(s.b)
}

// object scans the object at i (s.b[i] == '{'), calling field with each
// member's key (unescaped bytes of the event: a key with an escape or a
// non-ASCII byte gives up) and the index of its value; field returns the
// index after the value (having scanned it: s.skip for a field it does not
// read) or -1. object returns the index after the object, or -1.
func (s *scanner) object(i int, field func(key []byte, i int) int) int {
	if s.depth++; s.depth > scanDepthMax {
		return s.giveUp()
	}
	defer func() { s.depth-- }()
	i, done := s.first(i, '}')
	for !done {
		if i >= len(s.b) || s.b[i] != '"' {
			return s.giveUp()
		}
		end, plain := s.str(i)
		if end < 0 {
			return -1
		}
		// An escaped or non-ASCII key is left to encoding/json, which
		// folds it (once other has checked it for a misspelling: spell).
		if s.rawKey = !plain; s.rawKey && !s.spell {
			return s.giveUp()
		}
		key := s.b[i+1 : end-1]
		i = s.ws(end)
		if i >= len(s.b) || s.b[i] != ':' {
			return s.giveUp()
		}
		i = s.ws(i + 1)
		if i >= len(s.b) {
			return s.giveUp()
		}
		if i = field(key, i); i < 0 || s.fail {
			return s.giveUp()
		}
		i, done = s.next(i, '}')
	}
	return i
}

// first steps into the object or array whose opening byte is at i: it
// returns the index of its first member, or, done, the index after it
// when close follows at once (an empty one).
func (s *scanner) first(i int, close byte) (int, bool) {
	i = s.ws(i + 1)
	if i < len(s.b) && s.b[i] == close {
		return i + 1, true
	}
	return i, false
}

// next steps past the member that ends at i: after a comma it returns the
// index of the next member; after close it returns, done, the index after
// the object or array; anything else gives up (-1, done).
func (s *scanner) next(i int, close byte) (int, bool) {
	i = s.ws(i)
	if i >= len(s.b) {
		return s.giveUp(), true
	}
	switch s.b[i] {
	case ',':
		return s.ws(i + 1), false
	case close:
		return i + 1, true
	}
	return s.giveUp(), true
}

// skip scans the value at i and returns the index after it, or -1.
func (s *scanner) skip(i int) int {
	if i >= len(s.b) {
		return s.giveUp()
	}
	switch c := s.b[i]; {
	case c == '"':
		end, _ := s.str(i)
		return end
	case c == '{':
		return s.object(i, func(_ []byte, j int) int {
			if s.rawKey {
				return s.giveUp()
			}
			return s.skip(j)
		})
	case c == '[':
		return s.arrayOf(i, s.skip)
	case c == 't':
		return s.literal(i, "true")
	case c == 'f':
		return s.literal(i, "false")
	case c == 'n':
		return s.literal(i, "null")
	case c == '-' || '0' <= c && c <= '9':
		return s.number(i)
	}
	return s.giveUp()
}

func (s *scanner) literal(i int, lit string) int {
	if len(s.b)-i < len(lit) || string(s.b[i:i+len(lit)]) != lit {
		return s.giveUp()
	}
	return i + len(lit)
}

// number scans a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number(i int) int {
	b := s.b
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return s.giveUp()
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return s.giveUp()
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return s.giveUp()
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	return i
}

// str scans the string at i (s.b[i] == '"') and returns the index after its
// closing quote, or -1, and whether its body is plain: no escape, ASCII
// only (its bytes are its value).
func (s *scanner) str(i int) (int, bool) {
	b := s.b
	plain := true
	for i++; i < len(b); i++ {
		c := b[i]
		if strPlain[c] {
			continue
		}
		switch {
		case c == '"':
			return i + 1, plain
		case c == '\\':
			plain = false
			i++
			if i >= len(b) {
				return s.giveUp(), false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i < 5 || hex4(b[i+1:i+5]) < 0 {
					return s.giveUp(), false
				}
				i += 4
			default:
				return s.giveUp(), false
			}
		case c < 0x20:
			return s.giveUp(), false
		case c >= utf8.RuneSelf:
			plain = false
		}
	}
	return s.giveUp(), false
}

// strPlain marks the bytes a string's body holds as they are: ASCII, not
// a control character, quote or backslash. Only read.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// hex4 is the value of four hex digits, or -1.
func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// --- typed reads: each takes the index of a value and returns the index
// after it; a value of another type than the field's gives up, as
// encoding/json's UnmarshalTypeError sends the event to the slow path.

// stringValue reads a string field: null leaves it unchanged.
func (s *scanner) stringValue(i int, dst *string) int {
	switch s.b[i] {
	case 'n':
		return s.literal(i, "null")
	case '"':
		end, plain := s.str(i)
		if end < 0 {
			return -1
		}
		*dst = unquoteBody(s.b[i+1:end-1], plain)
		return end
	}
	return s.giveUp()
}

// stringPtr reads a *string field: null makes it nil.
func (s *scanner) stringPtr(i int, dst **string) int { return s.stringInto(i, dst, nil) }

// stringInto is stringPtr with the string kept in *v (no allocation for
// the pointer), or in a new string where v is nil: *dst becomes v, or nil
// for null.
func (s *scanner) stringInto(i int, dst **string, v *string) int {
	if s.b[i] == 'n' {
		*dst = nil
		return s.literal(i, "null")
	}
	if v == nil {
		v = new(string)
	}
	end := s.stringValue(i, v)
	*dst = v
	return end
}

// intInto is intPtr with the int kept in *v.
func (s *scanner) intInto(i int, dst **int, v *int) int { return intField(s, i, dst, v) }

// intPtr reads a *int field: null makes it nil; a number that is not an
// integer in range gives up.
func (s *scanner) intPtr(i int, dst **int) int { return intField(s, i, dst, nil) }

// int64Ptr is intPtr for *int64.
func (s *scanner) int64Ptr(i int, dst **int64) int { return intField(s, i, dst, nil) }

// intField reads an integer pointer field: null makes *dst nil, an integer
// (in int's range) is kept in *v, or in a new T where v is nil, and *dst
// points to it; anything else gives up and leaves *dst as it was.
func intField[T int | int64](s *scanner, i int, dst **T, v *T) int {
	if s.b[i] == 'n' {
		*dst = nil
		return s.literal(i, "null")
	}
	x, end := s.integer(i)
	if end < 0 {
		return -1
	}
	if v == nil {
		v = new(T)
	}
	*v = T(x)
	*dst = v
	return end
}

func (s *scanner) integer(i int) (int64, int) {
	c := s.b[i]
	if c != '-' && (c < '0' || c > '9') {
		return 0, s.giveUp()
	}
	end := s.number(i)
	if end < 0 {
		return 0, -1
	}
	v, err := strconv.ParseInt(string(s.b[i:end]), 10, strconv.IntSize)
	if err != nil {
		return 0, s.giveUp()
	}
	return v, end
}

// raw reads a json.RawMessage field: the value's bytes (not a copy).
func (s *scanner) raw(i int, dst *[]byte) int {
	end := s.skip(i)
	if end < 0 {
		return -1
	}
	*dst = s.b[i:end]
	return end
}

// objectPtr reads a pointer-to-struct field: null calls isNull (which
// makes it nil), an object is read by field into the struct the caller
// made (a fresh one: a field said twice gives up before this is reached).
func (s *scanner) objectPtr(i int, isNull func(), field func(key []byte, i int) int) int {
	switch s.b[i] {
	case 'n':
		isNull()
		return s.literal(i, "null")
	case '{':
		return s.object(i, field)
	}
	return s.giveUp()
}

// seen records the fields of one object already read; a field said twice
// gives up (encoding/json's rules for it differ by type).
type seen uint32

func (s *scanner) once(m *seen, bit int) bool {
	if *m&(1<<bit) != 0 {
		s.fail = true
		return false
	}
	*m |= 1 << bit
	return true
}

// foldsTo reports whether key, which matched none of names exactly,
// matches one of them as encoding/json matches names: case-insensitively.
// Keys are ASCII here (others give up), so ASCII folding is the whole rule.
func foldsTo(key []byte, names []string) bool {
	for _, n := range names {
		if len(n) != len(key) {
			continue
		}
		eq := true
		for j := range len(n) {
			a, b := key[j], n[j]
			if 'A' <= a && a <= 'Z' {
				a += 'a' - 'A'
			}
			if 'A' <= b && b <= 'Z' {
				b += 'a' - 'A'
			}
			if a != b {
				eq = false
				break
			}
		}
		if eq {
			return true
		}
	}
	return false
}

// other handles a key that matched no field of names: it gives up when
// encoding/json would take it for one case-insensitively, else skips the
// value.
func (s *scanner) other(key []byte, i int, names []string) int {
	if foldsTo(key, names) {
		return s.giveUp()
	}
	if n := misspells(key, names); n != "" {
		if s.misspelt == nil {
			s.misspelt = fmt.Errorf("%w: key %q is one byte off %q, a field read here: a corrupted name", ErrUnknownShape, key, n)
		}
		return s.giveUp()
	}
	if s.rawKey {
		return s.giveUp()
	}
	return s.skip(i)
}

// misspells returns the name of names that key differs from in exactly one
// byte (a substitution), if any. Providers add fields all the time, and
// those are passed over unread; a field the adapter reads with one byte
// changed is not a new field but a corrupted one, whose value (a call's
// arguments, the part that holds them) would be lost without a word.
// key is compared as written (escapes and all): one byte changed in the
// event is one byte changed in key.
func misspells(key []byte, names []string) string {
	for _, n := range names {
		if len(n) != len(key) {
			continue
		}
		diff := 0
		for j := range len(n) {
			if key[j] != n[j] {
				diff++
			}
		}
		if diff == 1 {
			return n
		}
	}
	return ""
}

// corruptedType refuses (ErrUnknownShape) a type the adapter does not read
// that is one byte off one it reads at that place: as with a key
// (misspells), that is a corrupted name, not a type the provider added,
// and the event it names would be passed over unread. Any other unknown
// type is nil: new types appear all the time.
//
// typ is the decoded value, so one byte changed in the event shows in it
// as one byte changed, as U+FFFD (a byte that is not UTF-8) in place of
// one byte, or as a two-byte escape read as one byte (co\tent is
// "co<tab>ent").
func corruptedType(what, typ string, read []string) error {
	if slices.Contains(read, typ) {
		return nil
	}
	if n := typeOneByteOff(typ, read); n != "" {
		return fmt.Errorf("%w: %s %q is one byte off %q, a type read here: a corrupted name", ErrUnknownShape, what, typ, n)
	}
	return nil
}

// typeOneByteOff returns the name of names that the decoded string typ is
// one byte of the event away from (corruptedType), if any.
func typeOneByteOff(typ string, names []string) string {
	for _, n := range names {
		switch {
		case len(typ) == len(n):
			if misspells([]byte(typ), []string{n}) != "" {
				return n
			}
		case len(typ) == len(n)+2: // U+FFFD is three bytes
			if k := strings.Index(typ, "\uFFFD"); k >= 0 && k < len(n) && typ[:k] == n[:k] && typ[k+3:] == n[k+1:] {
				return n
			}
		case len(typ) == len(n)-1: // an escape: n[k] became '\\', and n[k+1] its letter
			for k := 0; k+1 < len(n); k++ {
				if typ[:k] != n[:k] {
					break
				}
				if typ[k+1:] == n[k+2:] && escapeOf(n[k+1]) == typ[k] {
					return n
				}
			}
		}
	}
	return ""
}

// escapeOf is the byte the JSON escape \c stands for (0: c is no one-byte
// escape).
func escapeOf(c byte) byte {
	switch c {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case '/', '\\', '"':
		return c
	}
	return 0
}

// unquoteBody returns a string's value from its body (between the quotes),
// as encoding/json unquotes it. plain says the body has no escape and is
// ASCII.
func unquoteBody(body []byte, plain bool) string {
	if plain {
		return string(body)
	}
	noEscape := true
	for _, c := range body {
		if c == '\\' {
			noEscape = false
			break
		}
	}
	if noEscape && utf8.Valid(body) {
		return string(body)
	}
	out := make([]byte, 0, len(body)+2*utf8.UTFMax)
	for r := 0; r < len(body); {
		c := body[r]
		switch {
		case c == '\\':
			r++
			switch body[r] {
			case '"', '\\', '/':
				out = append(out, body[r])
				r++
			case 'b':
				out = append(out, '\b')
				r++
			case 'f':
				out = append(out, '\f')
				r++
			case 'n':
				out = append(out, '\n')
				r++
			case 'r':
				out = append(out, '\r')
				r++
			case 't':
				out = append(out, '\t')
				r++
			case 'u':
				rr := hex4(body[r+1 : r+5])
				r += 5
				if utf16.IsSurrogate(rr) {
					var rr1 rune = -1
					if len(body)-r >= 6 && body[r] == '\\' && body[r+1] == 'u' {
						rr1 = hex4(body[r+2 : r+6])
					}
					if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
						r += 6
						out = utf8.AppendRune(out, dec)
						break
					}
					rr = unicode.ReplacementChar
				}
				out = utf8.AppendRune(out, rr)
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			r++
		default:
			rr, size := utf8.DecodeRune(body[r:])
			if rr == utf8.RuneError && size == 1 {
				rr = unicode.ReplacementChar
			}
			out = utf8.AppendRune(out, rr)
			r += size
		}
	}
	return string(out)
}

// index is the position of key in names, or -1.
func index(names []string, key []byte) int {
	for i, n := range names {
		if n == string(key) {
			return i
		}
	}
	return -1
}

// scanInts reads the integer fields names of the JSON object raw into dst
// (in the same order) as encoding/json decodes them into *int64 fields,
// skipping the others; false leaves raw to encoding/json.
func scanInts(raw []byte, names []string, dst []**int64) bool {
	s := &scanner{b: raw}
	var m seen
	return s.top(func(key []byte, i int) int {
		b := index(names, key)
		if b < 0 {
			return s.other(key, i, names)
		}
		if !s.once(&m, b) {
			return -1
		}
		return s.int64Ptr(i, dst[b])
	}) && !s.fail
}
