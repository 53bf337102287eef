package events

import (
	"encoding/binary"
	"math"
)

// decodeEnvelope reads the envelope from the front of data without
// reflection: the canonical layout Encode writes (a map of short string
// keys to strings and integers). It returns the offset of the body, and
// ok=false for anything else (an unknown key, another value type, a
// truncation), which Decode then hands to the general decoder, so both
// accept and refuse exactly the same inputs.
func decodeEnvelope(data []byte, ev *Event) (off int, ok bool) {
	n, off, ok := mapLen(data, 0)
	if !ok {
		return 0, false
	}
	for range n {
		var key []byte
		if key, off, ok = str(data, off); !ok {
			return 0, false
		}
		switch string(key) {
		case "id", "k", "t", "u", "ss", "run", "st", "r", "i", "c", "cz", "kx":
			var v []byte
			if v, off, ok = str(data, off); !ok {
				return 0, false
			}
			switch string(key) {
			case "id":
				ev.ID = string(v)
			case "k":
				ev.Kind = kindOf(v)
			case "t":
				ev.Tenant = string(v)
			case "u":
				ev.User = string(v)
			case "ss":
				ev.Session = string(v)
			case "run":
				ev.Run = string(v)
			case "st":
				ev.Step = string(v)
			case "r":
				ev.Response = string(v)
			case "i":
				ev.Item = string(v)
			case "c":
				ev.CallID = string(v)
			case "cz":
				ev.Causation = string(v)
			case "kx":
				ev.Sealed = string(v)
			}
		case "v":
			var x int64
			if x, off, ok = integer(data, off); !ok || x < 0 || x > math.MaxUint16 {
				return 0, false
			}
			ev.V = uint16(x)
		case "at":
			if ev.At, off, ok = integer(data, off); !ok {
				return 0, false
			}
		default:
			return 0, false
		}
	}
	return off, true
}

// decodeDelta reads an ArgumentsDelta body in its canonical layout (a map
// holding "d") when it is all that is left of data, for a valid envelope of
// that kind; ok=false leaves it to the general decoder.
func decodeDelta(ev *Event, body []byte) (Body, bool) {
	if ev.Kind != KindArgumentsDelta || ev.V != 1 || ValidTenant(ev.Tenant) != nil {
		return nil, false
	}
	n, off, ok := mapLen(body, 0)
	if !ok || n != 1 {
		return nil, false
	}
	key, off, ok := str(body, off)
	if !ok || string(key) != "d" {
		return nil, false
	}
	v, off, ok := str(body, off)
	if !ok || off != len(body) {
		return nil, false
	}
	return &ArgumentsDelta{Delta: string(v)}, true
}

// kindNames maps each known kind's name to the kind, so decoding one does
// not copy it. Derived from the catalogue; never written afterwards.
var kindNames = func() map[string]Kind {
	m := make(map[string]Kind, len(catalogue))
	for k := range catalogue {
		m[string(k)] = k
	}
	return m
}()

// kindOf returns the kind named b.
func kindOf(b []byte) Kind {
	if k, ok := kindNames[string(b)]; ok {
		return k
	}
	return Kind(b)
}

func mapLen(d []byte, off int) (int, int, bool) {
	if off >= len(d) {
		return 0, 0, false
	}
	switch c := d[off]; {
	case c&0xf0 == 0x80:
		return int(c & 0x0f), off + 1, true
	case c == 0xde && off+3 <= len(d):
		return int(binary.BigEndian.Uint16(d[off+1:])), off + 3, true
	}
	return 0, 0, false
}

// bin reads a msgpack bin at off.
func bin(d []byte, off int) ([]byte, int, bool) {
	if off >= len(d) {
		return nil, 0, false
	}
	var n, h int
	switch c := d[off]; {
	case c == 0xc4 && off+2 <= len(d):
		n, h = int(d[off+1]), 2
	case c == 0xc5 && off+3 <= len(d):
		n, h = int(binary.BigEndian.Uint16(d[off+1:])), 3
	case c == 0xc6 && off+5 <= len(d):
		n, h = int(binary.BigEndian.Uint32(d[off+1:])), 5
	default:
		return nil, 0, false
	}
	start := off + h
	if n < 0 || start+n > len(d) {
		return nil, 0, false
	}
	return d[start : start+n], start + n, true
}

func str(d []byte, off int) ([]byte, int, bool) {
	if off >= len(d) {
		return nil, 0, false
	}
	var n, h int
	switch c := d[off]; {
	case c&0xe0 == 0xa0:
		n, h = int(c&0x1f), 1
	case c == 0xd9 && off+2 <= len(d):
		n, h = int(d[off+1]), 2
	case c == 0xda && off+3 <= len(d):
		n, h = int(binary.BigEndian.Uint16(d[off+1:])), 3
	case c == 0xdb && off+5 <= len(d):
		n, h = int(binary.BigEndian.Uint32(d[off+1:])), 5
	default:
		return nil, 0, false
	}
	start := off + h
	if n < 0 || start+n > len(d) {
		return nil, 0, false
	}
	return d[start : start+n], start + n, true
}

func integer(d []byte, off int) (int64, int, bool) {
	if off >= len(d) {
		return 0, 0, false
	}
	c := d[off]
	switch {
	case c <= 0x7f:
		return int64(c), off + 1, true
	case c >= 0xe0:
		return int64(int8(c)), off + 1, true
	}
	size := intSize(c)
	if size == 0 || off+1+size > len(d) {
		return 0, 0, false
	}
	b := d[off+1 : off+1+size]
	switch c {
	case 0xcc:
		return int64(b[0]), off + 2, true
	case 0xcd:
		return int64(binary.BigEndian.Uint16(b)), off + 3, true
	case 0xce:
		return int64(binary.BigEndian.Uint32(b)), off + 5, true
	case 0xcf:
		u := binary.BigEndian.Uint64(b)
		if u > math.MaxInt64 {
			return 0, 0, false
		}
		return int64(u), off + 9, true
	case 0xd0:
		return int64(int8(b[0])), off + 2, true
	case 0xd1:
		return int64(int16(binary.BigEndian.Uint16(b))), off + 3, true
	case 0xd2:
		return int64(int32(binary.BigEndian.Uint32(b))), off + 5, true
	default: // 0xd3
		return int64(binary.BigEndian.Uint64(b)), off + 9, true
	}
}
