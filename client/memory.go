package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/erasure"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/internal/logread"
	"github.com/toolstream/toolstream/memory/memapi"
)

// The memory service (tsv.memory.<verb>, package memory): a user's
// long-term memory, written and read through a running server, and
// forgotten so that nothing Toolstream stores can read it again. Writes
// are answered once the memory projection applied them. Writing,
// forgetting and erasing are the operator's (and the admin's).

// Observation is a typed memory record: what kind of statement it is,
// the slot it fills (subject, attribute, value) and the text that says it.
type Observation struct {
	ID         string // the record's id; required
	Kind       string // preference, constraint, fact or episode
	Subject    string
	Attribute  string
	Value      string
	Polarity   string // positive (default) or negative
	Scope      string // the slot's scope (work, home…)
	Text       string
	TTL        time.Duration // how long it holds; 0 until it is said otherwise
	ValidUntil time.Time     // or until when
	Confidence float64
	At         time.Time // when it was said; zero: now
}

func (o Observation) op(tenant, user string) memapi.Op {
	op := memapi.Op{Tenant: tenant, User: user, ID: o.ID, Kind: o.Kind, Subject: o.Subject, Attribute: o.Attribute,
		Value: o.Value, Polarity: o.Polarity, Scope: o.Scope, Text: o.Text, Confidence: o.Confidence, Time: rfc3339(o.At)}
	if o.TTL > 0 {
		op.TTL = o.TTL.String()
	}
	op.ValidUntil = rfc3339(o.ValidUntil)
	return op
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// Message writes a user's message: the server's extractor reads its
// statements, each a record under a key of its own. id names the message
// so that a retry is stored once ("" makes one from the time); at is when
// it was said (zero: now). ReplyTo says which turn it answers.
func (c *Client) Message(ctx context.Context, tenant, user, id, text string, at time.Time, opts ...MessageOption) (memapi.WriteReply, error) {
	op := memapi.Op{Tenant: tenant, User: user, ID: id, Text: text, Time: rfc3339(at)}
	for _, o := range opts {
		o(&op)
	}
	return c.memoryWrite(ctx, "message", op)
}

// MessageOption adds to a message Message writes.
type MessageOption func(*memapi.Op)

// ReplyTo is the text of the turn the message answers (the assistant's,
// or another speaker's, as said): the questions it asks are kept as the
// context of the message's records ("Five years already!" is found by
// "How long have you been married?"), sealed and forgotten with them,
// never a record of their own. It is text the writer gives, not an id:
// the service looks nothing up by it.
func ReplyTo(turn string) MessageOption { return func(op *memapi.Op) { op.ReplyTo = turn } }

// Observe writes a typed record. A record id reused with other content is
// ErrBadInput: a record changes only by Correct.
func (c *Client) Observe(ctx context.Context, tenant, user string, o Observation) (memapi.WriteReply, error) {
	if o.ID == "" {
		return memapi.WriteReply{}, fmt.Errorf("%w: an observation needs a record id", ErrBadInput)
	}
	return c.memoryWrite(ctx, "observe", o.op(tenant, user))
}

// Correct writes a new version of record o.ID that supersedes version
// expected, the one the caller read. A correction of another version is
// refused (ErrStaleVersion: read again, decide again); an unknown record
// is ErrNotFound.
func (c *Client) Correct(ctx context.Context, tenant, user string, expected int, o Observation) (memapi.WriteReply, error) {
	op := o.op(tenant, user)
	op.ExpectedVersion = expected
	return c.memoryWrite(ctx, "correct", op)
}

// RecallOptions narrow a recall.
type RecallOptions struct {
	K int // messages whose records to return at most (a message's other statements do not count); 0: the service's default
	// BudgetTokens: the records whose texts fit in this many estimated
	// tokens, best first (the first always); 0: the service's byte budget.
	BudgetTokens int
	AsOf         time.Time // what held then, as known then
	At           time.Time // the query's time; zero: now
	History      bool      // superseded and expired records too
	Scopes       []string  // only these scopes
}

// Recall returns the user's memories for a query: hard constraints first,
// then ranked, with the conflicts between them.
func (c *Client) Recall(ctx context.Context, tenant, user, query string, opts RecallOptions) (memapi.RecallOut, error) {
	var out memapi.RecallOut
	err := c.memoryRequest(ctx, "recall", memapi.Op{Op: "recall", Tenant: tenant, User: user, Query: query, K: opts.K, BudgetTokens: opts.BudgetTokens,
		AsOf: rfc3339(opts.AsOf), Time: rfc3339(opts.At), History: opts.History, Scopes: opts.Scopes}, &out)
	if err == nil && out.Error != "" {
		err = fmt.Errorf("%w: recall: %s", ErrBadInput, out.Error)
	}
	return out, err
}

// Records lists the user's records: the current version of each active
// one, or with inactive, every one (superseded, expired, cold).
func (c *Client) Records(ctx context.Context, tenant, user string, inactive bool) ([]memapi.Record, error) {
	var out []memapi.Record
	err := c.memoryRequest(ctx, "list", memapi.Op{Tenant: tenant, User: user, History: inactive}, &out)
	return out, err
}

// Constraints returns the user's constraints in force at asOf (zero:
// now), as known then: for each constraint record, the version that held
// (a lifted, corrected or expired one is not in force). What the run
// driver checks an answer against.
func (c *Client) Constraints(ctx context.Context, tenant, user string, asOf time.Time) ([]memapi.Record, error) {
	var out []memapi.Record
	err := c.memoryRequest(ctx, "constraints", memapi.Op{Tenant: tenant, User: user, AsOf: rfc3339(asOf)}, &out)
	return out, err
}

// RecordHistory returns every version of a record, oldest first;
// ErrNotFound for a record the user never had or that was forgotten.
func (c *Client) RecordHistory(ctx context.Context, tenant, user, id string) ([]memapi.Record, error) {
	var out []memapi.Record
	err := c.memoryRequest(ctx, "history", memapi.Op{Tenant: tenant, User: user, ID: id}, &out)
	return out, err
}

// Erasure is what EraseUser did: the data keys destroyed, the raw events
// erased, and the sequence of the erasure's tombstone in each stream of
// the log (package erasure's Result, named here for the SDK's callers).
type Erasure = erasure.Result

// Forgotten is what Forget did.
type Forgotten struct {
	memapi.WriteReply
	Keys      int    `json:"keys_destroyed"`      // data keys destroyed
	Tombstone uint64 `json:"tombstone,omitempty"` // the erasure's tombstone in TS_MEM
}

// Forget erases one record, every version of it: the memory service
// tombstones it in the view, then the data keys of every id it names are
// destroyed, so its text is unreadable in the log and every copy of it,
// and the erasure's tombstone makes the memory projection rebuild its
// view without it (when Tombstone is applied: the caller may wait for
// it). It returns ErrNotFound for a record the user does not have, which
// is also ErrErased when the record was forgotten before.
func (c *Client) Forget(ctx context.Context, tenant, user, id string) (Forgotten, error) {
	// A record the user does not have (or no longer has) is ErrNotFound,
	// and nothing is written: the service tombstones any id it is given and
	// says applied.
	hist, err := c.RecordHistory(ctx, tenant, user, id)
	if err != nil {
		return Forgotten{}, fmt.Errorf("client: forget %q of user %s in tenant %s: %w", id, user, tenant, err)
	}
	if len(hist) > 0 {
		id = hist[0].ID // the record's own id ("m1" for "m1#1", its message's first statement)
	}
	rep, err := c.memoryWrite(ctx, "forget", memapi.Op{Tenant: tenant, User: user, ID: id})
	out := Forgotten{WriteReply: rep}
	if err != nil || len(rep.Erase) == 0 {
		return out, err
	}
	ks, b, err := c.eraser(ctx)
	if err != nil {
		return out, err
	}
	// Every key but the record's own first; erasure.Record destroys that
	// one and writes the tombstone, after which the view rebuilds.
	for _, e := range rep.Erase {
		if e == id {
			continue
		}
		n, err := ks.EraseRecord(ctx, tenant, user, e)
		if err != nil {
			return out, fmt.Errorf("client: forget %s: erase %s: %w", id, e, c.refused(nil, err))
		}
		out.Keys += n
	}
	res, err := erasure.Record(ctx, b, ks, tenant, user, id)
	out.Keys += res.Keys
	out.Tombstone = res.Tombstones[events.StreamMemory]
	if err != nil {
		return out, fmt.Errorf("client: forget %s: %w", id, classify(err))
	}
	return out, nil
}

// EraseUser erases a user of a tenant from everything Toolstream stores:
// the data keys of their events (their memory, messages, the model text,
// arguments and results of their runs, the verdicts about them) are
// destroyed, their raw events still in TS_IN deleted by overwriting, and
// an erasure tombstone written into every stream, from which each
// projection rebuilds its view without them (Erasure.Tombstones:
// the caller may wait for each). Idempotent.
func (c *Client) EraseUser(ctx context.Context, tenant, user string) (Erasure, error) {
	return c.eraseUser(ctx, tenant, user, false)
}

func (c *Client) eraseUser(ctx context.Context, tenant, user string, ifSeen bool) (Erasure, error) {
	if err := events.ValidTenant(tenant); err != nil || tenant == events.SystemTenant {
		return Erasure{}, fmt.Errorf("%w: tenant %q", ErrBadInput, tenant)
	}
	if user == "" {
		return Erasure{}, fmt.Errorf("%w: no user to erase", ErrBadInput)
	}
	ks, b, err := c.eraser(ctx)
	if err != nil {
		return Erasure{}, err
	}
	mark := c.mark()
	erase := erasure.User
	if ifSeen {
		erase = erasure.UserIfSeen
	}
	res, err := erase(ctx, b, ks, tenant, user)
	if errors.Is(err, erasure.ErrNothingToErase) {
		return res, fmt.Errorf("client: erase %s of %s: %w: %w", user, tenant, ErrNotFound, err)
	}
	if err != nil {
		return res, fmt.Errorf("client: erase %s of %s: %w", user, tenant, c.refused(mark, err))
	}
	return res, nil
}

// EraseUserIfSeen is EraseUser for a user the installation holds
// something of: where no key of the user is left to destroy and no raw event
// of theirs to delete (a user never seen, or erased before) it writes
// nothing, no tombstone that would make every view rebuild, and returns
// ErrNotFound (wrapping erasure.ErrNothingToErase). EraseUser finishes an
// erasure cut short before its tombstones.
func (c *Client) EraseUserIfSeen(ctx context.Context, tenant, user string) (Erasure, error) {
	return c.eraseUser(ctx, tenant, user, true)
}

// EraseUserLess erases what tenant's producers published without a user
// (no Ts-User header) from everything Toolstream stores: the key of the
// tenant's user-less scope, under which ingest sealed the raw copies and
// the model events, calls, results and verdicts normalised from them; the
// raw events without a user still in the clear; and every view, as
// EraseUser does for a user. No user's data is touched. The caller must
// name the tenant a second time in confirm (what an operator typed): a
// confirm that is not the tenant is ErrBadInput and erases nothing.
func (c *Client) EraseUserLess(ctx context.Context, tenant, confirm string) (Erasure, error) {
	if err := events.ValidTenant(tenant); err != nil || tenant == events.SystemTenant {
		return Erasure{}, fmt.Errorf("%w: tenant %q", ErrBadInput, tenant)
	}
	if confirm != tenant {
		return Erasure{}, fmt.Errorf("%w: %w", ErrBadInput, ErrNotConfirmed)
	}
	ks, b, err := c.eraser(ctx)
	if err != nil {
		return Erasure{}, err
	}
	mark := c.mark()
	res, err := erasure.UserLess(ctx, b, ks, tenant)
	if err != nil {
		return res, fmt.Errorf("client: erase what %s published without a user: %w", tenant, c.refused(mark, err))
	}
	return res, nil
}

// eraser is the key store that may destroy keys (the operator's, or the
// one given WithKeys) and the log as package erasure reaches it through
// the client's connection.
func (c *Client) eraser(ctx context.Context) (*keys.Store, erasure.Log, error) {
	ks, err := c.wholeStore(ctx)
	if err != nil {
		return nil, nil, err
	}
	return ks, eraseLog{c: c, keys: ks}, nil
}

// eraseLog is the log through the client's connection (erasure.Log):
// reads by direct gets, the stream looked up when asked for, events
// sealed with keys and published under the client's message-id key
// (events.OwnedMsgID: tombstones and memory events are the operator's).
type eraseLog struct {
	c    *Client
	keys events.Keyring
}

func (l eraseLog) Read(ctx context.Context, cfg logread.Config, fn func([]*logread.Msg) error) error {
	cfg.Conn = l.c.nc
	return logread.Read(ctx, cfg, fn)
}

func (l eraseLog) Stream(name string) jetstream.Stream {
	ctx, cancel := context.WithTimeout(context.Background(), l.c.o.requestTimeout)
	defer cancel()
	s, err := l.c.js.Stream(ctx, name)
	if err != nil {
		return nil
	}
	return s
}

func (l eraseLog) Publish(ctx context.Context, subject string, ev *events.Event) (*jetstream.PubAck, error) {
	data, err := events.EncodeSealed(ev, l.keys, "")
	if err != nil {
		return nil, err
	}
	ack, err := l.c.js.Publish(ctx, subject, data, jetstream.WithMsgID(events.OwnedMsgID(l.c.o.msgIDKey, subject, ev.ID)))
	if err != nil {
		return nil, fmt.Errorf("client: publish %s: %w", subject, err)
	}
	return ack, nil
}

// wholeStore is the key store of every tenant, as this identity reaches
// it (the one WithKeys gave, when it is a store), opened on first use: it
// asks the keys service (only the keys role and the admin reach the
// bucket), which erases only for the operator.
func (c *Client) wholeStore(ctx context.Context) (*keys.Store, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.eraseKeys == nil {
		if ks, ok := c.o.keys.(*keys.Store); ok {
			c.eraseKeys = ks
		} else {
			ks, err := keys.Open(ctx, keys.Config{JS: c.js, Remote: true, Logger: c.o.log, Timeout: c.o.requestTimeout})
			if err != nil {
				return nil, fmt.Errorf("client: the key store: %w", c.refused(nil, err))
			}
			c.eraseKeys = ks
		}
	}
	return c.eraseKeys, nil
}

// allKeys opens every tenant's personal data: the keys WithKeys gave, else
// the whole store.
func (c *Client) allKeys(ctx context.Context) (events.Keyring, error) {
	if c.o.keys != nil {
		return c.o.keys, nil
	}
	return c.wholeStore(ctx)
}

func (c *Client) memoryWrite(ctx context.Context, verb string, op memapi.Op) (memapi.WriteReply, error) {
	var out memapi.WriteReply
	if err := c.memoryRequest(ctx, verb, op, &out); err != nil {
		return out, err
	}
	if !out.Applied && verb != "message" {
		var sentinel error = ErrBadInput
		switch r := out.Rejected; {
		case strings.Contains(r, "version conflict"):
			sentinel = ErrStaleVersion
		case strings.Contains(r, "not found"), strings.Contains(r, "forgotten"):
			sentinel = ErrNotFound
		}
		return out, fmt.Errorf("%w: memory %s %s: %s", sentinel, verb, op.ID, out.Rejected)
	}
	return out, nil
}

// MemoryRequest sends op to the memory service's endpoint verb (recall,
// list, history, message, observe, correct, forget) and returns its JSON
// answer as it is: for tools that pass the service's requests through
// (the CLI prints them). A forget made so does not erase the record's
// keys: Forget does. Errors as the typed methods'.
func (c *Client) MemoryRequest(ctx context.Context, verb string, op memapi.Op) (json.RawMessage, error) {
	var out json.RawMessage
	err := c.memoryRequest(ctx, verb, op, &out)
	return out, err
}

func (c *Client) memoryRequest(ctx context.Context, verb string, op memapi.Op, out any) error {
	if err := events.ValidTenant(op.Tenant); err != nil {
		return fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	if op.User == "" {
		return fmt.Errorf("%w: memory belongs to a user: none given", ErrBadInput)
	}
	err := c.request(ctx, memapi.ServicePrefix+"."+verb, op, out)
	var se *ServiceError
	if errors.As(err, &se) && se.Code == "409" {
		return &StaleError{Reason: se.Message}
	}
	return err
}
