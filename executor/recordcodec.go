package executor

import (
	"encoding/binary"

	"github.com/toolstream/toolstream/internal/mpack"
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
			b = mpack.AppendStr(mpack.AppendStr(b, key), v)
			n++
		}
	}
	integer := func(key string, v int64) {
		if v != 0 {
			b = mpack.AppendInt(mpack.AppendStr(b, key), v)
			n++
		}
	}
	b = mpack.AppendStr(mpack.AppendStr(b, "k"), r.Key)
	b = mpack.AppendStr(mpack.AppendStr(b, "s"), r.State)
	n += 2
	str("n", r.Name)
	integer("ver", int64(r.Version))
	if r.InputSeq != 0 {
		b = mpack.AppendUint64(mpack.AppendStr(b, "in"), r.InputSeq)
		n++
	}
	str("r", r.Response)
	str("i", r.Item)
	str("o", r.Owner)
	if r.LeaseUntil != 0 {
		b = mpack.AppendInt64(mpack.AppendStr(b, "lu"), r.LeaseUntil)
		n++
	}
	integer("a", int64(r.Attempt))
	integer("f", int64(r.Failed))
	if r.Invoked {
		b = append(mpack.AppendStr(b, "iv"), 0xc3)
		n++
	}
	integer("to", int64(r.Takeovers))
	str("ap", r.Approval)
	str("apb", r.ApprovalBy)
	str("apr", r.ApprovalReason)
	if o := r.Outcome; o != nil {
		n++
		b = mpack.AppendStr(b, "out")
		n := 3 // s, id, d
		if o.Error != "" {
			n++
		}
		if o.Message != "" {
			n++
		}
		b = mpack.AppendMapLen(b, n)
		b = mpack.AppendStr(mpack.AppendStr(b, "s"), o.Subject)
		b = mpack.AppendStr(mpack.AppendStr(b, "id"), o.ID)
		b = mpack.AppendStr(b, "d")
		if o.Data == nil {
			b = append(b, 0xc0)
		} else {
			b = mpack.AppendBinLen(b, len(o.Data))
			b = append(b, o.Data...)
		}
		if o.Error != "" {
			b = mpack.AppendStr(mpack.AppendStr(b, "e"), string(o.Error))
		}
		if o.Message != "" {
			b = mpack.AppendStr(mpack.AppendStr(b, "m"), o.Message)
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
