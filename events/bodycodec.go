package events

import (
	"github.com/toolstream/toolstream/internal/mpack"
)

// The executor's hot bodies are encoded and decoded here by hand instead
// of by msgpack's reflection: every call an executor runs decodes one
// CallCompleted and encodes one CallSucceeded or CallFailed, and the
// reflection (its struct cache, omitempty checks and per-field decoders)
// was most of what events cost it.
//
// Encoding writes byte for byte what msgpack.Marshal writes for the body (a
// struct as a map of its field names in declared order, omitempty fields
// left out, an int in its smallest form, a time.Duration as a 9-byte int64,
// a nil []byte as nil): stored bytes, sealed bytes and digests do not move
// (TestBodyCodecIsMsgpack).
//
// Decoding reads the layout the encoder writes, and only that: a key it
// does not know, a key twice, a value of another msgpack type (a nil
// string, a str where a bin is written, a map32) or anything after the body
// returns ok=false, and DecodeWith then hands the body to msgpack's
// decoder, which decides it as before. So both accept and refuse exactly
// the same inputs, and where the fast path answers it answers what msgpack
// would (TestBodyDecoderIsMsgpack, FuzzBodyDecoder).
//
// The hand decoder runs before checkBounds and keeps its budget itself, so
// DecodeWith walks a body it reads only once: every length is read against
// the bytes that remain (a bin or str by mpack's span, an array of str
// refuses more elements than bytes left before anything is made), a map's
// entries are never made up front (at most one of each known key), it
// nests three deep at most, and a body of more than containerValuesMax
// array and map values returns ok=false — which checkBounds then refuses.
// So a body it accepts is one checkBounds accepts, and one it does not is
// walked by checkBounds before msgpack sees it. Only a body of more than
// containerValuesMax bytes can exceed the values budget, and DecodeWith
// walks such a body first, so that it is refused before any of its arrays
// is made (TestHandDecoderKeepsTheBudget).

// bodyAppender is a body encoded by hand.
type bodyAppender interface {
	appendMsgpack(b []byte) []byte
}

var (
	_ bodyAppender = (*CallSucceeded)(nil)
	_ bodyAppender = (*CallFailed)(nil)
	_ bodyAppender = (*ExecutionStarted)(nil)
	_ bodyAppender = (*StreamFrames)(nil)
	_ bodyAppender = (*CallCompleted)(nil)
)

// appendMsgpack: the assembler encodes one CallCompleted for every call it
// decides, and msgpack's reflection was 14 % of its Apply's CPU.
func (c *CallCompleted) appendMsgpack(b []byte) []byte {
	b, at := mpack.AppendFixMap(b)
	n := 5 // n, ix, a, o, pv always
	b = mpack.AppendStr(mpack.AppendStr(b, "n"), c.Name)
	b = mpack.AppendInt(mpack.AppendStr(b, "ix"), int64(c.Index))
	b = mpack.AppendBytes(mpack.AppendStr(b, "a"), c.Arguments)
	for _, f := range []struct {
		k string
		v []string
	}{{"co", c.Coerced}, {"rp", c.Repaired}, {"do", c.DependsOn}} {
		if len(f.v) > 0 {
			b = appendStrs(mpack.AppendStr(b, f.k), f.v)
			n++
		}
	}
	b = mpack.AppendInt(mpack.AppendStr(b, "o"), int64(c.Order))
	p := &c.From
	b = mpack.AppendMapLen(mpack.AppendStr(b, "pv"), 5)
	b = mpack.AppendUint64(mpack.AppendStr(b, "fs"), p.FirstSeq)
	b = mpack.AppendUint64(mpack.AppendStr(b, "ls"), p.LastSeq)
	b = mpack.AppendInt(mpack.AppendStr(b, "nd"), int64(p.Deltas))
	b = mpack.AppendInt(mpack.AppendStr(b, "nb"), int64(p.Bytes))
	b = mpack.AppendInt64(mpack.AppendStr(b, "oa"), p.OpenedAt)
	if len(c.After) > 0 {
		b = appendStrs(mpack.AppendStr(b, "af"), c.After)
		n++
	}
	if c.ClientRuns {
		b = mpack.AppendBool(mpack.AppendStr(b, "cr"), true)
		n++
	}
	if c.Builtin {
		b = mpack.AppendBool(mpack.AppendStr(b, "bi"), true)
		n++
	}
	mpack.SetFixMapLen(b, at, n)
	return b
}

// appendStrs appends ss as msgpack writes a []string.
func appendStrs(b []byte, ss []string) []byte {
	b = mpack.AppendArrayLen(b, len(ss))
	for _, s := range ss {
		b = mpack.AppendStr(b, s)
	}
	return b
}

func (s *CallSucceeded) appendMsgpack(b []byte) []byte {
	b, at := mpack.AppendFixMap(b)
	n := 4 // n, k, sum, na always
	b = mpack.AppendStr(mpack.AppendStr(b, "n"), s.Name)
	if s.Version != 0 {
		b = mpack.AppendInt(mpack.AppendStr(b, "ver"), int64(s.Version))
		n++
	}
	b = mpack.AppendStr(mpack.AppendStr(b, "k"), s.Key)
	if len(s.Result) > 0 {
		b = mpack.AppendBytes(mpack.AppendStr(b, "res"), s.Result)
		n++
	}
	b = mpack.AppendStr(mpack.AppendStr(b, "sum"), s.Summary)
	if s.RawRef != "" {
		b = mpack.AppendStr(mpack.AppendStr(b, "ref"), s.RawRef)
		n++
	}
	if len(s.Excerpt) > 0 {
		b = mpack.AppendBytes(mpack.AppendStr(b, "xc"), s.Excerpt)
		n++
	}
	if len(s.Cuts) > 0 {
		b = mpack.AppendArrayLen(mpack.AppendStr(b, "cut"), len(s.Cuts))
		for i := range s.Cuts {
			c := &s.Cuts[i]
			b = mpack.AppendMapLen(b, 3)
			b = mpack.AppendStr(mpack.AppendStr(b, "p"), c.Pointer)
			b = mpack.AppendInt(mpack.AppendStr(b, "n"), int64(c.Len))
			b = mpack.AppendInt(mpack.AppendStr(b, "k"), int64(c.Kept))
		}
		n++
	}
	b = mpack.AppendInt(mpack.AppendStr(b, "na"), int64(s.Attempts))
	if s.FreshFor != 0 {
		b = mpack.AppendInt64(mpack.AppendStr(b, "ff"), int64(s.FreshFor))
		n++
	}
	mpack.SetFixMapLen(b, at, n)
	return b
}

func (f *CallFailed) appendMsgpack(b []byte) []byte {
	b, at := mpack.AppendFixMap(b)
	n := 5 // n, k, e, m, na always
	b = mpack.AppendStr(mpack.AppendStr(b, "n"), f.Name)
	if f.Version != 0 {
		b = mpack.AppendInt(mpack.AppendStr(b, "ver"), int64(f.Version))
		n++
	}
	b = mpack.AppendStr(mpack.AppendStr(b, "k"), f.Key)
	b = mpack.AppendStr(mpack.AppendStr(b, "e"), string(f.Error))
	b = mpack.AppendStr(mpack.AppendStr(b, "m"), f.Message)
	b = mpack.AppendInt(mpack.AppendStr(b, "na"), int64(f.Attempts))
	mpack.SetFixMapLen(b, at, n)
	return b
}

func (s *ExecutionStarted) appendMsgpack(b []byte) []byte {
	b, at := mpack.AppendFixMap(b)
	n := 4 // n, at, ex, k always
	b = mpack.AppendStr(mpack.AppendStr(b, "n"), s.Name)
	if s.Version != 0 {
		b = mpack.AppendInt(mpack.AppendStr(b, "ver"), int64(s.Version))
		n++
	}
	b = mpack.AppendInt(mpack.AppendStr(b, "at"), int64(s.Attempt))
	b = mpack.AppendStr(mpack.AppendStr(b, "ex"), s.Executor)
	b = mpack.AppendStr(mpack.AppendStr(b, "k"), s.Key)
	mpack.SetFixMapLen(b, at, n)
	return b
}

// decodeBodyFast decodes a body of kind by hand when it is in the layout
// the encoder writes; ok=false leaves it to msgpack's decoder.
func decodeBodyFast(kind Kind, d []byte) (Body, bool) {
	switch kind {
	case KindCallCompleted:
		return decodeCallCompleted(d)
	}
	return nil, false
}

// decodeCallCompleted reads a CallCompleted map (see above: ok=false for
// anything else).
func decodeCallCompleted(d []byte) (Body, bool) {
	n, off, ok := mpack.ReadMapLen(d, 0)
	if !ok {
		return nil, false
	}
	c := new(CallCompleted)
	var seen uint32
	values := 2 * n // as checkBounds counts them: a map's keys and values, an array's elements
	if values > containerValuesMax {
		return nil, false
	}
	for range n {
		var key []byte
		if key, off, ok = mpack.ReadStr(d, off); !ok {
			return nil, false
		}
		var bit uint32
		switch string(key) {
		case "n":
			bit = 1 << 0
			c.Name, off, ok = readString(d, off)
		case "ix":
			bit = 1 << 1
			c.Index, off, ok = readInt(d, off)
		case "a":
			bit = 1 << 2
			c.Arguments, off, ok = readBytes(d, off)
		case "co":
			bit = 1 << 3
			c.Coerced, off, ok = readStrings(d, off, &values)
		case "rp":
			bit = 1 << 4
			c.Repaired, off, ok = readStrings(d, off, &values)
		case "do":
			bit = 1 << 5
			c.DependsOn, off, ok = readStrings(d, off, &values)
		case "o":
			bit = 1 << 6
			c.Order, off, ok = readInt(d, off)
		case "pv":
			bit = 1 << 7
			off, ok = readProvenance(d, off, &c.From, &values)
		case "af":
			bit = 1 << 8
			c.After, off, ok = readStrings(d, off, &values)
		case "cr":
			bit = 1 << 9
			c.ClientRuns, off, ok = mpack.ReadBool(d, off)
		case "bi":
			bit = 1 << 10
			c.Builtin, off, ok = mpack.ReadBool(d, off)
		default:
			return nil, false
		}
		if !ok || seen&bit != 0 {
			return nil, false
		}
		seen |= bit
	}
	if off != len(d) {
		return nil, false
	}
	return c, true
}

// readProvenance reads a Provenance map into p and adds its keys and
// values to *values.
func readProvenance(d []byte, off int, p *Provenance, values *int) (int, bool) {
	n, off, ok := mpack.ReadMapLen(d, off)
	if !ok {
		return 0, false
	}
	if *values += 2 * n; *values > containerValuesMax {
		return 0, false
	}
	var seen uint8
	for range n {
		var key []byte
		if key, off, ok = mpack.ReadStr(d, off); !ok {
			return 0, false
		}
		var bit uint8
		switch string(key) {
		case "fs":
			bit = 1 << 0
			p.FirstSeq, off, ok = mpack.ReadUint(d, off)
		case "ls":
			bit = 1 << 1
			p.LastSeq, off, ok = mpack.ReadUint(d, off)
		case "nd":
			bit = 1 << 2
			p.Deltas, off, ok = readInt(d, off)
		case "nb":
			bit = 1 << 3
			p.Bytes, off, ok = readInt(d, off)
		case "oa":
			bit = 1 << 4
			p.OpenedAt, off, ok = mpack.ReadInt(d, off)
		default:
			return 0, false
		}
		if !ok || seen&bit != 0 {
			return 0, false
		}
		seen |= bit
	}
	return off, true
}

func readString(d []byte, off int) (string, int, bool) {
	v, next, ok := mpack.ReadStr(d, off)
	if !ok {
		return "", 0, false
	}
	return string(v), next, true
}

func readInt(d []byte, off int) (int, int, bool) {
	v, next, ok := mpack.ReadInt(d, off)
	return int(v), next, ok
}

// readBytes reads a bin as msgpack's decoder does into a nil []byte: a
// copy, empty but not nil for an empty bin; nil for a nil.
func readBytes(d []byte, off int) ([]byte, int, bool) {
	if off < len(d) && d[off] == 0xc0 {
		return nil, off + 1, true
	}
	v, next, ok := mpack.ReadBin(d, off)
	if !ok {
		return nil, 0, false
	}
	return append(make([]byte, 0, len(v)), v...), next, true
}

// readStrings reads an array of str as msgpack's decoder does into a nil
// []string: empty but not nil for an empty array; nil for a nil. It adds
// the array's elements to *values and refuses, before making anything, an
// array that takes them past containerValuesMax.
func readStrings(d []byte, off int, values *int) ([]string, int, bool) {
	n, off, ok := mpack.ReadArrayLen(d, off)
	if !ok {
		return nil, 0, false
	}
	if n < 0 {
		return nil, off, true
	}
	if n > len(d)-off { // every str takes a byte at least
		return nil, 0, false
	}
	if *values += n; *values > containerValuesMax {
		return nil, 0, false
	}
	ss := make([]string, 0, n)
	for range n {
		var s string
		if s, off, ok = readString(d, off); !ok {
			return nil, 0, false
		}
		ss = append(ss, s)
	}
	return ss, off, true
}

// appendMsgpack: the gateway seals a StreamFrames for every flush window
// of every stream it relays (up to 256 frames); msgpack's reflection was
// most of what sealing one cost. Only the encoding is by hand: the frames
// are read back (resumption, trace, console) by msgpack's decoder.
func (s *StreamFrames) appendMsgpack(b []byte) []byte {
	b = mpack.AppendMapLen(b, 2)
	b = mpack.AppendInt64(mpack.AppendStr(b, "p"), s.Pos)
	b = mpack.AppendStr(b, "f")
	if s.Frames == nil {
		return append(b, 0xc0) // msgpack's nil slice
	}
	b = mpack.AppendArrayLen(b, len(s.Frames))
	for i := range s.Frames {
		f := &s.Frames[i]
		n := 0
		if f.Event != "" {
			n++
		}
		if f.Data != "" {
			n++
		}
		b = mpack.AppendMapLen(b, n)
		if f.Event != "" {
			b = mpack.AppendStr(mpack.AppendStr(b, "e"), f.Event)
		}
		if f.Data != "" {
			b = mpack.AppendStr(mpack.AppendStr(b, "d"), f.Data)
		}
	}
	return b
}
