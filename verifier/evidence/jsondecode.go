package evidence

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A result is decoded into the tree the walk reads (jsonObject, []any,
// json.Number, string, bool, nil) by decodeJSON: the value json.NewDecoder
// with UseNumber gives, an object's fields sorted by key where it gives a
// map (the order the walk reads them in), and the same inputs refused
// (what FuzzDecodeJSON checks). It reads the result once, where encoding/json
// scans it twice (once to find where the value ends, once to decode it):
// the result is copied into one string, and every string, key and number
// without an escape is a slice of it, not a copy of its own. Like
// json.Decoder it reads the first value and ignores what follows it; a
// literal at the top ends at the first byte that cannot continue it
// ("12ab" is 12, as json.Decoder reads it).
//
// NB: the tree's strings keep the result's copy alive while any of them
// is held (a part's tables hold some); a part is short-lived or encoded.

// jsonDepthMax is encoding/json's bound on nested objects and arrays.
const jsonDepthMax = 10000

var errJSON = errors.New("verifier: evidence is not JSON")

type jsonDecoder struct {
	s     string
	i     int
	depth int
	// scalars counts the values that are neither object nor array: the
	// leaves a walk of the tree makes, for the room it asks.
	scalars, strings int // … and of them the strings
	nodes            int // the objects and arrays: the nodes a walk makes
	// lastObj is the number of keys of the object closed last: the room
	// the next object's fields are made with (an array's objects are
	// alike).
	lastObj int
	shapes  [shapeDepths]objectShape // the last object's shape at each depth (sorted)
	scratch []jsonField
}

// lastObjMax bounds the room an object is made with from its sibling's.
const lastObjMax = 64

func decodeJSON(raw []byte) (any, error) {
	v, _, err := decodeJSONCounted(raw)
	return v, err
}

// decodeJSONCounted is decodeJSON that also counts the tree's scalars.
func decodeJSONCounted(raw []byte) (any, jsonCounts, error) {
	d := &jsonDecoder{s: string(raw)}
	d.space()
	if d.i == len(d.s) {
		return nil, jsonCounts{}, errJSON
	}
	v, err := d.value()
	return v, jsonCounts{scalars: d.scalars, strings: d.strings, nodes: d.nodes}, err
}

// jsonCounts are the scalar values of a decoded tree, and of them the
// strings.
type jsonCounts struct{ scalars, strings, nodes int }

func (d *jsonDecoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *jsonDecoder) value() (any, error) {
	if d.i >= len(d.s) {
		return nil, errJSON
	}
	switch c := d.s[d.i]; {
	case c == '{':
		d.nodes++
		return d.object()
	case c == '[':
		d.nodes++
		return d.array()
	}
	d.scalars++
	switch c := d.s[d.i]; {
	case c == '"':
		d.strings++
		return d.str()
	case c == '-' || c >= '0' && c <= '9':
		n, err := d.number()
		return n, err
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, errJSON
}

func (d *jsonDecoder) literal(lit string) error {
	if len(d.s)-d.i < len(lit) || d.s[d.i:d.i+len(lit)] != lit {
		return errJSON
	}
	d.i += len(lit)
	return nil
}

func (d *jsonDecoder) object() (any, error) {
	if d.depth++; d.depth > jsonDepthMax {
		return nil, errJSON
	}
	d.i++ // {
	d.space()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		d.depth--
		return jsonObject{}, nil
	}
	fs := make([]jsonField, 0, d.lastObj)
	for {
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			return nil, errJSON
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			return nil, errJSON
		}
		d.i++
		d.space()
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		fs = append(fs, jsonField{k, v})
		d.space()
		if d.i >= len(d.s) {
			return nil, errJSON
		}
		switch d.s[d.i] {
		case ',':
			d.i++
			d.space()
		case '}':
			d.i++
			d.depth--
			o := d.sorted(fs)
			d.lastObj = min(len(o), lastObjMax)
			return o, nil
		default:
			return nil, errJSON
		}
	}
}

// jsonObject is a decoded JSON object: its fields sorted by key, each key
// once (a key written twice keeps its last value, as json.Decoder's map
// does).
type jsonObject []jsonField

type jsonField struct {
	k string
	v any
}

// get returns the value of key k.
func (o jsonObject) get(k string) (any, bool) {
	i, ok := slices.BinarySearchFunc(o, k, func(f jsonField, k string) int { return strings.Compare(f.k, k) })
	if !ok {
		return nil, false
	}
	return o[i].v, true
}

// getString returns the value of key k when it is a string.
func (o jsonObject) getString(k string) (string, bool) {
	v, _ := o.get(k)
	s, ok := v.(string)
	return s, ok
}

// objectOf is the object of a map's fields (not copied deeper).
func objectOf(m map[string]any) jsonObject {
	o := make(jsonObject, 0, len(m))
	for k, v := range m {
		o = append(o, jsonField{k, v})
	}
	slices.SortFunc(o, func(a, b jsonField) int { return strings.Compare(a.k, b.k) })
	return o
}

// objectShape is the keys of the object decoded last at one depth, in the
// order written, and the order that sorts them: the objects of an array
// mostly write the same keys in the same order.
type objectShape struct {
	keys []string
	perm []int32
}

// shapeDepths is how many depths remember their last object's shape.
const shapeDepths = 8

// sorted sorts an object's fields (written in the order fs has them) by
// key, keeping the last of a key written twice: in the order the last
// object of its depth took when it has the same keys in the same order,
// else sorted (and that order remembered when no key repeats).
func (d *jsonDecoder) sorted(fs []jsonField) jsonObject {
	var sh *objectShape
	if d.depth < shapeDepths {
		sh = &d.shapes[d.depth]
	}
	if sh != nil && sh.perm != nil && len(sh.keys) == len(fs) {
		same := true
		for i := range fs {
			if fs[i].k != sh.keys[i] {
				same = false
				break
			}
		}
		if same {
			d.scratch = append(d.scratch[:0], fs...)
			for i, j := range sh.perm {
				fs[i] = d.scratch[j]
			}
			return fs
		}
	}
	perm := make([]int32, len(fs))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortStableFunc(perm, func(a, b int32) int { return strings.Compare(fs[a].k, fs[b].k) })
	// Of a key written twice the last (stable: the later one sorts later).
	out := perm[:0]
	for i, j := range perm {
		if i+1 < len(perm) && fs[perm[i+1]].k == fs[j].k {
			continue
		}
		out = append(out, j)
	}
	repeats := len(out) < len(fs)
	if sh != nil {
		sh.perm = nil
		if !repeats {
			sh.keys = sh.keys[:0]
			for _, f := range fs {
				sh.keys = append(sh.keys, f.k)
			}
			sh.perm = out
		}
	}
	d.scratch = append(d.scratch[:0], fs...)
	for i, j := range out {
		fs[i] = d.scratch[j]
	}
	clear(fs[len(out):])
	return fs[:len(out)]
}

func (d *jsonDecoder) array() (any, error) {
	if d.depth++; d.depth > jsonDepthMax {
		return nil, errJSON
	}
	d.i++ // [
	a := []any{}
	d.space()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		d.depth--
		return a, nil
	}
	for {
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		d.space()
		if d.i >= len(d.s) {
			return nil, errJSON
		}
		switch d.s[d.i] {
		case ',':
			d.i++
			d.space()
		case ']':
			d.i++
			d.depth--
			return a, nil
		default:
			return nil, errJSON
		}
	}
}

// number reads a number as JSON writes it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *jsonDecoder) number() (json.Number, error) {
	s, start := d.s, d.i
	i := d.i
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return "", errJSON
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return "", errJSON
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return "", errJSON
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	d.i = i
	return json.Number(s[start:i]), nil
}

// str reads a string. One without escapes or bytes that are not UTF-8 is
// a slice of the result; the others are unquoted as encoding/json does
// (a byte that is not UTF-8, or a lone surrogate, reads as U+FFFD).
func (d *jsonDecoder) str() (string, error) {
	s := d.s
	d.i++ // "
	start := d.i
	for i := start; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			d.i = i + 1
			return s[start:i], nil
		case c == '\\':
			return d.unquote(start, i)
		case c < 0x20:
			return "", errJSON
		case c < utf8.RuneSelf:
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				return d.unquote(start, i)
			}
			i += n
		}
	}
	return "", errJSON
}

// unquote reads the rest of a string from i, where its first escape or
// byte that is not UTF-8 is; s[start:i] is plain.
func (d *jsonDecoder) unquote(start, i int) (string, error) {
	s := d.s
	b := make([]byte, 0, i-start+16)
	b = append(b, s[start:i]...)
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			d.i = i + 1
			return string(b), nil
		case c < 0x20:
			return "", errJSON
		case c == '\\':
			if i+1 >= len(s) {
				return "", errJSON
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
				i += 2
			case 'b':
				b, i = append(b, '\b'), i+2
			case 'f':
				b, i = append(b, '\f'), i+2
			case 'n':
				b, i = append(b, '\n'), i+2
			case 'r':
				b, i = append(b, '\r'), i+2
			case 't':
				b, i = append(b, '\t'), i+2
			case 'u':
				r := hex4(s, i+2)
				if r < 0 {
					return "", errJSON
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// A pair, or the replacement rune for a lone half.
					if r2 := hex4u(s, i); r2 >= 0 {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							b = utf8.AppendRune(b, dec)
							i += 6
							break
						}
					}
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
			default:
				return "", errJSON
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			b = utf8.AppendRune(b, r)
			i += n
		}
	}
	return "", errJSON
}

// hex4 reads the four hex digits at s[i:], or returns -1.
func hex4(s string, i int) rune {
	if i+4 > len(s) {
		return -1
	}
	r, err := strconv.ParseUint(s[i:i+4], 16, 32)
	if err != nil {
		return -1
	}
	return rune(r)
}

// hex4u reads "\uXXXX" at s[i:], or returns -1.
func hex4u(s string, i int) rune {
	if i+6 > len(s) || s[i] != '\\' || s[i+1] != 'u' {
		return -1
	}
	return hex4(s, i+2)
}
