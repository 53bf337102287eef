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
	"github.com/toolstream/toolstream/internal/logread"
)

// Meta is where an event is in the log and the envelope it carries.
type Meta struct {
	Stream  string // the log's stream (events.StreamCalls, events.StreamOut)
	Seq     uint64 // its sequence there; 0 for a value read Live
	Subject string
	Kind    events.Kind // the event's kind (events.KindCallCompleted…)
	ID      string      // the event's id (deterministic: the same decision, the same id)
	Tenant  string
	User    string
	Session string
	Run     string
	Step    string
	// Response and Item name the model response and its output item;
	// CallID is the provider's call id.
	Response, Item, CallID string
	At                     time.Time // the event's time
	Stored                 time.Time // when the log stored it; zero for a value read Live
}

// CallKey is the idempotency key of the call the event is about,
// tenant/run/step/call, as the executor derives it from the envelope
// (executor.CallKey; a test holds them equal): without a step, the
// response stands for it; without a call id, the item.
func (m Meta) CallKey() string {
	step, call := m.Step, m.CallID
	if step == "" {
		step = m.Response
	}
	if call == "" {
		call = m.Item
	}
	return events.IdempotencyKey(m.Tenant, m.Run, step, call)
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
	after   uint64
	afterIn map[string]uint64 // by stream
	follow  bool
	live    bool
	only    string // one subject of the kind read instead of the tenant's (see onSubject)
}

// onSubject reads only subject, one subject of the tenant's of the kind
// read (built by package events): the server's subject index finds its
// messages, none of the others is sent.
func onSubject(subject string) ReadOption { return func(r *readConfig) { r.only = subject } }

// After starts the read after the stream sequence seq (a value's
// Meta.Seq): what a consumer that stored its position resumes with. A
// read of several streams (Activity) takes AfterIn instead.
func After(seq uint64) ReadOption { return func(r *readConfig) { r.after = seq } }

// AfterIn starts the read of the log's stream (a value's Meta.Stream)
// after its sequence seq: a read of several streams (Activity) has a
// position in each, and resumes with one AfterIn per stream.
func AfterIn(stream string, seq uint64) ReadOption {
	return func(r *readConfig) {
		if r.afterIn == nil {
			r.afterIn = map[string]uint64{}
		}
		r.afterIn[stream] = seq
	}
}

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
	return readKind(ctx, c, "call", tenant, opts, callOf)
}

// callOf is the Call of a call outcome event.
func callOf(ev *events.Event, m Meta) (Call, bool) {
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
}

// Results iterates over the results of tenant's calls (stream TS_OUT, ts.result): successes and
// failures. Acknowledgement and errors as Calls.
func (c *Client) Results(ctx context.Context, tenant string, opts ...ReadOption) iter.Seq2[Result, error] {
	return readKind(ctx, c, "result", tenant, opts, resultOf)
}

// resultOf is the Result of a call's success or failure.
func resultOf(ev *events.Event, m Meta) (Result, bool) {
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
}

// Verdicts iterates over the verifier's verdicts on tenant's answers and
// the judges' (stream TS_OUT, ts.answer). Acknowledgement and errors as
// Calls.
func (c *Client) Verdicts(ctx context.Context, tenant string, opts ...ReadOption) iter.Seq2[Verdict, error] {
	return readKind(ctx, c, "answer", tenant, opts, verdictOf)
}

// verdictOf is the Verdict of the verifier's or a judge's event.
func verdictOf(ev *events.Event, m Meta) (Verdict, bool) {
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
}

// metaOf is the Meta of ev, read from stream at seq on subject, stored at
// stored (Unix ns; 0: not known, a value read live).
func metaOf(stream string, seq uint64, subject string, stored int64, ev *events.Event) Meta {
	m := Meta{Stream: stream, Seq: seq, Subject: subject, Kind: ev.Kind, ID: ev.ID, Tenant: ev.Tenant, User: ev.User,
		Session: ev.Session, Run: ev.Run, Step: ev.Step, Response: ev.Response, Item: ev.Item, CallID: ev.CallID,
		At: time.Unix(0, ev.At)}
	if stored != 0 {
		m.Stored = time.Unix(0, stored)
	}
	return m
}

// errStop ends a read the caller broke out of.
var errStop = errors.New("client: stop")

// readKind reads tenant's subjects of one kind (one stream of the log,
// one filter: the server skips the rest) and yields the values conv makes
// of the events it takes.
func readKind[T any](ctx context.Context, c *Client, kind, tenant string, opts []ReadOption, conv func(*events.Event, Meta) (T, bool)) iter.Seq2[T, error] {
	return readKinds(ctx, c, []string{kind}, tenant, opts, conv)
}

// allTenants is the filter of every tenant's subjects of each kind.
var allTenants = map[string]string{"call": events.AllCalls, "resp": events.AllResponses, "exec": events.AllExec,
	"approval": events.AllApprovals, "result": events.AllResults, "answer": events.AllAnswers}

// readKinds reads tenant's subjects of the kinds (AllTenants: every
// tenant's), each stream of the log that holds some of them with its own
// position: one after another in the log's order of streams, or with
// Follow all at once, interleaved as they arrive (each stream's order
// holds). It yields the values conv makes of the events it takes.
func readKinds[T any](ctx context.Context, c *Client, kinds []string, tenant string, opts []ReadOption, conv func(*events.Event, Meta) (T, bool)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		var rc readConfig
		for _, o := range opts {
			o(&rc)
		}
		byStream := map[string][]string{} // the filters of each stream
		var filters []string
		for _, kind := range kinds {
			filter, err := events.TenantFilter(kind, tenant)
			if rc.only != "" && len(kinds) == 1 {
				filter = rc.only
			} else if tenant == AllTenants {
				filter, err = allTenants[kind], nil
				if filter == "" {
					err = fmt.Errorf("no filter of every tenant for %q", kind)
				}
			}
			if err != nil {
				yield(zero, fmt.Errorf("%w: %w", ErrBadInput, err))
				return
			}
			stream, err := events.StreamOf(filter)
			if err != nil {
				yield(zero, fmt.Errorf("%w: %w", ErrBadInput, err))
				return
			}
			byStream[stream] = append(byStream[stream], filter)
			filters = append(filters, filter)
		}
		if rc.live && (rc.after > 0 || len(rc.afterIn) > 0) {
			yield(zero, fmt.Errorf("%w: Live reads no history: After excludes it", ErrInvalidOption))
			return
		}
		if rc.after > 0 && len(byStream) > 1 {
			yield(zero, fmt.Errorf("%w: a read of %d streams resumes with AfterIn, not After", ErrInvalidOption, len(byStream)))
			return
		}
		var kr events.Keyring
		var err error
		if tenant == AllTenants {
			kr, err = c.allKeys(ctx)
		} else {
			kr, err = c.keyring(ctx, tenant)
		}
		if err != nil {
			yield(zero, err)
			return
		}
		// take yields the value of one message; false ends the read.
		take := func(stream string, seq uint64, subject string, stored int64, data []byte) bool {
			ev, err := events.DecodeAtWith(subject, data, kr)
			if err != nil {
				return yield(zero, &MalformedError{Stream: stream, Seq: seq, Subject: subject, Err: err})
			}
			v, ok := conv(ev, metaOf(stream, seq, subject, stored, ev))
			if !ok {
				return true // another kind on these subjects
			}
			return yield(v, nil)
		}
		if rc.live {
			c.readLive(ctx, filters, take, func(err error) { yield(zero, err) })
			return
		}
		var streams []string
		for _, st := range events.Streams {
			if _, ok := byStream[st]; ok {
				streams = append(streams, st)
			}
		}
		from := func(stream string) uint64 {
			if seq, ok := rc.afterIn[stream]; ok {
				return seq + 1
			}
			return rc.after + 1
		}
		cfg := func(stream string) logread.Config {
			cfg := logread.Config{Conn: c.nc, Stream: stream, From: from(stream), Follow: rc.follow}
			if fs := byStream[stream]; len(fs) == 1 {
				cfg.Filter = fs[0] // the server skips the rest
			} else {
				cfg.Subjects = fs
			}
			return cfg
		}
		mark := c.mark()
		fail := func(err error) {
			if err != nil && !errors.Is(err, errStop) && ctx.Err() == nil {
				yield(zero, fmt.Errorf("client: read %v of %s: %w", kinds, tenant, c.refused(mark, err)))
			}
		}
		if !rc.follow || len(streams) == 1 {
			for _, st := range streams {
				err := logread.Read(ctx, cfg(st), func(batch []*logread.Msg) error {
					for _, m := range batch {
						if !take(st, m.Seq, m.Subject, m.Time, m.Data) {
							return errStop
						}
					}
					return nil
				})
				if err != nil {
					fail(err)
					return
				}
			}
			return
		}
		// Follow several streams: each is read by a goroutine of its own,
		// and their batches are taken here, one at a time.
		type batch struct {
			stream string
			msgs   []*logread.Msg
		}
		rctx, cancel := context.WithCancel(ctx)
		defer cancel()
		batches := make(chan batch)
		errs := make(chan error, len(streams))
		for _, st := range streams {
			go func() {
				errs <- logread.Read(rctx, cfg(st), func(msgs []*logread.Msg) error {
					select {
					case batches <- batch{st, msgs}:
						return nil
					case <-rctx.Done():
						return errStop
					}
				})
			}()
		}
		for running := len(streams); running > 0; {
			select {
			case b := <-batches:
				for _, m := range b.msgs {
					if !take(b.stream, m.Seq, m.Subject, m.Time, m.Data) {
						return
					}
				}
			case err := <-errs:
				running--
				if err != nil && !errors.Is(err, errStop) {
					fail(err)
					return
				}
			}
		}
	}
}

// liveBufferMax bounds the messages a live read holds that its caller
// has not taken; beyond it the server's slow-consumer limit drops them
// (nats.go reports it to the logger).
const liveBufferMax = 4096

// readLive subscribes to filters and takes what arrives until ctx ends or
// take says stop.
func (c *Client) readLive(ctx context.Context, filters []string, take func(string, uint64, string, int64, []byte) bool, fail func(error)) {
	ch, stop, err := c.subscribeLive(ctx, filters)
	if err != nil {
		if ctx.Err() == nil {
			fail(err)
		}
		return
	}
	defer stop()
	takeLive(ctx, ch, take)
}

// subscribeLive subscribes to filters and returns once the server has the
// subscriptions (a flush: the server answers it after it took them), so
// whatever is published after it returns arrives on the channel; stop
// unsubscribes. A subscription the server refused is ErrPermissionDenied.
func (c *Client) subscribeLive(ctx context.Context, filters []string) (msgs <-chan *nats.Msg, stop func(), err error) {
	ch := make(chan *nats.Msg, liveBufferMax)
	mark := c.mark()
	var subs []*nats.Subscription
	stop = func() {
		for _, sub := range subs {
			sub.Unsubscribe()
		}
	}
	for _, filter := range filters {
		var sub *nats.Subscription
		if sub, err = c.nc.ChanSubscribe(filter, ch); err != nil {
			break
		}
		subs = append(subs, sub)
	}
	if err == nil {
		// The server has the subscriptions (or refused them). A watch's ctx
		// often has no deadline (until interrupted), which FlushWithContext
		// refuses: the flush is bounded by the request timeout.
		fctx, cancel := c.requestContext(ctx)
		err = c.nc.FlushWithContext(fctx)
		cancel()
	}
	if last := c.nc.LastError(); err == nil && last != mark && errors.Is(last, nats.ErrPermissionViolation) {
		err = fmt.Errorf("%w: %w", ErrPermissionDenied, last)
	}
	if err != nil {
		stop()
		return nil, nil, fmt.Errorf("client: subscribe %v: %w", filters, c.refused(mark, err))
	}
	return ch, stop, nil
}

// takeLive takes what arrives on ch until ctx ends or take says stop.
func takeLive(ctx context.Context, ch <-chan *nats.Msg, take func(string, uint64, string, int64, []byte) bool) {
	for {
		select {
		case <-ctx.Done():
			return
		case m := <-ch:
			stream, _ := events.StreamOf(m.Subject)
			if !take(stream, 0, m.Subject, 0, m.Data) {
				return
			}
		}
	}
}
