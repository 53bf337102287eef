package mpack

import (
	"encoding/binary"
	"math"
)

// AppendMapLen appends a map header of n entries.
func AppendMapLen(b []byte, n int) []byte {
	switch {
	case n < 16:
		return append(b, 0x80|byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xde), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, 0xdf), uint32(n))
}

// AppendStr appends s as a msgpack str.
func AppendStr(b []byte, s string) []byte {
	switch l := len(s); {
	case l < 32:
		b = append(b, 0xa0|byte(l))
	case l < 256:
		b = append(b, 0xd9, byte(l))
	case l <= math.MaxUint16:
		b = binary.BigEndian.AppendUint16(append(b, 0xda), uint16(l))
	default:
		b = binary.BigEndian.AppendUint32(append(b, 0xdb), uint32(l))
	}
	return append(b, s...)
}

// AppendBinLen appends the header of a bin of l bytes (the bytes follow).
func AppendBinLen(b []byte, l int) []byte {
	switch {
	case l < 256:
		return append(b, 0xc4, byte(l))
	case l <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xc5), uint16(l))
	}
	return binary.BigEndian.AppendUint32(append(b, 0xc6), uint32(l))
}

// AppendInt appends n in msgpack's most compact integer form (an int
// field).
func AppendInt(b []byte, n int64) []byte {
	if n >= 0 {
		switch u := uint64(n); {
		case u <= math.MaxInt8:
			return append(b, byte(u))
		case u <= math.MaxUint8:
			return append(b, 0xcc, byte(u))
		case u <= math.MaxUint16:
			return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(u))
		case u <= math.MaxUint32:
			return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(u))
		default:
			return AppendUint64(b, u)
		}
	}
	switch {
	case n >= -32:
		return append(b, byte(n))
	case n >= math.MinInt8:
		return append(b, 0xd0, byte(n))
	case n >= math.MinInt16:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(n))
	case n >= math.MinInt32:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(n))
	}
	return AppendInt64(b, n)
}

// AppendInt64 appends n in msgpack's 9-byte int64 form (an int64 field).
func AppendInt64(b []byte, n int64) []byte {
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
}

// AppendUint64 appends n in msgpack's 9-byte uint64 form (a uint64 field).
func AppendUint64(b []byte, n uint64) []byte {
	return binary.BigEndian.AppendUint64(append(b, 0xcf), n)
}

// ReadMapLen reads a map header (fixmap or map16) at off.
func ReadMapLen(d []byte, off int) (n, next int, ok bool) {
	if off < 0 || off >= len(d) {
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

// ReadBin reads a bin at off: its bytes (a slice of d).
func ReadBin(d []byte, off int) ([]byte, int, bool) {
	if off < 0 || off >= len(d) {
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
	return span(d, off+h, n)
}

// ReadStr reads a str at off: its bytes (a slice of d).
func ReadStr(d []byte, off int) ([]byte, int, bool) {
	if off < 0 || off >= len(d) {
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
	return span(d, off+h, n)
}

func span(d []byte, start, n int) ([]byte, int, bool) {
	if n < 0 || start+n > len(d) || start+n < start {
		return nil, 0, false
	}
	return d[start : start+n], start + n, true
}

// ReadInt reads any msgpack integer at off that fits an int64.
func ReadInt(d []byte, off int) (int64, int, bool) {
	if off < 0 || off >= len(d) {
		return 0, 0, false
	}
	c := d[off]
	switch {
	case c <= 0x7f:
		return int64(c), off + 1, true
	case c >= 0xe0:
		return int64(int8(c)), off + 1, true
	}
	size := IntSize(c)
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

// IntSize is the size of the integer after a msgpack uint or int code
// (0xcc…0xd3), 0 for any other code.
func IntSize(c byte) int {
	switch c {
	case 0xcc, 0xd0:
		return 1
	case 0xcd, 0xd1:
		return 2
	case 0xce, 0xd2:
		return 4
	case 0xcf, 0xd3:
		return 8
	}
	return 0
}

// AppendArrayLen appends an array header of n elements.
func AppendArrayLen(b []byte, n int) []byte {
	switch {
	case n < 16:
		return append(b, 0x90|byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xdc), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, 0xdd), uint32(n))
}

// AppendBool appends v as a msgpack bool.
func AppendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 0xc3)
	}
	return append(b, 0xc2)
}

// AppendBytes appends p as msgpack's encoder writes a []byte: nil as nil,
// anything else (empty too) as a bin.
func AppendBytes(b []byte, p []byte) []byte {
	if p == nil {
		return append(b, 0xc0)
	}
	return append(AppendBinLen(b, len(p)), p...)
}

// ReadArrayLen reads an array header (fixarray, array16 or array32) at
// off; n is -1 for a nil.
func ReadArrayLen(d []byte, off int) (n, next int, ok bool) {
	if off < 0 || off >= len(d) {
		return 0, 0, false
	}
	switch c := d[off]; {
	case c&0xf0 == 0x90:
		return int(c & 0x0f), off + 1, true
	case c == 0xc0:
		return -1, off + 1, true
	case c == 0xdc && off+3 <= len(d):
		return int(binary.BigEndian.Uint16(d[off+1:])), off + 3, true
	case c == 0xdd && off+5 <= len(d):
		n := binary.BigEndian.Uint32(d[off+1:])
		if uint64(n) > uint64(len(d)-off-5) { // every element takes a byte at least
			return 0, 0, false
		}
		return int(n), off + 5, true
	}
	return 0, 0, false
}

// ReadBool reads a msgpack bool at off.
func ReadBool(d []byte, off int) (v bool, next int, ok bool) {
	if off < 0 || off >= len(d) {
		return false, 0, false
	}
	switch d[off] {
	case 0xc2:
		return false, off + 1, true
	case 0xc3:
		return true, off + 1, true
	}
	return false, 0, false
}

// ReadUint reads any msgpack integer at off that is not negative, and a
// uint64 in its full width.
func ReadUint(d []byte, off int) (uint64, int, bool) {
	if off >= 0 && off+9 <= len(d) && d[off] == 0xcf {
		return binary.BigEndian.Uint64(d[off+1:]), off + 9, true
	}
	n, next, ok := ReadInt(d, off)
	if !ok || n < 0 {
		return 0, 0, false
	}
	return uint64(n), next, true
}

// AppendFixMap appends the header of a map of fewer than 16 entries whose
// count is known only once they are written (a struct's omitempty
// fields): it returns b and the header's offset, for SetFixMapLen.
func AppendFixMap(b []byte) ([]byte, int) {
	return append(b, 0x80), len(b)
}

// SetFixMapLen sets the count of the fixmap header at at (AppendFixMap) to
// n, which must be below 16.
func SetFixMapLen(b []byte, at, n int) {
	b[at] = 0x80 | byte(n)
}

// ReadFloat32 reads a float32 at off.
func ReadFloat32(d []byte, off int) (float32, int, bool) {
	if off < 0 || off+5 > len(d) || d[off] != 0xca {
		return 0, 0, false
	}
	return math.Float32frombits(binary.BigEndian.Uint32(d[off+1:])), off + 5, true
}
