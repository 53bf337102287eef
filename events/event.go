package events

import (
	"bytes"
	"fmt"
	"sync"
	"time"

	"github.com/toolstream/toolstream/internal/mpack"
	"github.com/vmihailenco/msgpack/v5"
)

// Kind names what an event says. Kinds are stable strings: they are written
// to the log and read back by every later version.
type Kind string

// Body is the typed payload of one Kind of event.
type Body interface {
	// Kind returns the kind this body encodes.
	Kind() Kind
}

// Event is one entry of the log: the envelope and its typed body.
//
// The envelope carries every identity a projection keys by. Fields that do
// not apply to a kind stay empty.
type Event struct {
	ID        string `msgpack:"id"`            // deterministic, derived from the cause
	Kind      Kind   `msgpack:"k"`             // what the body is
	V         uint16 `msgpack:"v"`             // schema version of the body
	Tenant    string `msgpack:"t"`             // always set; see ValidTenant
	User      string `msgpack:"u,omitempty"`   // end user, when known
	Session   string `msgpack:"ss,omitempty"`  // conversation / session
	Run       string `msgpack:"run,omitempty"` // agent run
	Step      string `msgpack:"st,omitempty"`  // step of the run
	Response  string `msgpack:"r,omitempty"`   // model response id
	Item      string `msgpack:"i,omitempty"`   // output item id within the response
	CallID    string `msgpack:"c,omitempty"`   // provider call id (correlates the result)
	Causation string `msgpack:"cz,omitempty"`  // id of the event that caused this one
	At        int64  `msgpack:"at"`            // event time, Unix nanoseconds
	Sealed    string `msgpack:"kx,omitempty"`  // "<scope>#<key id>" of a sealed body (seal.go)
	Body      Body   `msgpack:"-"`
}

// Time returns the event time.
func (e *Event) Time() time.Time { return time.Unix(0, e.At).UTC() }

// The encoded form is two msgpack values back to back: the envelope (a map
// with short keys) and the body. Decoding reads both from one stream, so a
// body is never copied into an intermediate buffer.

// Encode returns the msgpack encoding of ev, its body in the clear (see
// EncodeSealed). Kind and V are filled from the body. It returns
// ErrInvalidTenant for an event without a valid tenant.
func Encode(ev *Event) ([]byte, error) {
	if ev.Body == nil {
		return nil, fmt.Errorf("events: encode %q: %w", ev.ID, ErrMissingField)
	}
	if err := ValidTenant(ev.Tenant); err != nil {
		return nil, fmt.Errorf("events: encode %q: %w", ev.ID, err)
	}
	if _, sealed := ev.Body.(sealedBody); !sealed {
		ev.Kind = ev.Body.Kind()
	}
	if ev.V == 0 {
		ev.V = Version(ev.Kind)
	}
	if fb, ok := ev.Body.(bodyAppender); ok { // the hot bodies, by hand (bodycodec.go)
		return fb.appendMsgpack(appendEnvelope(make([]byte, 0, 256), ev)), nil
	}
	buf := bytes.NewBuffer(appendEnvelope(make([]byte, 0, 160), ev))
	enc := msgpack.GetEncoder()
	defer msgpack.PutEncoder(enc)
	enc.Reset(buf)
	enc.SetSortMapKeys(true) // canonical bytes: map order never decides output
	var body any = ev.Body
	if sb, ok := ev.Body.(sealedBody); ok {
		body = []byte(sb)
	}
	if err := enc.Encode(body); err != nil {
		return nil, fmt.Errorf("events: encode %s body: %w", ev.Kind, err)
	}
	return buf.Bytes(), nil
}

var readers = sync.Pool{New: func() any { return new(bytes.Reader) }}

// opening are the buffers sealed bodies are opened with (openBuf): a body
// is decoded into copies (strings, slices), so its buffer is free once
// DecodeWith returns. Bodies larger than plainPooledMax are not kept.
var opening = sync.Pool{New: func() any { return new(openBuf) }}

// openBuf holds a sealed body's plaintext and its additional data.
type openBuf struct{ plain, aad []byte }

const plainPooledMax = 64 << 10

// errOverBudget is Decode's error for bytes checkBounds refuses.
var errOverBudget = fmt.Errorf("%w: truncated, or over the decoding budget (lengths past the end, nesting deeper than %d, more than %d array and map values)",
	ErrMalformed, nestingMax, containerValuesMax)

// Decode parses an encoded event whose body is in the clear (a sealed one
// returns ErrSealed: see DecodeWith).
func Decode(data []byte) (*Event, error) { return DecodeWith(data, nil) }

// DecodeWith parses an encoded event, opening a sealed body with kr. It
// never panics, and what it allocates is bounded by the input's size (see
// checkBounds): garbage, truncated bytes or lengths declared past the end
// return ErrMalformed, an unknown kind ErrUnknownKind, a version newer than
// this reader's ErrUnknownVersion, and an invalid tenant ErrInvalidTenant;
// all of them wrap ErrBadInput. A sealed body whose key was destroyed
// returns ErrErased, one read without a keyring ErrSealed; neither is bad
// input.
func DecodeWith(data []byte, kr Keyring) (ev *Event, err error) {
	defer func() {
		if r := recover(); r != nil { // the decoder is third-party: never let it take us down
			ev, err = nil, fmt.Errorf("%w: %v", ErrMalformed, r)
		}
	}()
	out := new(Event)
	body := data
	if off, ok := decodeEnvelope(data, out); ok {
		body = data[off:]
	} else { // not the canonical layout: the general decoder decides
		if !checkBounds(data) {
			return nil, errOverBudget
		}
		*out = Event{}
		rd := readers.Get().(*bytes.Reader)
		defer readers.Put(rd)
		rd.Reset(data)
		dec := msgpack.GetDecoder()
		defer msgpack.PutDecoder(dec)
		dec.Reset(rd)
		if err := dec.Decode(out); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		body = data[len(data)-rd.Len():]
	}
	if out.Sealed != "" {
		sealed, off, ok := mpack.ReadBin(body, 0)
		if !ok || off != len(body) {
			return nil, fmt.Errorf("%w: %s: a sealed body is one bin", ErrMalformed, out.ID)
		}
		buf := opening.Get().(*openBuf)
		defer func() {
			if cap(buf.plain) <= plainPooledMax {
				opening.Put(buf)
			}
		}()
		if body, err = open(out, sealed, kr, buf); err != nil {
			return nil, err
		}
	}
	if b, ok := decodeDelta(out, body); ok {
		out.Body = b // the hot path: an argument delta, nothing else to read
		return out, nil
	}
	// The hand decoder keeps the budget itself (bodycodec.go), so a body it
	// reads is not walked by checkBounds first, unless it is larger than
	// containerValuesMax bytes: only such a body can hold more values than
	// the budget (each takes a byte at least), and it is refused before
	// anything is made for its values.
	walked := len(body) > containerValuesMax
	if walked && !checkBounds(body) {
		return nil, errOverBudget
	}
	fast, fastOK := decodeBodyFast(out.Kind, body)
	if !fastOK && !walked && !checkBounds(body) {
		return nil, errOverBudget
	}
	ctor, err := known(out)
	if err != nil {
		return nil, err
	}
	if err := ValidTenant(out.Tenant); err != nil {
		return nil, err
	}
	if fastOK {
		out.Body = fast
		return out, nil
	}
	rd := readers.Get().(*bytes.Reader)
	defer readers.Put(rd)
	rd.Reset(body)
	dec := msgpack.GetDecoder()
	defer msgpack.PutDecoder(dec)
	dec.Reset(rd)
	b := ctor.new()
	if err := dec.Decode(b); err != nil {
		return nil, fmt.Errorf("%w: %s body: %v", ErrMalformed, out.Kind, err)
	}
	if rd.Len() != 0 {
		return nil, fmt.Errorf("%w: trailing bytes", ErrMalformed)
	}
	out.Body = b
	return out, nil
}

// known returns the catalogue's entry of ev's kind: ErrUnknownKind for a
// kind this reader does not know, ErrUnknownVersion for a version newer
// than its (or none).
func known(ev *Event) (entry, error) {
	ctor, ok := catalogue[ev.Kind]
	if !ok {
		return ctor, fmt.Errorf("%w: %q", ErrUnknownKind, ev.Kind)
	}
	if ev.V == 0 || ev.V > ctor.version {
		return ctor, fmt.Errorf("%w: %s v%d (reader knows v%d)", ErrUnknownVersion, ev.Kind, ev.V, ctor.version)
	}
	return ctor, nil
}

// Version returns the current schema version of kind, or 0 for an unknown
// kind.
func Version(kind Kind) uint16 { return catalogue[kind].version }

// Kinds returns every kind this reader knows, sorted.
func Kinds() []Kind {
	out := make([]Kind, 0, len(catalogue))
	for k := range catalogue {
		out = append(out, k)
	}
	sortKinds(out)
	return out
}

// Is reports whether ev's body is a T and returns it.
func As[T Body](ev *Event) (T, bool) {
	b, ok := ev.Body.(T)
	return b, ok
}
