package events

import (
	"bytes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/toolstream/toolstream/internal/mpack"
	"github.com/vmihailenco/msgpack/v5"
)

// Sealing keeps personal data out of the log in readable form (docs/design.md,
// invariant 8 and "Erasure"): an event's body is encrypted
// with the data key of its scope — one key per (tenant, user), one per
// memory record — and erasing a user or a record destroys its key. The
// envelope (ids, tenant, kind, times) stays readable: routing needs it, and
// it carries no personal text.
//
// The sealed form is the envelope with "kx" set to the scope and key id
// ("<scope>#<id>"), followed by the body as a msgpack bin: a 12-byte nonce
// and the AES-GCM ciphertext of the body's msgpack bytes, authenticated
// with the event's id, kind and tenant (a body cannot be moved to another
// event).

var (
	// ErrErased is returned for an event sealed with a key that has been
	// destroyed: its content was erased. It is not bad input: readers skip
	// what was erased.
	ErrErased = errors.New("events: erased")
	// ErrSealed is returned for a sealed event read without a keyring.
	ErrSealed = errors.New("events: sealed: a keyring is needed to read it")
)

// Keyring holds the data keys that seal and open event bodies. Its methods
// are called on every event written and read, and must be safe for
// concurrent use.
type Keyring interface {
	// SealKey returns the key to seal a body of (tenant, scope) with,
	// creating it on first use, and its id.
	SealKey(tenant, scope string) (id string, aead cipher.AEAD, err error)
	// OpenKey returns the key id of (tenant, scope); ErrErased when it was
	// destroyed.
	OpenKey(tenant, scope, id string) (cipher.AEAD, error)
}

// UserScope is the scope of a user's data: every event of the user but a
// memory record's.
func UserScope(user string) string { return "u/" + scopeToken(user) }

// RecordScope is the scope of one memory record of a user: forgetting the
// record destroys its key alone; erasing the user destroys it too.
func RecordScope(user, record string) string {
	return "r/" + scopeToken(user) + "/" + scopeToken(record)
}

// scopeToken is Token, except that an id holding '/' (which separates a
// scope's parts) or '#' (which ends the scope in a key reference) is
// always written in its base64url form: "r/ann/m#2" would read as the
// record "m" and the key "2#…".
func scopeToken(id string) string {
	if strings.ContainsAny(id, "/#") {
		return "~" + base64.RawURLEncoding.EncodeToString([]byte(id))
	}
	return Token(id)
}

// ScopeRecord returns the memory record of a record scope (RecordScope);
// ErrMalformed for any other scope.
func ScopeRecord(scope string) (string, error) {
	parts := strings.Split(scope, "/")
	if len(parts) != 3 || parts[0] != "r" {
		return "", fmt.Errorf("%w: not a record's key scope: %q", ErrMalformed, scope)
	}
	return Untoken(parts[2])
}

// ScopeUser returns the user a scope belongs to.
func ScopeUser(scope string) (string, error) {
	parts := strings.Split(scope, "/")
	if len(parts) < 2 || (parts[0] != "u" || len(parts) != 2) && (parts[0] != "r" || len(parts) != 3) {
		return "", fmt.Errorf("%w: key scope %q", ErrMalformed, scope)
	}
	return Untoken(parts[1])
}

// clearKinds are written in the clear even with a keyring: they hold no
// end user's data (clock ticks, the tool registry, attempts, an operator's
// approvals, tombstones).
var clearKinds = map[Kind]bool{KindTick: true, KindRegistryChanged: true, KindExecutionStarted: true, KindErased: true,
	KindApprovalGranted: true, KindApprovalDenied: true}

// Sealed reports whether a body of kind is sealed when written with a
// keyring.
func Sealed(kind Kind) bool { return !clearKinds[kind] }

const nonceSize = 12

// EncodeSealed is Encode with the body sealed under the key of (tenant,
// scope); scope "" is the event's user's (UserScope). Kinds that hold no
// personal data (Sealed false) are encoded in the clear.
func EncodeSealed(ev *Event, kr Keyring, scope string) ([]byte, error) {
	if ev.Body == nil || !Sealed(ev.Body.Kind()) {
		return Encode(ev)
	}
	if err := ValidTenant(ev.Tenant); err != nil {
		return nil, fmt.Errorf("events: encode %q: %w", ev.ID, err)
	}
	sb := sealing.Get().(*sealBuf)
	defer sb.put()
	body, err := sb.encodeBody(ev.Body)
	if err != nil {
		return nil, fmt.Errorf("events: encode %s body: %w", ev.Body.Kind(), err)
	}
	if scope == "" {
		scope = UserScope(ev.User)
	}
	id, aead, err := kr.SealKey(ev.Tenant, scope)
	if err != nil {
		return nil, fmt.Errorf("events: seal %s: %w", ev.ID, err)
	}
	ev.Kind = ev.Body.Kind()
	out := *ev
	out.Sealed = keyRef(ev, scope, id)
	if out.V == 0 {
		out.V = Version(out.Kind)
	}
	// What Encode writes for out with the sealed bytes as its body (the
	// envelope, then a msgpack bin: nonce, ciphertext), made in one
	// allocation of its exact size and sealed in place.
	n := nonceSize + len(body) + aead.Overhead()
	sb.env = mpack.AppendBinLen(appendEnvelope(sb.env[:0], &out), n)
	data := make([]byte, len(sb.env)+nonceSize, len(sb.env)+n)
	copy(data, sb.env)
	nonce := data[len(sb.env):]
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("events: seal %s: %w", ev.ID, err)
	}
	sb.aad = appendAAD(sb.aad[:0], ev)
	return aead.Seal(data, nonce, body, sb.aad), nil
}

// sealing are the buffers EncodeSealed works in: the body's plaintext,
// the envelope and the additional data, each copied into the sealed
// event, so free once it returns. Buffers grown past plainPooledMax are
// not kept.
var sealing = sync.Pool{New: func() any { return new(sealBuf) }}

type sealBuf struct {
	plain    bytes.Buffer
	env, aad []byte
}

// encodeBody is the canonical msgpack encoding of a body alone, in the
// pooled buffer.
func (sb *sealBuf) encodeBody(b Body) ([]byte, error) {
	sb.plain.Reset()
	if fb, ok := b.(bodyAppender); ok { // the hot bodies, by hand (bodycodec.go)
		sb.plain.Write(fb.appendMsgpack(sb.plain.AvailableBuffer()))
		return sb.plain.Bytes(), nil
	}
	enc := msgpack.GetEncoder()
	defer msgpack.PutEncoder(enc)
	enc.Reset(&sb.plain)
	enc.SetSortMapKeys(true)
	if err := enc.Encode(b); err != nil {
		return nil, err
	}
	return sb.plain.Bytes(), nil
}

func (sb *sealBuf) put() {
	if sb.plain.Cap() > plainPooledMax || cap(sb.env) > plainPooledMax {
		return
	}
	sealing.Put(sb)
}

// WithheldKeyID is the key id of an event written with its body withheld
// (EncodeWithheld): no key ever has it (a key's id is 12 characters), so
// such an event reads as ErrErased, or ErrBadKey while its scope's stored
// key is not a key.
const WithheldKeyID = "-"

// EncodeWithheld encodes ev's envelope with its body withheld: what a
// writer does when its scope's data key is unusable (ErrBadKey from
// EncodeSealed), so the event's ids, kind and tenant still reach the log,
// and its readers learn of it as a typed outcome of that user alone,
// instead of the writer stopping or writing personal data in the clear.
// Kinds that are not sealed are encoded in the clear, as EncodeSealed does.
func EncodeWithheld(ev *Event, scope string) ([]byte, error) {
	if ev.Body == nil || !Sealed(ev.Body.Kind()) {
		return Encode(ev)
	}
	if scope == "" {
		scope = UserScope(ev.User)
	}
	ev.Kind = ev.Body.Kind()
	out := *ev
	out.Sealed = keyRef(ev, scope, WithheldKeyID)
	out.Body = sealedBody(make([]byte, nonceSize))
	return Encode(&out)
}

// keyRef is an event's reference to the key that sealed it: "scope#id",
// or "#id" when the scope is the event's user's (most events: the scope is
// then read from the envelope, and every sealed event is the shorter).
func keyRef(ev *Event, scope, id string) string {
	if scope == UserScope(ev.User) {
		return "#" + id
	}
	return scope + "#" + id
}

// keyOf reads an event's key reference: its scope (the user's when the
// reference names none) and key id.
func keyOf(ev *Event) (scope, id string, ok bool) {
	scope, id, ok = strings.Cut(ev.Sealed, "#")
	if !ok || id == "" {
		return "", "", false
	}
	if scope == "" {
		scope = UserScope(ev.User)
	}
	return scope, id, true
}

// sealedBody is a sealed body in an event being encoded: a msgpack bin.
type sealedBody []byte

func (sealedBody) Kind() Kind { return "" }

// appendAAD appends the additional data that binds a sealed body to its
// event.
func appendAAD(b []byte, ev *Event) []byte {
	b = append(append(b, ev.ID...), 0)
	b = append(append(b, ev.Kind...), 0)
	return append(b, ev.Tenant...)
}

// open returns the plaintext body of a sealed event, in buf.plain (buf.aad
// holds its additional data).
func open(ev *Event, sealed []byte, kr Keyring, buf *openBuf) ([]byte, error) {
	if kr == nil {
		return nil, fmt.Errorf("%w: %s (%s)", ErrSealed, ev.ID, ev.Kind)
	}
	scope, id, ok := keyOf(ev)
	if !ok {
		return nil, fmt.Errorf("%w: %s: key reference %q", ErrMalformed, ev.ID, ev.Sealed)
	}
	aead, err := kr.OpenKey(ev.Tenant, scope, id)
	if err != nil {
		return nil, fmt.Errorf("events: open %s: %w", ev.ID, err)
	}
	if len(sealed) < nonceSize+aead.Overhead() {
		return nil, fmt.Errorf("%w: %s: sealed body of %d bytes", ErrMalformed, ev.ID, len(sealed))
	}
	buf.aad = appendAAD(buf.aad[:0], ev)
	plain, err := aead.Open(buf.plain[:0], sealed[:nonceSize], sealed[nonceSize:], buf.aad)
	buf.plain = plain
	if err != nil {
		return nil, fmt.Errorf("%w: %s: the sealed body does not open with its key: %v", ErrMalformed, ev.ID, err)
	}
	return plain, nil
}

// Envelope returns the envelope of an encoded event without its body
// (Body nil, Sealed its key reference): what can be said of an event whose
// body cannot be opened (ErrErased) — its ids, kind, tenant, user and time,
// never its content. Errors wrap ErrBadInput: ErrMalformed,
// ErrInvalidTenant.
func Envelope(data []byte) (ev *Event, err error) {
	defer func() {
		if r := recover(); r != nil {
			ev, err = nil, fmt.Errorf("%w: %v", ErrMalformed, r)
		}
	}()
	out := new(Event)
	if _, ok := decodeEnvelope(data, out); !ok {
		if !checkBounds(data) {
			return nil, errOverBudget
		}
		*out = Event{}
		dec := msgpack.NewDecoder(bytes.NewReader(data))
		if err := dec.Decode(out); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
	}
	if err := ValidTenant(out.Tenant); err != nil {
		return nil, err
	}
	return out, nil
}

// EnvelopeWith is Envelope for a reader that uses an event's ids, kind,
// tenant and time but not its body: the body is neither opened nor decoded,
// yet the event is refused as DecodeWith would refuse it for what the
// envelope tells — an unknown kind or version (ErrUnknownKind,
// ErrUnknownVersion) — and a sealed body whose key was destroyed returns
// ErrErased (one read without a keyring ErrSealed), so an erased event
// changes nothing for this reader either. A body that would not open or
// decode is not noticed: the reader does not read it.
func EnvelopeWith(data []byte, kr Keyring) (*Event, error) {
	ev, err := Envelope(data)
	if err != nil {
		return nil, err
	}
	if _, err := known(ev); err != nil {
		return nil, err
	}
	if ev.Sealed == "" {
		return ev, nil
	}
	if kr == nil {
		return nil, fmt.Errorf("%w: %s (%s)", ErrSealed, ev.ID, ev.Kind)
	}
	scope, id, ok := keyOf(ev)
	if !ok {
		return nil, fmt.Errorf("%w: %s: key reference %q", ErrMalformed, ev.ID, ev.Sealed)
	}
	if _, err := kr.OpenKey(ev.Tenant, scope, id); err != nil {
		return nil, fmt.Errorf("events: open %s: %w", ev.ID, err)
	}
	return ev, nil
}

// Scope returns the key scope of a sealed event ("" for one in the clear).
func (e *Event) Scope() string {
	scope, _, _ := keyOf(e)
	return scope
}

// SealBytes seals data stored outside the log (a large raw result in the
// object store) under the key of (tenant, scope), bound to name: the
// result is the key reference, a zero byte, the nonce and the ciphertext.
func SealBytes(kr Keyring, tenant, scope, name string, data []byte) ([]byte, error) {
	id, aead, err := kr.SealKey(tenant, scope)
	if err != nil {
		return nil, fmt.Errorf("events: seal %s: %w", name, err)
	}
	ref := scope + "#" + id
	out := make([]byte, len(ref)+1+nonceSize, len(ref)+1+nonceSize+len(data)+aead.Overhead())
	copy(out, ref)
	nonce := out[len(ref)+1:]
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return aead.Seal(out, nonce, data, []byte(tenant+"\x00"+name)), nil
}

// OpenBytes opens what SealBytes sealed; ErrErased when its key was
// destroyed, ErrMalformed when it is not sealed bytes of name.
func OpenBytes(kr Keyring, tenant, name string, sealed []byte) ([]byte, error) {
	i := bytes.IndexByte(sealed, 0)
	if i < 0 {
		return nil, fmt.Errorf("%w: %s: not sealed bytes", ErrMalformed, name)
	}
	scope, id, ok := strings.Cut(string(sealed[:i]), "#")
	if !ok {
		return nil, fmt.Errorf("%w: %s: key reference", ErrMalformed, name)
	}
	aead, err := kr.OpenKey(tenant, scope, id)
	if err != nil {
		return nil, fmt.Errorf("events: open %s: %w", name, err)
	}
	rest := sealed[i+1:]
	if len(rest) < nonceSize+aead.Overhead() {
		return nil, fmt.Errorf("%w: %s: sealed bytes too short", ErrMalformed, name)
	}
	plain, err := aead.Open(nil, rest[:nonceSize], rest[nonceSize:], []byte(tenant+"\x00"+name))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrMalformed, name, err)
	}
	return plain, nil
}
