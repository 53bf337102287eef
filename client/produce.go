package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/ingest"
	"github.com/toolstream/toolstream/internal/publish"
)

// The headers of the raw ingest protocol (ts.in.<tenant>.<format>.<stream>):
// the envelope, the event's position and the end of the stream. The
// ingest projection reads them (assembler.Header*; a test holds the two
// spellings equal).
const (
	headerTagged  = "Ts-Tagged"
	headerEnd     = "Ts-End"
	headerUser    = "Ts-User"
	headerSession = "Ts-Session"
	headerRun     = "Ts-Run"
	headerStep    = "Ts-Step"
	headerSeq     = "Ts-Seq"
)

// headerTraceParent is the W3C Trace Context header (Stream.TraceParent),
// on raw and canonical events alike; projections carry it to the events
// they emit (projector.Tx.Emit).
const headerTraceParent = "traceparent"

// StreamOption configures one provider stream a Writer publishes.
type StreamOption func(*Stream) error

// Stream names a provider stream and the envelope of its events. Writer
// options fill it in; Publish and NewWriter take it whole too (a Stream
// is a StreamOption of itself: WithStream).
type Stream struct {
	Tenant  string // required
	ID      string // the producer's stream id (a request id); required
	Format  string // an ingest format name or alias (ingest.ParseFormat); "" = auto
	Tagged  bool   // read <tool_call>{…}</tool_call> blocks in the text
	User    string // the end user: the data key that seals the events is theirs
	Session string
	Run     string // the agent run (part of the idempotency key)
	Step    string // the run's step (part of the idempotency key)
	// Raw publishes the provider's events verbatim to the ingest subject,
	// numbered, for the server's ingest projection to normalise, instead of
	// normalising here (they then stay in the clear in TS_IN for the raw
	// retention): what a producer that cannot normalise does.
	Raw bool
	// ClientRuns says the stream's client runs the calls itself: they are
	// recorded and assembled, and no executor runs them
	// (events.ResponseStarted.ClientRuns). Not with Raw.
	ClientRuns bool
	// ToolsOnly and Tools narrow the tools the stream's calls may name
	// (events.ResponseStarted.ToolsOnly): a call naming another is
	// rejected permission_denied. Not with Raw.
	ToolsOnly bool
	Tools     []string
	// TraceParent is a W3C traceparent (the producer's span, as
	// 00-<trace id>-<span id>-<flags>), carried in the "traceparent" header
	// of every message published, so the calls assembled from the stream
	// and their executions join that trace; "" for none.
	TraceParent string
}

// WithStream sets every field of the stream at once.
func WithStream(s Stream) StreamOption { return func(d *Stream) error { *d = s; return nil } }

// WithFormat names the provider's format: openai-responses, openai-chat,
// anthropic, gemini (or an alias); default auto.
func WithFormat(f string) StreamOption {
	return func(s *Stream) error {
		if _, err := ingest.ParseFormat(f); err != nil {
			return fmt.Errorf("%w: %w", ErrBadInput, err)
		}
		s.Format = f
		return nil
	}
}

// WithTagged reads <tool_call>{…}</tool_call> blocks in the model's text.
func WithTagged() StreamOption { return func(s *Stream) error { s.Tagged = true; return nil } }

// WithUser is the end user the events are about, carried in every event.
func WithUser(user string) StreamOption { return func(s *Stream) error { s.User = user; return nil } }

// WithSession is the session, carried in every event.
func WithSession(session string) StreamOption {
	return func(s *Stream) error { s.Session = session; return nil }
}

// WithRun is the agent run and its step (both part of the idempotency key
// of the calls).
func WithRun(run, step string) StreamOption {
	return func(s *Stream) error { s.Run, s.Step = run, step; return nil }
}

// WithRaw publishes the raw events for the server to normalise (Stream.Raw).
func WithRaw() StreamOption { return func(s *Stream) error { s.Raw = true; return nil } }

// Published is what a Writer published.
type Published struct {
	Raw   int    // raw provider events taken
	Model int    // events stored in the log (canonical model events; raw ones and the end marker with Raw)
	Last  uint64 // the log sequence of the last of them, in Stream
	// Stream is the stream that stored them: the tenant's ingress stream
	// (TS_ING_<tenant>) on a log with per-tenant streams, whose sequences
	// are not the ones TS_MODEL (what trace shows) gives its copies.
	Stream string
	// Duplicates counts those of Model the log already held: this
	// publisher (its message-id key) wrote them before, as when a stream
	// is written again.
	Duplicates int
}

// Writer publishes one provider stream, event by event (an SSE proxy
// passes each event on as it goes by) or from a reader, then Close ends
// it. By default it normalises at the edge: the provider's events become
// canonical model events here, as the server's ingest would make them
// (ingest.Stream decides for both), with a call's consecutive argument
// deltas merged into one event (ingest.DeltaMerger; WithPerChunk keeps one
// per chunk), sealed under the user's data key and published to
// ts.model.<tenant>.<response>.<item>; the raw events never reach the log
// (docs/design.md, "Normalising at the edge", "Merging deltas at the
// edge"). A delta is held until the raw event after it shows whether the
// run of deltas goes on, so the last one is published by the next Write
// or by Close. Each event's
// Nats-Msg-Id is its id, derived from the stream and the raw event's
// position, tagged with the client's message-id key (events.MsgID,
// WithMsgIDKey), so writing the same stream again within the log's
// duplicate window stores nothing twice, and no other identity can
// publish under those ids first (WithoutMsgIDs leaves them out where
// nothing can write a message twice). A duplicate acknowledgement for a
// message that is not the event (where this identity may read the log)
// is ErrDuplicateNotOurs.
//
// Publishing is pipelined: up to the window's publishes are in flight,
// and each acknowledgement lets one more go; on a clustered server the
// events go in atomic batches instead, one after the other, so that a
// publish retried across a leader change cannot land after later ones.
// When Close returns without error, every event is stored in order.
//
// A raw event the provider's adapter refuses is not an error: it aborts
// the open calls of its response and is published as an InputRejected
// (its Seq is the event's position), and the stream goes on.
//
// A Writer is not safe for concurrent use; a Client makes any number.
type Writer struct {
	c      *Client
	s      Stream
	kr     events.Keyring
	st     *ingest.Stream     // nil with Raw
	merger ingest.DeltaMerger // the run of deltas held (unless the client publishes per chunk)
	ids    *events.MsgIDs     // message ids under the client's key
	subj   string             // Raw: the ingest subject
	pos    int64
	out    publish.Ordered
	ended  bool
	mark   error // the connection's last error when the writer started
	err    error // sticky: the first error ends the writer
}

// NewWriter starts a stream. It returns ErrBadInput for a stream without
// a valid tenant or id, or an unknown format, and the key store's error.
func (c *Client) NewWriter(ctx context.Context, opts ...StreamOption) (*Writer, error) {
	var s Stream
	for _, o := range opts {
		if err := o(&s); err != nil {
			return nil, err
		}
	}
	if err := events.ValidTenant(s.Tenant); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	if s.ID == "" {
		return nil, fmt.Errorf("%w: a stream needs an id", ErrBadInput)
	}
	format := s.Format
	if format == "" {
		format = string(ingest.FormatAuto)
	}
	f, err := ingest.ParseFormat(format)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	w := &Writer{c: c, s: s, mark: c.mark(), ids: events.NewMsgIDs(c.o.msgIDKey)}
	w.out = publish.Ordered{JS: c.js, Window: c.o.window, Timeout: c.o.publishTimeout, RetryMax: time.Minute,
		Batches: c.nc.ConnectedClusterName() != "", Duplicate: c.duplicateCheck()}
	if c.o.batches != nil {
		w.out.Batches = *c.o.batches
	}
	if s.Raw {
		if w.subj, err = events.IngestSubject(s.Tenant, format, s.ID); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadInput, err)
		}
		w.out.Batches = false // ingest puts raw events in order by their Ts-Seq
		return w, nil
	}
	if w.kr, err = c.keyring(ctx, s.Tenant); err != nil {
		return nil, err
	}
	w.st = ingest.NewStream(ingest.Config{Format: f, Stream: s.ID, TaggedText: s.Tagged})
	return w, nil
}

// Write takes one raw provider event: the JSON of one SSE event's data
// (or one line of JSON lines), as the provider sent it. It returns
// ErrBadInput after Close, the first publishing error (after which the
// Writer takes nothing more), or the context's.
func (w *Writer) Write(ctx context.Context, raw []byte) error {
	if w.err != nil {
		return w.err
	}
	if w.ended {
		return fmt.Errorf("%w: stream %q is closed", ErrBadInput, w.s.ID)
	}
	if w.s.Raw {
		m := &nats.Msg{Subject: w.subj, Data: bytes.Clone(raw), Header: w.rawHeader()}
		m.Header.Set(jetstream.MsgIDHeader, w.ids.MsgID(w.subj, events.RawEventID(w.s.Tenant, w.s.ID, w.pos)))
		m.Header.Set(headerSeq, strconv.FormatInt(w.pos, 10))
		w.pos++
		return w.fail(w.out.Add(ctx, m))
	}
	at := w.c.o.now().UnixNano()
	outs, err := w.st.Feed(raw)
	if err != nil {
		outs = w.st.Refuse(uint64(w.pos), err)
	}
	err = w.emit(ctx, w.pos, at, outs)
	w.pos++
	return w.fail(err)
}

// WriteWhole takes a whole (non-streamed) answer as the raw events its
// streamed form would have sent (ingest.DecodeWhole), one Write each: the
// same model events, at the same positions, as Write of each of
// WholeAnswer.Events, without writing them out as JSON first when the
// answer was read into chunks.
func (w *Writer) WriteWhole(ctx context.Context, a *ingest.WholeAnswer) error {
	if w.s.Raw {
		evs, err := a.Events()
		if err != nil {
			return fmt.Errorf("%w: %w", ErrBadInput, err)
		}
		for _, ev := range evs {
			if err := w.Write(ctx, ev); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range a.Len() {
		if w.err != nil {
			return w.err
		}
		if w.ended {
			return fmt.Errorf("%w: stream %q is closed", ErrBadInput, w.s.ID)
		}
		at := w.c.o.now().UnixNano()
		outs, err := w.st.FeedWhole(a, i)
		if err != nil {
			outs = w.st.Refuse(uint64(w.pos), err)
		}
		err = w.emit(ctx, w.pos, at, outs)
		w.pos++
		if w.fail(err) != nil {
			return w.err
		}
	}
	return nil
}

// WriteSSE takes one server-sent event by its fields: its event name
// ("" when it has none) and its data. An Anthropic or Responses event
// whose data lacks "type" takes it from the name, as ReadFrom does.
func (w *Writer) WriteSSE(ctx context.Context, event string, data []byte) error {
	var b bytes.Buffer
	if event != "" {
		b.WriteString("event: " + event + "\n")
	}
	for _, l := range strings.Split(string(data), "\n") {
		b.WriteString("data: " + l + "\n")
	}
	b.WriteString("\n")
	err := ingest.ReadEvents(&b, func(raw []byte) error { return w.Write(ctx, raw) })
	if err != nil && !errors.Is(err, w.err) {
		return fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	return err
}

// ReadFrom takes every raw event of r: JSON lines or raw server-sent
// events (ingest.ReadEvents; "data: [DONE]" ends them). It returns how
// many it took and the reader's error (an event too large is
// ErrBadInput), or Write's.
func (w *Writer) ReadFrom(ctx context.Context, r io.Reader) (int, error) {
	before := w.pos
	err := ingest.ReadEvents(r, func(raw []byte) error { return w.Write(ctx, raw) })
	if err != nil && w.err == nil && errors.Is(err, ingest.ErrTooLarge) {
		err = fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	return int(w.pos - before), err
}

// Close ends the stream: what its end implies is published (a response
// still open ends incomplete, as the server's ingest would decide; with
// Raw, the end-of-stream marker), and every event is waited for. It
// returns what was published; closing twice returns the same.
func (w *Writer) Close(ctx context.Context) (Published, error) {
	if w.err != nil {
		return w.published(), w.err
	}
	if !w.ended {
		w.ended = true
		var err error
		if w.s.Raw {
			end := &nats.Msg{Subject: w.subj, Header: w.rawHeader()}
			end.Header.Set(headerEnd, "1")
			end.Header.Set(headerSeq, strconv.FormatInt(w.pos, 10))
			end.Header.Set(jetstream.MsgIDHeader, events.MsgID(w.c.o.msgIDKey, w.subj, events.RawEndID(w.s.Tenant, w.s.ID)))
			err = w.out.Add(ctx, end)
		} else {
			err = w.emit(ctx, events.EdgeEnd, w.c.o.now().UnixNano(), w.st.End()) // no raw event holds them
			if err == nil {
				err = w.merger.Flush(func(p ingest.Placed) error { return w.put(ctx, p) })
			}
		}
		if err == nil {
			err = w.out.Flush(ctx)
		}
		if w.fail(err) != nil {
			return w.published(), w.err
		}
	}
	return w.published(), nil
}

func (w *Writer) published() Published {
	return Published{Raw: int(w.pos), Model: w.out.Stored(), Last: w.out.Last(), Stream: w.out.LastStream(), Duplicates: w.out.Duplicates()}
}

// fail makes err sticky, naming the stream.
func (w *Writer) fail(err error) error {
	if err != nil && w.err == nil {
		if errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrNoResponders) {
			// Nothing takes ts.in.<tenant> or ts.model.<tenant> (no
			// tenant stream on the per-tenant layout): the server's no
			// responders says nothing a producer can act on.
			err = fmt.Errorf("%w: tenant %s has no ingress stream (toolstream creds producer --tenant %s makes it; on a cluster, toolstream setup --tenants %s): %w",
				ErrNoTenantStream, w.s.Tenant, w.s.Tenant, w.s.Tenant, err)
		}
		w.err = fmt.Errorf("client: publish stream %q of %s: %w", w.s.ID, w.s.Tenant, w.c.refused(w.mark, err))
	}
	if err != nil {
		return w.err
	}
	return nil
}

func (w *Writer) rawHeader() nats.Header {
	h := nats.Header{}
	for k, v := range map[string]string{headerUser: w.s.User, headerSession: w.s.Session, headerRun: w.s.Run, headerStep: w.s.Step} {
		if v != "" {
			h.Set(k, v)
		}
	}
	if w.s.Tagged {
		h.Set(headerTagged, "1")
	}
	if w.s.TraceParent != "" {
		h[headerTraceParent] = []string{w.s.TraceParent}
	}
	return h
}

// emit seals and publishes the canonical events one raw event (at pos)
// made; consecutive deltas of a call's arguments (or an item's text) are
// merged into one event unless the client publishes per chunk
// (ingest.DeltaMerger: the boundaries depend on the content alone, so a
// stream written again gets the same ids).
func (w *Writer) emit(ctx context.Context, pos, at int64, outs []ingest.Out) error {
	put := func(p ingest.Placed) error { return w.put(ctx, p) }
	if !w.c.o.perChunk {
		return w.merger.Add(pos, at, outs, put)
	}
	for n, o := range outs {
		if err := put(ingest.Placed{Out: o, Pos: pos, N: n, At: at}); err != nil {
			return err
		}
	}
	return nil
}

// put seals and publishes one canonical event.
func (w *Writer) put(ctx context.Context, p ingest.Placed) error {
	subj, ev, err := p.EdgeEvent(&events.Event{Tenant: w.s.Tenant, User: w.s.User, Session: w.s.Session, Run: w.s.Run, Step: w.s.Step}, w.s.ID)
	if err != nil {
		return err
	}
	if rs, ok := ev.Body.(*events.ResponseStarted); ok {
		if w.s.ClientRuns {
			rs.ClientRuns = true
		}
		if w.s.ToolsOnly {
			rs.ToolsOnly, rs.Tools = true, w.s.Tools
		}
	}
	data, err := events.EncodeSealed(ev, w.kr, "")
	if err != nil {
		return err
	}
	var h nats.Header // none: nats.go publishes without a header block
	if !w.c.o.noMsgIDs || w.out.Batches {
		h = nats.Header{jetstream.MsgIDHeader: []string{w.ids.MsgID(subj, ev.ID)}}
	}
	if w.s.TraceParent != "" {
		if h == nil {
			h = nats.Header{}
		}
		h[headerTraceParent] = []string{w.s.TraceParent}
	}
	return w.out.Add(ctx, &nats.Msg{Subject: subj, Data: data, Header: h})
}

// Publish publishes one whole provider stream read from r (NewWriter,
// ReadFrom, Close).
func (c *Client) Publish(ctx context.Context, r io.Reader, opts ...StreamOption) (Published, error) {
	w, err := c.NewWriter(ctx, opts...)
	if err != nil {
		return Published{}, err
	}
	if _, err := w.ReadFrom(ctx, r); err != nil {
		return w.published(), err
	}
	return w.Close(ctx)
}

// duplicateCheck is what a Writer does with a duplicate acknowledgement:
// where this identity may read the log, it reads the stored message and
// returns ErrDuplicateNotOurs unless it is the one published
// (publish.SameMessage: the same subject, and the same bytes or, sealed
// anew, the same event id and tenant). A producer may not read the log (its inbox prefix says so):
// its message ids are tagged under its key, which nobody else holds, so
// the stored message is its own.
func (c *Client) duplicateCheck() func(*nats.Msg, *jetstream.PubAck) error {
	if strings.HasPrefix(c.nc.Opts.InboxPrefix, "_INBOX.producer-") {
		return nil
	}
	return func(m *nats.Msg, ack *jetstream.PubAck) error {
		ctx, cancel := context.WithTimeout(context.Background(), c.o.publishTimeout)
		defer cancel()
		s, err := c.js.Stream(ctx, ack.Stream)
		if err != nil {
			return nil // not readable: the tag vouches for it
		}
		stored, err := s.GetMsg(ctx, ack.Sequence)
		if err != nil {
			return nil
		}
		if publish.SameMessage(m.Subject, m.Data, stored) {
			return nil
		}
		return fmt.Errorf("%w: %s on %s: %s seq %d holds another message on %s", ErrDuplicateNotOurs,
			m.Header.Get(jetstream.MsgIDHeader), m.Subject, ack.Stream, ack.Sequence, stored.Subject)
	}
}
