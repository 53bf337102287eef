package executor

import (
	"encoding/binary"
	"math"
)

// marshal encodes r exactly as msgpack.Marshal(r) does (a map of the
// fields' tags in declaration order, empty omitempty fields left out,
// int64 and uint64 in 9 bytes, int compact), in one allocation and
// without reflection: a record is encoded at every write of every call.
// TestRecordMarshalParity holds it to msgpack.Marshal; records are still
// read with msgpack.Unmarshal.
func (r *record) marshal() []byte {
	// Fields are written after room for a map16 header and counted as they
	// go; the header goes in front at the end (fixmap when it fits, as
	// msgpack writes it), so no second list of the fields decides it.
	b := make([]byte, 3, 3+r.size())
	n := 0
	str := func(key, v string) {
		if v != "" {
			b = appendStr(appendStr(b, key), v)
			n++
		}
	}
	integer := func(key string, v int64) {
		if v != 0 {
			b = appendInt(appendStr(b, key), v)
			n++
		}
	}
	b = appendStr(appendStr(b, "k"), r.Key)
	b = appendStr(appendStr(b, "s"), r.State)
	n += 2
	str("n", r.Name)
	integer("ver", int64(r.Version))
	if r.InputSeq != 0 {
		b = appendUint64(appendStr(b, "in"), r.InputSeq)
		n++
	}
	str("r", r.Response)
	str("i", r.Item)
	str("o", r.Owner)
	if r.LeaseUntil != 0 {
		b = appendInt64(appendStr(b, "lu"), r.LeaseUntil)
		n++
	}
	integer("a", int64(r.Attempt))
	integer("f", int64(r.Failed))
	if r.Invoked {
		b = append(appendStr(b, "iv"), 0xc3)
		n++
	}
	integer("to", int64(r.Takeovers))
	str("ap", r.Approval)
	str("apb", r.ApprovalBy)
	str("apr", r.ApprovalReason)
	if o := r.Outcome; o != nil {
		n++
		b = appendStr(b, "out")
		n := 3 // s, id, d
		if o.Error != "" {
			n++
		}
		if o.Message != "" {
			n++
		}
		b = appendMapLen(b, n)
		b = appendStr(appendStr(b, "s"), o.Subject)
		b = appendStr(appendStr(b, "id"), o.ID)
		b = appendStr(b, "d")
		if o.Data == nil {
			b = append(b, 0xc0)
		} else {
			b = appendBinLen(b, len(o.Data))
			b = append(b, o.Data...)
		}
		if o.Error != "" {
			b = appendStr(appendStr(b, "e"), string(o.Error))
		}
		if o.Message != "" {
			b = appendStr(appendStr(b, "m"), o.Message)
		}
	}
	if n < 16 {
		b[2] = 0x80 | byte(n)
		return b[2:]
	}
	b[0] = 0xde
	binary.BigEndian.PutUint16(b[1:3], uint16(n))
	return b
}

// size bounds the encoded size of r from above.
func (r *record) size() int {
	n := 3 + 64 + 9*6 + // map header, keys and their headers, numbers
		len(r.Key) + len(r.State) + len(r.Name) + len(r.Response) + len(r.Item) + len(r.Owner) +
		len(r.Approval) + len(r.ApprovalBy) + len(r.ApprovalReason) + 5*9
	if o := r.Outcome; o != nil {
		n += 3 + 16 + len(o.Subject) + len(o.ID) + len(o.Data) + len(o.Error) + len(o.Message) + 5*5
	}
	return n
}

func appendMapLen(b []byte, n int) []byte {
	switch {
	case n < 16:
		return append(b, 0x80|byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xde), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, 0xdf), uint32(n))
}

func appendStr(b []byte, s string) []byte {
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

func appendBinLen(b []byte, l int) []byte {
	switch {
	case l < 256:
		return append(b, 0xc4, byte(l))
	case l <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xc5), uint16(l))
	}
	return binary.BigEndian.AppendUint32(append(b, 0xc6), uint32(l))
}

// appendInt is msgpack's compact integer (an int field).
func appendInt(b []byte, n int64) []byte {
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
			return appendUint64(b, u)
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
	return appendInt64(b, n)
}

// appendInt64 and appendUint64 are msgpack's 9-byte forms (int64 and
// uint64 fields).
func appendInt64(b []byte, n int64) []byte {
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
}

func appendUint64(b []byte, n uint64) []byte {
	return binary.BigEndian.AppendUint64(append(b, 0xcf), n)
}
