package executor

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/vmihailenco/msgpack/v5"
)

// The record of a call lives in a JetStream key-value bucket, where every
// executor sees it, and changes only by compare-and-set on its revision
// (kv.Create for the first write, kv.Update(key, value, revision) after).
// Whoever wins a compare-and-set has decided; whoever loses reads again.

// Record states.
const (
	statePending  = "pending"           // only an approval decision is known
	stateAwaiting = "awaiting_approval" // ApprovalRequested published; the input is acked
	stateRunning  = "running"           // a lease is (or was) held
	stateDone     = "done"              // the outcome is recorded
	stateSkipped  = "not_executed"      // CallRejected / CallIncomplete: for dependents only
)

// Approval decisions kept in a record.
const (
	approvalGranted = "granted"
	approvalDenied  = "denied"
)

// record is one call's shared state.
type record struct {
	Key      string `msgpack:"k"`
	State    string `msgpack:"s"`
	Name     string `msgpack:"n,omitempty"`
	Version  int    `msgpack:"ver,omitempty"` // pinned when the call is first decided
	InputSeq uint64 `msgpack:"in,omitempty"`  // stream sequence of the CallCompleted that carries the call
	Response string `msgpack:"r,omitempty"`   // with Item: the call's identity, to tell key reuse from duplicates
	Item     string `msgpack:"i,omitempty"`

	Owner      string `msgpack:"o,omitempty"`  // executor holding the lease
	LeaseUntil int64  `msgpack:"lu,omitempty"` // Unix ns, by the owner's clock
	Attempt    int    `msgpack:"a,omitempty"`  // invocations begun
	Failed     int    `msgpack:"f,omitempty"`  // attempts that failed with a recorded error
	Invoked    bool   `msgpack:"iv,omitempty"` // invocation Attempt began and has no recorded result
	Takeovers  int    `msgpack:"to,omitempty"`

	Approval       string `msgpack:"ap,omitempty"`
	ApprovalBy     string `msgpack:"apb,omitempty"`
	ApprovalReason string `msgpack:"apr,omitempty"`

	Outcome *outcome `msgpack:"out,omitempty"`

	// logged: this record was not read from the bucket but stands for the
	// call's outcome in the log (loggedRecord); it is never written.
	logged bool `msgpack:"-"`
}

// outcome is a call's recorded result: the exact event that announces it,
// so a republish after a crash is byte for byte the same.
type outcome struct {
	Subject string           `msgpack:"s"`
	ID      string           `msgpack:"id"`
	Data    []byte           `msgpack:"d"`
	Error   events.ErrorType `msgpack:"e,omitempty"` // "" on success
	Message string           `msgpack:"m,omitempty"`
}

// recordKey encodes an idempotency key as a bucket key. Bucket keys allow
// only [-/_=.a-zA-Z0-9] and '.' separates tokens, so the key is base64url
// encoded after the tenant: "c.<tenant>.<base64url(key)>". The tenant stays
// readable, so one tenant's records can be listed alone (invariant 7).
func recordKey(tenant, key string) string { return recordKeyWith("", tenant, key) }

// recordKeyWith is prefix + "." + recordKey(tenant, key) (recordKey alone
// for no prefix), built in one allocation: it is made for every call.
func recordKeyWith(prefix, tenant, key string) string {
	enc := base64.RawURLEncoding
	n := len("c.") + len(tenant) + 1 + enc.EncodedLen(len(key))
	if prefix != "" {
		n += len(prefix) + 1
	}
	var b strings.Builder
	b.Grow(n)
	if prefix != "" {
		b.WriteString(prefix)
		b.WriteByte('.')
	}
	b.WriteString("c.")
	b.WriteString(tenant)
	b.WriteByte('.')
	// Encoded in pieces of 48 bytes (64 characters, no padding between
	// them), so the key is not copied to the heap first.
	var chunk [64]byte
	for len(key) > 0 {
		m := min(len(key), 48)
		var src [48]byte
		copy(src[:], key[:m])
		enc.Encode(chunk[:], src[:m])
		b.Write(chunk[:enc.EncodedLen(m)])
		key = key[m:]
	}
	return b.String()
}

// CallKey is the idempotency key of a call event:
// events.IdempotencyKey(tenant, run, step, call). A call without a step uses
// its response id as the step, and a call without a provider call id uses
// its item id, so calls of different responses never share a key.
func CallKey(ev *events.Event) string {
	step, call := ev.Step, ev.CallID
	if step == "" {
		step = ev.Response
	}
	if call == "" {
		call = ev.Item
	}
	return events.IdempotencyKey(ev.Tenant, ev.Run, step, call)
}

// splitKey returns the parts of an idempotency key and whether it belongs
// to tenant (and is one IdempotencyKey writes, with a call id).
func splitKey(tenant, key string) (run, step, call string, ok bool) {
	t, run, step, call, ok := events.SplitIdempotencyKey(key)
	if !ok || t != tenant || call == "" {
		return "", "", "", false
	}
	return run, step, call, true
}

// store reads and writes records. A read or write that fails because the
// bucket is briefly unavailable (a stream leader change: timeouts, no
// responders) is tried again, paced by retry, for at most bound or until
// the caller's context ends, whichever comes first.
type store struct {
	kv    jetstream.KeyValue
	retry retryPolicy
	bound time.Duration // 0: the caller's context alone bounds the tries
	// nc and direct, when set, let exists ask for a key's last entry by a
	// direct get on the bucket's stream named by subject
	// (direct + record key): no request body, no decoding; it waits at
	// most timeout (the JetStream API's default).
	nc      *nats.Conn
	direct  string
	timeout time.Duration
	looks   looker // exists' batches (look.go)
	// ask sends the reads and writes of the bucket, where it answers
	// direct gets on the default API (ask.go): stream is its stream,
	// subjects the prefix of its keys' subjects ("$KV.<bucket>.").
	ask      *asker
	stream   string
	subjects string
	// writes, when set (tests), makes each of the asker's writes of the
	// value v: it calls write, or fails instead.
	writes func(v []byte, write func() (uint64, error)) (uint64, error)
}

// asks reports whether the bucket's reads and writes go through the asker.
func (s *store) asks() bool { return s.ask != nil && s.direct != "" }

// directGetPrefix is the subject prefix of direct gets of the last entry
// of a key of bucket, or "" when js does not use the default API.
func directGetPrefix(js jetstream.JetStream, bucket string) string {
	if !defaultAPI(js) {
		return ""
	}
	return "$JS.API.DIRECT.GET.KV_" + bucket + ".$KV." + bucket + "."
}

// defaultAPI reports whether js uses the default API subjects (no prefix
// of its own, no domain).
func defaultAPI(js jetstream.JetStream) bool {
	o := js.Options()
	return o.APIPrefix == "" && o.Domain == ""
}

// exists reports whether the bucket holds a record for key: a direct get
// of its last entry, together with the looks of other jobs asked
// meanwhile (look.go), where the bucket allows direct gets, else get.
func (s *store) exists(ctx context.Context, tenant, key string) (bool, error) {
	if s.direct == "" {
		rec, _, err := s.get(ctx, tenant, key)
		return rec != nil, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	found, err := s.existsTogether(ctx, recordKey(tenant, key))
	if errors.Is(err, errNoDirect) { // the bucket allows no direct gets after all
		rec, _, err := s.get(ctx, tenant, key)
		return rec != nil, err
	}
	if err != nil {
		return false, fmt.Errorf("executor: look for record %s: %w", key, err)
	}
	return found, nil
}

// deadline is when tries that start now stop: zero for none.
func (s *store) deadline() time.Time {
	if s.bound <= 0 {
		return time.Time{}
	}
	return time.Now().Add(s.bound)
}

// get returns the record and its revision; nil, 0 when there is none.
func (s *store) get(ctx context.Context, tenant, key string) (*record, uint64, error) {
	v, rev, err := s.entry(ctx, recordKey(tenant, key))
	if err != nil {
		return nil, 0, fmt.Errorf("executor: get record %s: %w", key, err)
	}
	if v == nil {
		return nil, 0, nil
	}
	var r record
	if err := msgpack.Unmarshal(v, &r); err != nil {
		return nil, 0, fmt.Errorf("executor: record %s: %w", key, err)
	}
	return &r, rev, nil
}

// entry returns the value at bucket key k and its revision; nil, 0 when
// there is none (or a deletion), tried again as get is.
func (s *store) entry(ctx context.Context, k string) ([]byte, uint64, error) {
	var v []byte
	var rev uint64
	err := retryUntil(ctx, s.retry, s.deadline(), func(ctx context.Context) error {
		var err error
		v, rev, _, err = s.entryOnce(ctx, k)
		return err
	})
	return v, rev, err
}

// entryOnce is one read of the last entry at bucket key k: its value and
// revision (nil, 0 when there is none), and, when it is a deletion, its
// revision in del.
func (s *store) entryOnce(ctx context.Context, k string) (v []byte, rev, del uint64, err error) {
	if s.asks() {
		subj := s.subjects + k
		m, err := s.ask.ask(ctx, &nats.Msg{Subject: s.direct + k}, entryAnswer(s.stream, subj))
		switch {
		case err == nil && m.Header.Get("Status") == "404":
			return nil, 0, 0, nil
		case err == nil && m.Header.Get("Status") != "":
			return nil, 0, 0, fmt.Errorf("status %s %s", m.Header.Get("Status"), m.Header.Get("Description"))
		case err == nil:
			seq, perr := strconv.ParseUint(m.Header.Get("Nats-Sequence"), 10, 64)
			if perr != nil {
				return nil, 0, 0, fmt.Errorf("entry %s: sequence %q: %w", k, m.Header.Get("Nats-Sequence"), jetstream.ErrInvalidJSAck)
			}
			if deletion(m.Header) {
				return nil, 0, seq, nil
			}
			return m.Data, seq, 0, nil
		case !errors.Is(err, nats.ErrNoResponders):
			return nil, 0, 0, err
		}
		// No direct gets after all: through the bucket's client.
	}
	e, err := s.kv.Get(ctx, k)
	switch {
	case errors.Is(err, jetstream.ErrKeyDeleted) && e != nil:
		return nil, 0, e.Revision(), nil
	case errors.Is(err, jetstream.ErrKeyNotFound), errors.Is(err, jetstream.ErrKeyDeleted):
		return nil, 0, 0, nil
	case err != nil:
		return nil, 0, 0, err
	}
	return e.Value(), e.Revision(), 0, nil
}

// deletion reports whether a bucket entry's headers are a deletion (a
// delete or purge, or the server's marker of one), as nats.go reads them.
func deletion(h nats.Header) bool {
	return !live(h) || h.Get(jetstream.MarkerReasonHeader) != ""
}

// put writes r if the record is still at rev (0: does not exist yet). It
// returns errConflict when it changed.
//
// A try that timed out may still have been applied, its answer lost; the
// next try then loses the compare-and-set to it. So a conflict after such
// a try reads the record back: if it holds exactly what put wrote, the
// write is done, at the revision read.
func (s *store) put(ctx context.Context, tenant string, r *record, rev uint64) (uint64, error) {
	v := r.marshal()
	k := recordKey(tenant, r.Key)
	var nrev uint64
	var err error
	unsure := false // a try failed transiently: it may have been applied
	err = retryUntil(ctx, s.retry, s.deadline(), func(ctx context.Context) error {
		nrev, err = s.writeOnce(ctx, k, v, rev)
		if errors.Is(err, errConflict) && unsure {
			got, grev, _, gerr := s.entryOnce(ctx, k)
			switch {
			case gerr != nil:
				return gerr // transient: try the write (and this read) again
			case got != nil && bytes.Equal(got, v):
				nrev = grev
				return nil
			}
		}
		unsure = unsure || transient(err)
		return err
	})
	if errors.Is(err, errConflict) {
		return 0, errConflict
	}
	if err != nil {
		return 0, fmt.Errorf("executor: write record %s: %w", r.Key, err)
	}
	return nrev, nil
}

// writeOnce is one compare-and-set of the value v at key k.
func (s *store) writeOnce(ctx context.Context, k string, v []byte, rev uint64) (uint64, error) {
	if s.asks() {
		write := func() (uint64, error) {
			nrev, err := s.compareAndSet(ctx, k, v, rev)
			if errors.Is(err, errConflict) && rev == 0 {
				// A key whose last entry is a deletion is created over it,
				// as kv.Create does.
				_, _, del, gerr := s.entryOnce(ctx, k)
				if gerr != nil {
					return 0, gerr
				}
				if del != 0 {
					return s.compareAndSet(ctx, k, v, del)
				}
			}
			return nrev, err
		}
		if s.writes != nil {
			return s.writes(v, write)
		}
		return write()
	}
	var nrev uint64
	var err error
	if rev == 0 {
		nrev, err = s.kv.Create(ctx, k, v)
	} else {
		nrev, err = s.kv.Update(ctx, k, v, rev)
	}
	if errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		return 0, errConflict
	}
	return nrev, err
}

// compareAndSet publishes v at bucket key k if the key's last entry is at
// rev (0: there is none), through the asker: only the bucket's stream's
// answer is taken. It returns errConflict when the key is elsewhere.
func (s *store) compareAndSet(ctx context.Context, k string, v []byte, rev uint64) (uint64, error) {
	m := &nats.Msg{Subject: s.subjects + k, Data: v, Header: nats.Header{}}
	m.Header.Set(jetstream.ExpectedLastSubjSeqHeader, strconv.FormatUint(rev, 10))
	r, err := s.ask.ask(ctx, m, ackAnswer(s.stream))
	if err != nil {
		return 0, err
	}
	var ack jetstream.PubAck
	err = readPubAckTo(r.Data, &ack)
	var ae *jetstream.APIError
	if errors.As(err, &ae) && (ae.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence || ae.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant) {
		return 0, errConflict
	}
	if err != nil {
		return 0, err
	}
	return ack.Sequence, nil
}

func (r *record) clone() *record {
	c := *r
	return &c
}
