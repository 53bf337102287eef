package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/logread"
)

// Meta is where an event is in the log and the envelope it carries.
type Meta struct {
	Stream  string // the log's stream (events.StreamCalls, events.StreamOut)
	Seq     uint64 // its sequence there; 0 for a value read Live
	Subject string
	ID      string // the event's id (deterministic: the same decision, the same id)
	Tenant  string
	User    string
	Session string
	Run     string
	Step    string
	// Response and Item name the model response and its output item;
	// CallID is the provider's call id.
	Response, Item, CallID string
	At                     time.Time // the event's time
}

// CallOutcome is how the assembler decided a call.
type CallOutcome string

// The outcomes of a call.
const (
	CallCompleted  CallOutcome = "completed"  // whole and valid: it will run
	CallRejected   CallOutcome = "rejected"   // refused (Reason says why)
	CallIncomplete CallOutcome = "incomplete" // its stream ended or failed first
)

// Call is a call the assembler decided.
type Call struct {
	Meta
	Outcome CallOutcome
	Tool    string
	// Arguments: the canonical JSON object of a completed call; what was
	// received of a rejected one (not necessarily JSON); the partial
	// arguments of an incomplete one.
	Arguments json.RawMessage
	Reason    events.Reason // rejected or incomplete: why
	Detail    string
	DependsOn []string // completed: the call ids it waits for
	Repaired  []string // completed: repairs of almost-JSON arguments
	// From is what the call was built from (model events, deltas, bytes).
	From events.Provenance
}

// Result is the outcome of a call's execution.
type Result struct {
	Meta
	Tool string
	OK   bool
	// Result (JSON) and Summary of a success; RawRef names the object
	// holding a result too large for the log.
	Result  json.RawMessage
	Summary string
	RawRef  string
	// Error and Message of a failure.
	Error    events.ErrorType
	Message  string
	Attempts int
	Key      string // the call's idempotency key
}

// Verdict is what the verifier said of a final answer (Verified), or an
// external judge of one of its claims (Judged).
type Verdict struct {
	Meta
	Verified *events.AnswerVerified
	Judged   *events.JudgeVerdict
}

// ReadOption configures a read of the log.
type ReadOption func(*readConfig)

type readConfig struct {
	after  uint64
	follow bool
	live   bool
}

// After starts the read after the stream sequence seq (a value's
// Meta.Seq): what a consumer that stored its position resumes with.
func After(seq uint64) ReadOption { return func(r *readConfig) { r.after = seq } }

// Follow keeps reading as the log grows, until the context ends (the
// iteration then ends without error).
func Follow() ReadOption { return func(r *readConfig) { r.follow = true } }

// Live receives only what is written from now on, by a subscription,
// instead of reading the log: what a producer's identity may do (it may
// not read the log). Values read live have no sequence (Meta.Seq is 0) and
// none is delivered again; it implies Follow and excludes After.
func Live() ReadOption { return func(r *readConfig) { r.live = true } }

// Calls iterates over the calls the assembler decided for tenant, in the
// order of the log (stream TS_CALLS): completed, rejected and incomplete.
//
// Acknowledgement: none. A read leaves no state on the server (it reads
// by direct gets, as every reader of the log does: docs/design.md); its
// position is the caller's. A consumer that stores the Seq of the last
// value it handled and resumes with After(seq) handles every call at least
// once; storing it before handling, at most once.
//
// An event that does not decode comes back as a *MalformedError (its
// Stream, Seq and Subject) and the iteration goes on; an error reading the
// log (ErrPermissionDenied, ErrBadInput for a bad tenant, a lost
// connection) comes back once and ends it.
func (c *Client) Calls(ctx context.Context, tenant string, opts ...ReadOption) iter.Seq2[Call, error] {
	return readKind(ctx, c, "call", tenant, opts, func(ev *events.Event, m Meta) (Call, bool) {
		call := Call{Meta: m}
		switch b := ev.Body.(type) {
		case *events.CallCompleted:
			call.Outcome, call.Tool, call.Arguments, call.DependsOn, call.Repaired, call.From = CallCompleted, b.Name, b.Arguments, b.DependsOn, b.Repaired, b.From
		case *events.CallRejected:
			call.Outcome, call.Tool, call.Arguments, call.Reason, call.Detail, call.From = CallRejected, b.Name, b.Arguments, b.Reason, b.Detail, b.From
		case *events.CallIncomplete:
			call.Outcome, call.Tool, call.Arguments, call.Reason, call.Detail, call.From = CallIncomplete, b.Name, b.Partial, b.Reason, b.Detail, b.From
		default:
			return call, false
		}
		return call, true
	})
}

// Results iterates over the results of tenant's calls (stream TS_OUT, ts.result): successes and
// failures. Acknowledgement and errors as Calls.
func (c *Client) Results(ctx context.Context, tenant string, opts ...ReadOption) iter.Seq2[Result, error] {
	return readKind(ctx, c, "result", tenant, opts, func(ev *events.Event, m Meta) (Result, bool) {
		r := Result{Meta: m}
		switch b := ev.Body.(type) {
		case *events.CallSucceeded:
			r.Tool, r.OK, r.Result, r.Summary, r.RawRef, r.Attempts, r.Key = b.Name, true, b.Result, b.Summary, b.RawRef, b.Attempts, b.Key
		case *events.CallFailed:
			r.Tool, r.Error, r.Message, r.Attempts, r.Key = b.Name, b.Error, b.Message, b.Attempts, b.Key
		default:
			return r, false
		}
		return r, true
	})
}

// Verdicts iterates over the verifier's verdicts on tenant's answers and
// the judges' (stream TS_OUT, ts.answer). Acknowledgement and errors as
// Calls.
func (c *Client) Verdicts(ctx context.Context, tenant string, opts ...ReadOption) iter.Seq2[Verdict, error] {
	return readKind(ctx, c, "answer", tenant, opts, func(ev *events.Event, m Meta) (Verdict, bool) {
		v := Verdict{Meta: m}
		switch b := ev.Body.(type) {
		case *events.AnswerVerified:
			v.Verified = b
		case *events.JudgeVerdict:
			v.Judged = b
		default:
			return v, false
		}
		return v, true
	})
}

// errStop ends a read the caller broke out of.
var errStop = errors.New("client: stop")

// readKind reads tenant's subjects of one kind (one stream of the log,
// one filter: the server skips the rest) and yields the values conv makes
// of the events it takes.
func readKind[T any](ctx context.Context, c *Client, kind, tenant string, opts []ReadOption, conv func(*events.Event, Meta) (T, bool)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		var rc readConfig
		for _, o := range opts {
			o(&rc)
		}
		filter, err := events.TenantFilter(kind, tenant)
		if err != nil {
			yield(zero, fmt.Errorf("%w: %w", ErrBadInput, err))
			return
		}
		stream, err := events.StreamOf(filter)
		if err != nil {
			yield(zero, fmt.Errorf("%w: %w", ErrBadInput, err))
			return
		}
		if rc.live && rc.after > 0 {
			yield(zero, fmt.Errorf("%w: Live reads no history: After excludes it", ErrInvalidOption))
			return
		}
		kr, err := c.keyring(ctx, tenant)
		if err != nil {
			yield(zero, err)
			return
		}
		// take yields the value of one message; false ends the read.
		take := func(seq uint64, subject string, data []byte) bool {
			ev, err := events.DecodeAtWith(subject, data, kr)
			if err != nil {
				return yield(zero, &MalformedError{Stream: stream, Seq: seq, Subject: subject, Err: err})
			}
			v, ok := conv(ev, Meta{Stream: stream, Seq: seq, Subject: subject, ID: ev.ID, Tenant: ev.Tenant, User: ev.User,
				Session: ev.Session, Run: ev.Run, Step: ev.Step, Response: ev.Response, Item: ev.Item, CallID: ev.CallID,
				At: time.Unix(0, ev.At)})
			if !ok {
				return true // another kind on these subjects
			}
			return yield(v, nil)
		}
		if rc.live {
			c.readLive(ctx, stream, filter, take, func(err error) { yield(zero, err) })
			return
		}
		mark := c.mark()
		err = logread.Read(ctx, logread.Config{Conn: c.nc, Stream: stream, Filter: filter, From: rc.after + 1, Follow: rc.follow},
			func(batch []*logread.Msg) error {
				for _, m := range batch {
					if !take(m.Seq, m.Subject, m.Data) {
						return errStop
					}
				}
				return nil
			})
		if err != nil && !errors.Is(err, errStop) && ctx.Err() == nil {
			yield(zero, fmt.Errorf("client: read %s of %s: %w", kind, tenant, c.refused(mark, err)))
		}
	}
}

// liveBufferMax bounds the messages a live read holds that its caller
// has not taken; beyond it the server's slow-consumer limit drops them
// (nats.go reports it to the logger).
const liveBufferMax = 4096

// readLive subscribes to filter and takes what arrives until ctx ends or
// take says stop.
func (c *Client) readLive(ctx context.Context, stream, filter string, take func(uint64, string, []byte) bool, fail func(error)) {
	ch := make(chan *nats.Msg, liveBufferMax)
	mark := c.mark()
	sub, err := c.nc.ChanSubscribe(filter, ch)
	if err == nil {
		err = c.nc.FlushWithContext(ctx) // the server has the subscription (or refused it)
	}
	if last := c.nc.LastError(); err == nil && last != mark && errors.Is(last, nats.ErrPermissionViolation) {
		err = fmt.Errorf("%w: %w", ErrPermissionDenied, last)
	}
	if err != nil {
		if ctx.Err() == nil {
			fail(fmt.Errorf("client: subscribe %s: %w", filter, c.refused(mark, err)))
		}
		if sub != nil {
			sub.Unsubscribe()
		}
		return
	}
	defer sub.Unsubscribe()
	for {
		select {
		case <-ctx.Done():
			return
		case m := <-ch:
			if !take(0, m.Subject, m.Data) {
				return
			}
		}
	}
}
