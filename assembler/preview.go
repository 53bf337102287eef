package assembler

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
)

// Partial-argument preview for UIs.
//
// The parser below is an incremental JSON scanner: it keeps its position
// (a container stack, a lexical state, the key being read) between deltas
// and resumes where it stopped, so its total cost over a call is linear in
// the bytes received. It never re-reads the buffer. It retains only the raw
// bytes of the top-level value currently open (to report it once it
// completes), so with the Pebble rows an open call holds at most about twice
// its argument bytes.
//
// A preview is information for people watching; it is published on the
// non-durable subject events.PreviewSubject and never used as arguments:
// executed arguments come only from CallCompleted.

// PreviewMsg is one preview message, JSON on tsp.preview.<tenant>.<response>.<item>.
type PreviewMsg struct {
	Tenant   string         `json:"tenant"`
	Response string         `json:"response_id"`
	Item     string         `json:"item_id"`
	CallID   string         `json:"call_id,omitempty"`
	Name     string         `json:"name,omitempty"`
	Offset   int            `json:"offset"`           // bytes received before Delta
	Delta    string         `json:"delta"`            // the bytes this message adds
	Path     string         `json:"path"`             // JSON pointer of the value being written
	Fields   []PreviewField `json:"fields,omitempty"` // top-level fields completed by this delta
	Closed   bool           `json:"closed,omitempty"` // the top-level object is syntactically closed (not a completion signal)
	Invalid  bool           `json:"invalid,omitempty"`
}

// PreviewField is a completed top-level field.
type PreviewField struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

type lexState uint8

const (
	lsValue    lexState = iota // expecting a value
	lsKeyOrEnd                 // in an object, expecting a key or '}'
	lsKey                      // in an object after ',', expecting a key
	lsColon                    // after a key
	lsAfter                    // after a value
	lsString                   // in a string
	lsEscape                   // after a backslash in a string
	lsUnicode                  // in \uXXXX
	lsScalar                   // in a number or literal
	lsDone                     // top-level value closed
	lsInvalid                  // not JSON; the preview stops
)

type frame struct {
	obj   bool
	key   string
	index int
}

// parser is the incremental scanner. Bounded by the call's ArgsBytesMax.
type parser struct {
	st       lexState
	stack    []frame
	inKey    bool
	key      strings.Builder // the key being read (escapes kept raw)
	hex      int
	offset   int
	topKey   string // key of the top-level field being written
	cur      []byte // raw bytes of the open top-level value
	capture  bool
	fields   []PreviewField
	complete bool
}

// feed scans delta and returns the top-level fields it completed.
func (p *parser) feed(delta string) []PreviewField {
	p.fields = p.fields[:0]
	for i := 0; i < len(delta); i++ {
		p.byte(delta[i])
		if p.st == lsInvalid {
			break
		}
	}
	p.offset += len(delta)
	return p.fields
}

func (p *parser) depth() int { return len(p.stack) }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (p *parser) byte(c byte) {
	if p.capture {
		p.cur = append(p.cur, c)
	}
	p.step(c)
}

// step advances the state machine by one byte (already captured).
func (p *parser) step(c byte) {
	switch p.st {
	case lsValue:
		if isSpace(c) {
			p.trimCaptured()
			return
		}
		p.startValue(c)
	case lsKeyOrEnd, lsKey:
		switch {
		case isSpace(c):
		case c == '"':
			p.st, p.inKey = lsString, true
			p.key.Reset()
		case c == '}' && p.st == lsKeyOrEnd:
			p.pop()
		default:
			p.st = lsInvalid
		}
	case lsColon:
		switch {
		case isSpace(c):
		case c == ':':
			p.st = lsValue
			if p.depth() == 1 {
				p.topKey = p.stack[0].key
				p.capture, p.cur = true, p.cur[:0]
			}
		default:
			p.st = lsInvalid
		}
	case lsAfter:
		switch {
		case isSpace(c):
		case c == ',' && p.depth() > 0:
			top := &p.stack[len(p.stack)-1]
			if top.obj {
				p.st = lsKey
			} else {
				top.index++
				p.st = lsValue
			}
		case (c == '}' || c == ']') && p.depth() > 0 && p.stack[len(p.stack)-1].obj == (c == '}'):
			p.pop()
		default:
			p.st = lsInvalid
		}
	case lsString:
		switch c {
		case '\\':
			p.st = lsEscape
			if p.inKey {
				p.key.WriteByte(c)
			}
		case '"':
			if p.inKey {
				p.inKey = false
				p.stack[len(p.stack)-1].key = p.key.String()
				p.st = lsColon
				return
			}
			p.endValue()
		default:
			if p.inKey {
				p.key.WriteByte(c)
			}
		}
	case lsEscape:
		if p.inKey {
			p.key.WriteByte(c)
		}
		if c == 'u' {
			p.st, p.hex = lsUnicode, 0
		} else {
			p.st = lsString
		}
	case lsUnicode:
		if p.inKey {
			p.key.WriteByte(c)
		}
		if p.hex++; p.hex == 4 {
			p.st = lsString
		}
	case lsScalar:
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '.' || c == '+' || c == '-' || c == 'E' {
			return
		}
		if p.capture {
			p.cur = p.cur[:len(p.cur)-1] // the terminator is not part of the value
		}
		p.endValue()
		if p.capture {
			p.cur = append(p.cur, c)
		}
		p.step(c)
	case lsDone:
		if !isSpace(c) {
			p.st = lsInvalid
		}
	}
}

func (p *parser) trimCaptured() {
	if p.capture && len(p.cur) > 0 {
		p.cur = p.cur[:len(p.cur)-1]
	}
}

func (p *parser) startValue(c byte) {
	switch {
	case c == '{':
		p.stack = append(p.stack, frame{obj: true})
		p.st = lsKeyOrEnd
	case c == '[':
		p.stack = append(p.stack, frame{})
		p.st = lsValue
	case c == '"':
		p.st = lsString
	case c == '-' || c >= '0' && c <= '9' || c == 't' || c == 'f' || c == 'n':
		p.st = lsScalar
	case c == ']' && p.depth() > 0 && !p.stack[len(p.stack)-1].obj:
		p.pop() // empty array
	default:
		p.st = lsInvalid
	}
}

// endValue closes a scalar or string.
func (p *parser) endValue() {
	if p.depth() == 0 {
		p.st = lsDone
		return
	}
	p.st = lsAfter
	p.fieldDone(1)
}

func (p *parser) pop() {
	p.stack = p.stack[:len(p.stack)-1]
	if p.depth() == 0 {
		p.st, p.complete, p.capture = lsDone, true, false
		return
	}
	p.st = lsAfter
	p.fieldDone(1)
}

// fieldDone reports a completed value at depth d of a top-level object.
func (p *parser) fieldDone(d int) {
	if p.depth() != d || !p.capture || !p.stack[0].obj {
		return
	}
	p.fields = append(p.fields, PreviewField{Key: p.topKey, Value: json.RawMessage(append([]byte(nil), p.cur...))})
	p.capture, p.cur = false, p.cur[:0]
}

// path is the JSON pointer of the position being written.
func (p *parser) path() string {
	var b strings.Builder
	stack := p.stack
	if n := len(stack); n > 0 && stack[n-1].obj && (p.st == lsKeyOrEnd || p.st == lsKey || p.inKey) {
		stack = stack[:n-1] // the key being read is not known yet
	}
	for _, f := range stack {
		b.WriteByte('/')
		if f.obj {
			b.WriteString(strings.ReplaceAll(strings.ReplaceAll(f.key, "~", "~0"), "/", "~1"))
		} else {
			b.WriteString(strconv.Itoa(f.index))
		}
	}
	return b.String()
}

// preview is one open call's preview state (in memory only: previews are
// not part of the view and are rebuilt from nothing after a restart).
type preview struct {
	p            parser
	tenant, user string // whose call it is: an erasure of the user drops it (ForgetUser)
}

// A preview goes out once per delta of the log, whatever the runner
// applies again (docs/design.md, invariant 9's faults: after a fault the
// batch is dropped and applied again without the faulted message). So
// Apply only notes what a delta adds (pvNote), and the notes of a batch
// are fed to the parsers and published once it is committed
// (projector.Tx.AfterCommit, given by Flush): a note of a message whose Tx
// is dropped is dropped with it, and a batch dropped after a fault leaves
// nothing behind (Reset drops its notes; the parsers never saw them). The
// parsers therefore hold only committed deltas, every tenant's as they
// were, and a preview reaches its watchers when its delta is in the view:
// a batch later than Apply, the commit's time.

// pvNote is a delta of a call (or, drop, the call's decision) noted by
// Apply, fed to its preview once the batch holding it is committed.
type pvNote struct {
	seq                 uint64
	tenant, user        string
	resp, item          string
	callID, name, delta string
	total               int // the call's argument bytes with delta
	drop                bool
}

// previewKey is one call's key in previews, injective as TenantKey is (ids
// may hold 0x00: two calls never share a preview, invariant 2).
func previewKey(tenant, resp, item string) string {
	k, _ := projector.TenantKey(tenant, resp, item) // a call's event has a tenant
	return string(k)
}

// feedPreview notes a delta of c for its preview.
func (a *Assembler) feedPreview(ev *events.Event, c *call, total int, delta string) {
	if a.cfg.Preview == nil {
		return
	}
	a.pvNotes = append(a.pvNotes, pvNote{seq: a.seq, tenant: ev.Tenant, user: ev.User, resp: ev.Response, item: ev.Item,
		callID: c.CallID, name: c.Name, delta: delta, total: total})
}

// dropPreviewKey notes that a call is decided: its preview ends.
func (a *Assembler) dropPreviewKey(tenant, resp, item string) {
	if a.cfg.Preview != nil {
		a.pvNotes = append(a.pvNotes, pvNote{seq: a.seq, tenant: tenant, resp: resp, item: item, drop: true})
	}
}

// notesFrom drops the notes of messages at or after seq: a message applied
// again (its batch was not committed) notes its deltas again.
func (a *Assembler) notesFrom(seq uint64) {
	n := len(a.pvNotes)
	for n > 0 && a.pvNotes[n-1].seq >= seq {
		n--
	}
	a.notesTo(n)
}

// notesTo keeps the first n notes.
func (a *Assembler) notesTo(n int) {
	clear(a.pvNotes[n:])
	a.pvNotes = a.pvNotes[:n]
}

// previewAfterCommit has the batch's notes published once it is committed
// (Flush).
func (a *Assembler) previewAfterCommit(tx *projector.Tx) {
	if len(a.pvNotes) > 0 {
		tx.AfterCommit(a.sendPreviews)
	}
}

// sendPreviews feeds the committed batch's notes to their previews, in the
// log's order, and publishes each delta's preview.
func (a *Assembler) sendPreviews() {
	for i := range a.pvNotes {
		a.sendPreview(&a.pvNotes[i])
	}
	a.notesTo(0)
}

func (a *Assembler) sendPreview(n *pvNote) {
	k := previewKey(n.tenant, n.resp, n.item)
	if n.drop {
		delete(a.previews, k)
		return
	}
	pv := a.previews[k]
	if pv == nil {
		if n.total != len(n.delta) {
			return // opened before a restart: its earlier bytes are not here
		}
		pv = &preview{tenant: n.tenant, user: n.user}
		a.previews[k] = pv
	}
	offset := pv.p.offset
	fields := pv.p.feed(n.delta)
	subj, err := events.PreviewSubject(n.tenant, n.resp, n.item)
	if err != nil {
		return
	}
	msg := PreviewMsg{Tenant: n.tenant, Response: n.resp, Item: n.item, CallID: n.callID, Name: n.name,
		Offset: offset, Delta: n.delta, Path: pv.p.path(), Fields: fields, Closed: pv.p.complete, Invalid: pv.p.st == lsInvalid}
	data, err := json.Marshal(&msg)
	if err != nil {
		return
	}
	a.cfg.Preview(subj, data)
}

// ForgetUser drops the open previews of a user's calls and the notes not
// sent yet (projector.UserForgetter, called when the user is erased): the
// partial arguments they hold are the erased user's text, and the calls
// they belong to can no longer be read, so nothing would ever end them.
func (a *Assembler) ForgetUser(tenant, user string) {
	for k, pv := range a.previews {
		if pv.tenant == tenant && pv.user == user {
			delete(a.previews, k)
		}
	}
	n := 0
	for _, note := range a.pvNotes {
		if note.tenant != tenant || note.user != user || note.drop {
			a.pvNotes[n] = note
			n++
		}
	}
	a.notesTo(n)
}

// OpenPreviews is the number of calls with live preview state.
func (a *Assembler) OpenPreviews() int { return len(a.previews) }
