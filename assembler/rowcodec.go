package assembler

import (
	"encoding/binary"
	"math"

	"github.com/toolstream/toolstream/events"
)

// The call and response rows are written on the hot path (a call's when it
// opens and when it is decided, a response's whenever it changes), so they
// are encoded here by hand instead of by msgpack's reflection, byte for
// byte as msgpack.Marshal writes them (a struct as a map of its field
// names, omitempty fields left out, an int in its smallest form, uint8,
// uint64 and int64 in their full width): the view's bytes, and so its
// digests, do not change, and msgpack.Unmarshal reads them back
// (TestRowCodecIsMsgpack).

// rowAppender is a row encoded by hand.
type rowAppender interface {
	appendMsgpack(b []byte) []byte
}

var (
	_ rowAppender = (*call)(nil)
	_ rowAppender = (*response)(nil)
)

func (c *call) appendMsgpack(b []byte) []byte {
	n := 5 // ix, o, s, From, env always
	for _, set := range []bool{c.Name != "", c.CallID != "", c.Outcome != "", c.Overflow, c.Serial} {
		if set {
			n++
		}
	}
	b = mpMapLen(b, n)
	if c.Name != "" {
		b = mpString(mpString(b, "n"), c.Name)
	}
	if c.CallID != "" {
		b = mpString(mpString(b, "c"), c.CallID)
	}
	b = mpInt(mpString(b, "ix"), int64(c.Index))
	b = mpInt(mpString(b, "o"), int64(c.Order))
	b = append(mpString(b, "s"), 0xcc, byte(c.State))
	if c.Outcome != "" {
		b = mpString(mpString(b, "oc"), c.Outcome)
	}
	if c.Overflow {
		b = mpBool(mpString(b, "of"), true)
	}
	b = appendProvenance(mpString(b, "From"), &c.From)
	b = c.Env.appendMsgpack(mpString(b, "env"))
	if c.Serial {
		b = mpBool(mpString(b, "sr"), true)
	}
	return b
}

func appendProvenance(b []byte, p *events.Provenance) []byte {
	b = mpMapLen(b, 5)
	b = mpUint64(mpString(b, "fs"), p.FirstSeq)
	b = mpUint64(mpString(b, "ls"), p.LastSeq)
	b = mpInt(mpString(b, "nd"), int64(p.Deltas))
	b = mpInt(mpString(b, "nb"), int64(p.Bytes))
	return mpInt64(mpString(b, "oa"), p.OpenedAt)
}

func (e *envelope) appendMsgpack(b []byte) []byte {
	n := 0
	for _, s := range []string{e.User, e.Session, e.Run, e.Step} {
		if s != "" {
			n++
		}
	}
	b = mpMapLen(b, n)
	for _, f := range []struct{ k, v string }{{"u", e.User}, {"ss", e.Session}, {"run", e.Run}, {"st", e.Step}} {
		if f.v != "" {
			b = mpString(mpString(b, f.k), f.v)
		}
	}
	return b
}

func (r *response) appendMsgpack(b []byte) []byte {
	n := 4 // s, nc, nd, env always
	for _, set := range []bool{r.TextBytes != 0, r.Provider != "", r.ClientRuns, r.ToolsOnly, len(r.Tools) > 0} {
		if set {
			n++
		}
	}
	b = mpMapLen(b, n)
	b = mpString(mpString(b, "s"), r.Status)
	b = mpInt(mpString(b, "nc"), int64(r.Calls))
	b = mpInt(mpString(b, "nd"), int64(r.Decided))
	b = r.Env.appendMsgpack(mpString(b, "env"))
	if r.TextBytes != 0 {
		b = mpInt(mpString(b, "tb"), int64(r.TextBytes))
	}
	if r.Provider != "" {
		b = mpString(mpString(b, "p"), r.Provider)
	}
	if r.ClientRuns {
		b = mpBool(mpString(b, "cr"), true)
	}
	if r.ToolsOnly {
		b = mpBool(mpString(b, "to"), true)
	}
	if len(r.Tools) > 0 {
		b = mpArrayLen(mpString(b, "tl"), len(r.Tools))
		for _, t := range r.Tools {
			b = mpString(b, t)
		}
	}
	return b
}

func mpMapLen(b []byte, n int) []byte {
	switch {
	case n < 16:
		return append(b, 0x80|byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xde), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, 0xdf), uint32(n))
}

func mpArrayLen(b []byte, n int) []byte {
	switch {
	case n < 16:
		return append(b, 0x90|byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xdc), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, 0xdd), uint32(n))
}

func mpString(b []byte, s string) []byte {
	switch n := len(s); {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n < 256:
		b = append(b, 0xd9, byte(n))
	case n <= math.MaxUint16:
		b = binary.BigEndian.AppendUint16(append(b, 0xda), uint16(n))
	default:
		b = binary.BigEndian.AppendUint32(append(b, 0xdb), uint32(n))
	}
	return append(b, s...)
}

func mpBool(b []byte, v bool) []byte {
	if v {
		return append(b, 0xc3)
	}
	return append(b, 0xc2)
}

// mpUint is msgpack's EncodeUint: the smallest form.
func mpUint(b []byte, n uint64) []byte {
	switch {
	case n <= math.MaxInt8:
		return append(b, byte(n))
	case n <= math.MaxUint8:
		return append(b, 0xcc, byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(n))
	case n <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(n))
	}
	return mpUint64(b, n)
}

// mpInt is msgpack's EncodeInt (an int field): the smallest form.
func mpInt(b []byte, n int64) []byte {
	switch {
	case n >= 0:
		return mpUint(b, uint64(n))
	case n >= -32:
		return append(b, byte(n))
	case n >= math.MinInt8:
		return append(b, 0xd0, byte(n))
	case n >= math.MinInt16:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(n))
	case n >= math.MinInt32:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(n))
	}
	return mpInt64(b, n)
}

// mpUint64 and mpInt64 are a uint64 and an int64 field: full width.
func mpUint64(b []byte, n uint64) []byte { return binary.BigEndian.AppendUint64(append(b, 0xcf), n) }

func mpInt64(b []byte, n int64) []byte {
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
}
