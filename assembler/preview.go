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
	p parser
}

// previewKey is one call's key in previews, injective as TenantKey is (ids
// may hold 0x00: two calls never share a preview, invariant 2).
func previewKey(tenant, resp, item string) string {
	k, _ := projector.TenantKey(tenant, resp, item) // a call's event has a tenant
	return string(k)
}

func (a *Assembler) feedPreview(ev *events.Event, c *call, total int, delta string) {
	if a.cfg.Preview == nil {
		return
	}
	k := previewKey(ev.Tenant, ev.Response, ev.Item)
	pv := a.previews[k]
	if pv == nil {
		if total != len(delta) {
			return // opened before a restart: its earlier bytes are not here
		}
		pv = &preview{}
		a.previews[k] = pv
	}
	offset := pv.p.offset
	fields := pv.p.feed(delta)
	subj, err := events.PreviewSubject(ev.Tenant, ev.Response, ev.Item)
	if err != nil {
		return
	}
	msg := PreviewMsg{Tenant: ev.Tenant, Response: ev.Response, Item: ev.Item, CallID: c.CallID, Name: c.Name,
		Offset: offset, Delta: delta, Path: pv.p.path(), Fields: fields, Closed: pv.p.complete, Invalid: pv.p.st == lsInvalid}
	data, err := json.Marshal(&msg)
	if err != nil {
		return
	}
	a.cfg.Preview(subj, data)
}

func (a *Assembler) dropPreviewKey(tenant, resp, item string) {
	if a.cfg.Preview != nil {
		delete(a.previews, previewKey(tenant, resp, item))
	}
}

// OpenPreviews is the number of calls with live preview state.
func (a *Assembler) OpenPreviews() int { return len(a.previews) }
