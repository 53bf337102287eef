package assembler

import (
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/mpack"
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
	b, at := mpack.AppendFixMap(b)
	n := 5 // ix, o, s, From, env always
	if c.Name != "" {
		b = mpack.AppendStr(mpack.AppendStr(b, "n"), c.Name)
		n++
	}
	if c.CallID != "" {
		b = mpack.AppendStr(mpack.AppendStr(b, "c"), c.CallID)
		n++
	}
	b = mpack.AppendInt(mpack.AppendStr(b, "ix"), int64(c.Index))
	b = mpack.AppendInt(mpack.AppendStr(b, "o"), int64(c.Order))
	b = append(mpack.AppendStr(b, "s"), 0xcc, byte(c.State))
	if c.Outcome != "" {
		b = mpack.AppendStr(mpack.AppendStr(b, "oc"), c.Outcome)
		n++
	}
	if c.Overflow {
		b = mpack.AppendBool(mpack.AppendStr(b, "of"), true)
		n++
	}
	b = appendProvenance(mpack.AppendStr(b, "From"), &c.From)
	b = c.Env.appendMsgpack(mpack.AppendStr(b, "env"))
	if c.Serial {
		b = mpack.AppendBool(mpack.AppendStr(b, "sr"), true)
		n++
	}
	mpack.SetFixMapLen(b, at, n)
	return b
}

func appendProvenance(b []byte, p *events.Provenance) []byte {
	b = mpack.AppendMapLen(b, 5)
	b = mpack.AppendUint64(mpack.AppendStr(b, "fs"), p.FirstSeq)
	b = mpack.AppendUint64(mpack.AppendStr(b, "ls"), p.LastSeq)
	b = mpack.AppendInt(mpack.AppendStr(b, "nd"), int64(p.Deltas))
	b = mpack.AppendInt(mpack.AppendStr(b, "nb"), int64(p.Bytes))
	return mpack.AppendInt64(mpack.AppendStr(b, "oa"), p.OpenedAt)
}

func (e *envelope) appendMsgpack(b []byte) []byte {
	b, at := mpack.AppendFixMap(b)
	n := 0
	for _, f := range []struct{ k, v string }{{"u", e.User}, {"ss", e.Session}, {"run", e.Run}, {"st", e.Step}} {
		if f.v != "" {
			b = mpack.AppendStr(mpack.AppendStr(b, f.k), f.v)
			n++
		}
	}
	mpack.SetFixMapLen(b, at, n)
	return b
}

func (r *response) appendMsgpack(b []byte) []byte {
	b, at := mpack.AppendFixMap(b)
	n := 4 // s, nc, nd, env always
	b = mpack.AppendStr(mpack.AppendStr(b, "s"), r.Status)
	b = mpack.AppendInt(mpack.AppendStr(b, "nc"), int64(r.Calls))
	b = mpack.AppendInt(mpack.AppendStr(b, "nd"), int64(r.Decided))
	b = r.Env.appendMsgpack(mpack.AppendStr(b, "env"))
	if r.TextBytes != 0 {
		b = mpack.AppendInt(mpack.AppendStr(b, "tb"), int64(r.TextBytes))
		n++
	}
	if r.Provider != "" {
		b = mpack.AppendStr(mpack.AppendStr(b, "p"), r.Provider)
		n++
	}
	if r.ClientRuns {
		b = mpack.AppendBool(mpack.AppendStr(b, "cr"), true)
		n++
	}
	if r.ToolsOnly {
		b = mpack.AppendBool(mpack.AppendStr(b, "to"), true)
		n++
	}
	if len(r.Tools) > 0 {
		b = mpack.AppendArrayLen(mpack.AppendStr(b, "tl"), len(r.Tools))
		for _, t := range r.Tools {
			b = mpack.AppendStr(b, t)
		}
		n++
	}
	mpack.SetFixMapLen(b, at, n)
	return b
}
