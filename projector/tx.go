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
}

type outboxRow struct {
	Subject string `msgpack:"s"`
	ID      string `msgpack:"id"`
	Data    []byte `msgpack:"d"`
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
	return getClone(tx.batch, stateKey(key))
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

// Scan calls fn for every key with prefix, in ascending order, merging the
// batch with this message's overlay.
func (tx *Tx) Scan(prefix []byte, fn func(key, value []byte) error) error {
	var over []string
	for k := range tx.overlay {
		if strings.HasPrefix(k, string(prefix)) {
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
			if valid && over[i] == string(key) {
				valid = it.Next()
			}
			if v := tx.overlay[over[i]]; v != nil {
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
		ev.Causation = fmt.Sprintf("seq:%d", tx.msg.Seq)
	}
	data, err := events.Encode(ev)
	if err != nil {
		return fmt.Errorf("projector: emit %s: %w", subject, err)
	}
	tx.emitted = append(tx.emitted, outboxRow{Subject: subject, ID: ev.ID, Data: data})
	return nil
}

// Msg returns the message being applied.
func (tx *Tx) Msg() *Msg { return tx.msg }

func (tx *Tx) reset(m *Msg) {
	clear(tx.overlay)
	tx.emitted = tx.emitted[:0]
	tx.msg = m
}

// flush moves the overlay into the batch.
func (tx *Tx) flush() error {
	for k, v := range tx.overlay { // order does not matter: keys are distinct
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
