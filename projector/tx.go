package projector

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/toolstream/toolstream/events"
)

// Key prefixes inside a projection's Pebble database.
var (
	prefixState   = []byte("s/")
	prefixReject  = []byte("r/")
	prefixOutbox  = []byte("o/")
	keyCheckpoint = []byte("m/checkpoint")
	keyProjection = []byte("m/projection")
)

// Tx is one message's view of the state inside a batch. Reads see the
// batch's earlier writes and this message's own; writes stay in an overlay
// until the message is applied without error.
//
// A Tx is used by one goroutine, only during Apply.
type Tx struct {
	batch   *pebble.Batch
	overlay map[string]*[]byte // nil value: deleted
	emitted []outboxRow
	msg     *Msg
	keys    events.Keyring // seals what is emitted; nil: the clear

	// Appends of the whole batch, coalesced per key and merged into the
	// Pebble batch once, before the commit; undo truncates this message's
	// appends when it fails.
	pending map[string]*[]byte
	undo    []undoAppend

	// What AfterCommit was given: this message's, then the batch's (a
	// message's join the batch's when it is applied, as its overlay does).
	after, afterBatch []func()
}

type undoAppend struct {
	p   *[]byte
	n   int    // length before the append
	key string // set when the append created the entry
}

type outboxRow struct {
	Subject string `msgpack:"s"`
	ID      string `msgpack:"id"`
	Data    []byte `msgpack:"d"`
	// Trace is the W3C trace context (traceparent, tracestate) of the
	// message that caused the event, relayed as its headers: a call
	// assembled from a traced model request joins its trace. Not part of
	// any view: replay and digests never read it.
	Trace map[string]string `msgpack:"t,omitempty"`
}

// traceHeaders are the W3C Trace Context headers an emitted event takes
// from the message that caused it.
var traceHeaders = []string{"traceparent", "tracestate"}

// traceOf is the trace context m carries, nil for none.
func traceOf(m *Msg) map[string]string {
	if m == nil || m.Header == nil {
		return nil
	}
	var t map[string]string
	for _, k := range traceHeaders {
		if v := m.Header.Get(k); v != "" {
			if t == nil {
				t = map[string]string{}
			}
			t[k] = v
		}
	}
	return t
}

var _ Writer = (*Tx)(nil)

func stateKey(key []byte) []byte {
	k := make([]byte, 0, len(prefixState)+len(key))
	return append(append(k, prefixState...), key...)
}

// Get returns a copy of the value stored under key.
func (tx *Tx) Get(key []byte) ([]byte, bool, error) {
	if v, ok := tx.overlay[string(key)]; ok {
		if v == nil {
			return nil, false, nil
		}
		return slices.Clone(*v), true, nil
	}
	v, found, err := getClone(tx.batch, stateKey(key))
	if p := tx.pending[string(key)]; p != nil && err == nil {
		return append(v, *p...), true, nil
	}
	return v, found, err
}

type pebbleReader interface {
	Get(key []byte) ([]byte, io.Closer, error)
	NewIter(o *pebble.IterOptions) (*pebble.Iterator, error)
}

func getClone(r pebbleReader, key []byte) ([]byte, bool, error) {
	v, closer, err := r.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("projector: get: %w", err)
	}
	out := slices.Clone(v)
	closer.Close()
	return out, true, nil
}

// Set stores value under key.
func (tx *Tx) Set(key, value []byte) error {
	v := slices.Clone(value)
	tx.overlay[string(key)] = &v
	return nil
}

// Delete removes key.
func (tx *Tx) Delete(key []byte) error {
	tx.overlay[string(key)] = nil
	return nil
}

// Append appends data to the value under key, creating it if need be. A
// value that grows piece by piece (a call's argument bytes) is appended to
// instead of rewritten: the pieces a batch appends to one key are coalesced
// and merged into the store once (Pebble's merge operator concatenates), and
// the stored value does not depend on how messages were batched.
func (tx *Tx) Append(key, data []byte) error {
	if len(data) == 0 {
		return nil
	}
	if v, ok := tx.overlay[string(key)]; ok { // set or deleted by this message
		if v == nil {
			nv := slices.Clone(data)
			tx.overlay[string(key)] = &nv
		} else {
			*v = append(*v, data...)
		}
		return nil
	}
	u := undoAppend{p: tx.pending[string(key)]}
	if u.p == nil {
		u.p, u.key = new([]byte), string(key)
		tx.pending[u.key] = u.p
	}
	u.n = len(*u.p)
	tx.undo = append(tx.undo, u)
	*u.p = append(*u.p, data...)
	return nil
}

// Scan calls fn for every key with prefix, in ascending order, merging the
// batch with this message's overlay.
func (tx *Tx) Scan(prefix []byte, fn func(key, value []byte) error) error {
	var over []string
	for k := range tx.overlay {
		if strings.HasPrefix(k, string(prefix)) {
			over = append(over, k)
		}
	}
	for k := range tx.pending {
		if _, set := tx.overlay[k]; !set && strings.HasPrefix(k, string(prefix)) {
			over = append(over, k)
		}
	}
	slices.Sort(over)
	lower := stateKey(prefix)
	it, err := tx.batch.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: prefixUpper(lower)})
	if err != nil {
		return fmt.Errorf("projector: scan: %w", err)
	}
	defer it.Close()
	valid := it.First()
	i := 0
	for valid || i < len(over) {
		var key []byte
		if valid {
			key = it.Key()[len(prefixState):]
		}
		switch {
		case i < len(over) && (!valid || over[i] <= string(key)):
			v, set := tx.overlay[over[i]]
			if !set { // appended this batch, to what the batch holds if anything
				var merged []byte
				if valid && over[i] == string(key) {
					merged = slices.Clone(it.Value())
				}
				merged = append(merged, *tx.pending[over[i]]...)
				v = &merged
			}
			if valid && over[i] == string(key) {
				valid = it.Next()
			}
			if v != nil {
				if err := fn([]byte(over[i]), *v); err != nil {
					return err
				}
			}
			i++
		default:
			if err := fn(key, it.Value()); err != nil {
				return err
			}
			valid = it.Next()
		}
	}
	return it.Error()
}

// Emit queues ev for publication on subject through the outbox. The event's
// id must be set and deterministic (derived from its cause, see package
// events): it becomes the Nats-Msg-Id. If the event has no time, it takes the
// input message's time.
func (tx *Tx) Emit(subject string, ev *events.Event) error {
	if ev.ID == "" {
		return fmt.Errorf("projector: emit %s: %w: event id", subject, events.ErrMissingField)
	}
	if ev.At == 0 {
		ev.At = tx.msg.Time
	}
	if ev.Causation == "" {
		ev.Causation = events.SeqCausation(tx.msg.Seq)
	}
	var data []byte
	var err error
	if tx.keys != nil {
		data, err = events.EncodeSealed(ev, tx.keys, "")
		if errors.Is(err, events.ErrBadKey) {
			// The user's stored key is not a key: the event goes out with
			// its body withheld, and its readers reject it (bad_key), so
			// that user's events have a typed outcome and this projection
			// goes on with everyone else's.
			data, err = events.EncodeWithheld(ev, "")
		}
	} else {
		data, err = events.Encode(ev)
	}
	if err != nil {
		return fmt.Errorf("projector: emit %s: %w", subject, err)
	}
	tx.emitted = append(tx.emitted, outboxRow{Subject: subject, ID: ev.ID, Data: data, Trace: traceOf(tx.msg)})
	return nil
}

// AfterCommit runs fn once the batch that holds this message is committed,
// on the runner's goroutine, after the functions given before it: for what
// a projection sends outside the log and its view (a live preview on core
// NATS), which must go out once per message of the log whatever the
// runner applies again. fn never runs for a message whose Tx is dropped (a
// rejection, a fault: fault.go applies the batch again, giving fn again),
// for a batch that is not committed, or in ModeReplay (the live view sent
// it). A panic of fn's is logged; the batch stays committed. fn must not
// block.
func (tx *Tx) AfterCommit(fn func()) {
	tx.after = append(tx.after, fn)
}

// Msg returns the message being applied.
func (tx *Tx) Msg() *Msg { return tx.msg }

func (tx *Tx) reset(m *Msg) {
	clear(tx.overlay)
	tx.emitted = tx.emitted[:0]
	tx.undo = tx.undo[:0]
	clear(tx.after)
	tx.after = tx.after[:0]
	tx.msg = m
}

// begin starts a batch.
func (tx *Tx) begin(b *pebble.Batch) {
	tx.batch = b
	if tx.pending == nil {
		tx.pending = make(map[string]*[]byte)
	}
	clear(tx.pending) // an aborted batch's appends were never committed
	clear(tx.afterBatch)
	tx.afterBatch = tx.afterBatch[:0] // nor were its AfterCommit functions
}

// committed runs the batch's AfterCommit functions (unless run is false)
// and lets go of them.
func (tx *Tx) committed(run bool, onPanic func(v any, stack []byte)) {
	fns := tx.afterBatch
	tx.afterBatch = nil
	if !run {
		return
	}
	for _, fn := range fns {
		if _, fe := contain(func() error { fn(); return nil }); fe != nil {
			onPanic(fe.Value, fe.Stack)
		}
	}
}

// rollback takes back the appends of a message that failed (its overlay is
// dropped by the next reset).
func (tx *Tx) rollback() {
	for i := len(tx.undo) - 1; i >= 0; i-- {
		u := tx.undo[i]
		if u.key != "" {
			delete(tx.pending, u.key)
		} else {
			*u.p = (*u.p)[:u.n]
		}
	}
	tx.undo = tx.undo[:0]
}

// mergeAppends writes the batch's appends into the Pebble batch, one merge
// per key.
func (tx *Tx) mergeAppends() error {
	for k, v := range tx.pending { // order does not matter: keys are distinct
		if err := tx.batch.Merge(stateKey([]byte(k)), *v, nil); err != nil {
			return fmt.Errorf("projector: batch merge: %w", err)
		}
	}
	clear(tx.pending)
	return nil
}

// flush moves the overlay into the batch. A key set or deleted here drops
// what earlier messages of the batch appended to it.
func (tx *Tx) flush() error {
	tx.undo = tx.undo[:0]
	tx.afterBatch = append(tx.afterBatch, tx.after...)
	clear(tx.after)
	tx.after = tx.after[:0]
	for k, v := range tx.overlay { // order does not matter: keys are distinct
		delete(tx.pending, k)
		var err error
		if v == nil {
			err = tx.batch.Delete(stateKey([]byte(k)), nil)
		} else {
			err = tx.batch.Set(stateKey([]byte(k)), *v, nil)
		}
		if err != nil {
			return fmt.Errorf("projector: batch write: %w", err)
		}
	}
	return nil
}

func prefixUpper(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}
