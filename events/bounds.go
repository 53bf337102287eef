package events

import (
	"encoding/binary"

	"github.com/toolstream/toolstream/internal/mpack"
)

// Decoding has a budget. The msgpack decoder allocates what a length
// prefix declares before it reads the values (a 5-byte array header may
// declare four billion elements; msgpack v5 caps strings and maps but not
// slices of structs), and it recurses once per nesting level. So before
// any of it runs, checkBounds walks the bytes without building anything and
// refuses an input whose declared lengths do not fit in the bytes that
// remain, that nests deeper than nestingMax, or whose arrays and maps hold
// more than containerValuesMax values in all. What the decoder may then
// allocate is bounded by the input's size times a small constant.

const (
	// nestingMax bounds the nesting of arrays and maps in an event: the
	// catalogue's bodies nest a few levels.
	nestingMax = 32
	// containerValuesMax bounds the values (array elements, map keys and
	// values) of one event.
	containerValuesMax = 1 << 16
)

// checkBounds reports whether d is a sequence of well-formed msgpack values
// within the bounds above.
func checkBounds(d []byte) bool {
	var open [nestingMax]int // values still to read in each open container
	depth, values := 0, 0
	off := 0
	for off < len(d) {
		c := d[off]
		off++
		var skip, n int // bytes of the value to skip; values it contains
		switch {
		case c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3:
		case c&0xf0 == 0x80:
			n = 2 * int(c&0x0f)
		case c&0xf0 == 0x90:
			n = int(c & 0x0f)
		case c&0xe0 == 0xa0:
			skip = int(c & 0x1f)
		default:
			var size, extra int // size of the length field; bytes after it
			switch c {
			case 0xc4, 0xd9:
				size = 1
			case 0xc5, 0xda:
				size = 2
			case 0xc6, 0xdb:
				size = 4
			case 0xc7:
				size, extra = 1, 1
			case 0xc8:
				size, extra = 2, 1
			case 0xc9:
				size, extra = 4, 1
			case 0xca:
				skip = 4
			case 0xcb:
				skip = 8
			case 0xcc, 0xcd, 0xce, 0xcf, 0xd0, 0xd1, 0xd2, 0xd3:
				skip = mpack.IntSize(c)
			case 0xd4, 0xd5, 0xd6, 0xd7, 0xd8: // fixext 1, 2, 4, 8, 16 and the type byte
				skip = 1 + 1<<(c-0xd4)
			case 0xdc, 0xde:
				size = 2
			case 0xdd, 0xdf:
				size = 4
			default: // 0xc1: never used
				return false
			}
			if size > 0 {
				if size > len(d)-off {
					return false
				}
				var l int
				switch size {
				case 1:
					l = int(d[off])
				case 2:
					l = int(binary.BigEndian.Uint16(d[off:]))
				default:
					l = int(binary.BigEndian.Uint32(d[off:]))
				}
				off += size
				switch c {
				case 0xdc, 0xdd:
					n = l
				case 0xde, 0xdf:
					n = 2 * l
				default:
					skip = l + extra
				}
			}
		}
		if skip > len(d)-off {
			return false
		}
		off += skip
		if depth > 0 {
			open[depth-1]--
		}
		if n > 0 {
			values += n
			if n > len(d)-off || values > containerValuesMax || depth == nestingMax {
				return false
			}
			open[depth] = n
			depth++
		}
		for depth > 0 && open[depth-1] == 0 {
			depth--
		}
	}
	return depth == 0
}
