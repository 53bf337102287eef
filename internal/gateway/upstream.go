package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/ingest"
	"github.com/toolstream/toolstream/internal/publish"
	"github.com/toolstream/toolstream/internal/telemetry"
)

// Call is one request sent upstream.
type Call struct {
	API API
	// Upstream names the upstream; "" routes by the body's model
	// ("upstream-name/model") or to the first upstream of the API's kind.
	Upstream string
	// Body is sent unchanged, but for the model's upstream prefix.
	Body []byte
	// Header holds the client's headers; only those of forwardedHeaders
	// (anthropic-version, anthropic-beta, openai-beta, accept,
	// idempotency-key, user-agent) go upstream. Query is the URL's raw
	// query.
	Header http.Header
	Query  string
	// Env is the envelope of every event published.
	Env Envelope
	// Stream names the stream until the provider names its response (the
	// first event's response id); "" draws a new id.
	Stream string
	// OnResponse, when set, is called once the upstream's status and
	// headers arrived, before any frame.
	OnResponse func(status int, header http.Header)
	// OnWait, when set, is called from onFrame's goroutine whenever the
	// upstream read has handed on every event it holds and is about to
	// read (and may wait for) the upstream: an onFrame that buffers its
	// writes flushes them then. It is not called for the first frame,
	// which the caller should send at once.
	OnWait func()
	// OnEnd, when set, is called once a streamed answer ended (nil) or
	// could not be read further (ErrUpstream), after its last frame was
	// handed on and before Stream waits for the log.
	OnEnd func(error)
	// Key is the hash of the client key the call is made for (HashKey):
	// its usage counts against the key's budgets and rates. "" for none.
	Key string
	// ClientRuns says the client runs the answer's calls itself
	// (passthrough, unless the key or request asks the server to): they
	// are recorded and assembled, and no executor runs them.
	ClientRuns bool
	// ToolsOnly and Tools narrow the tools the answer's calls may name
	// (client.Stream.ToolsOnly): a child run's round.
	ToolsOnly bool
	Tools     []string
	// RecordPrompt keeps the request's prompt (promptOf Body: its
	// messages or input, instructions or system, tools, model) in the log
	// before the stream's first frame, sealed like the frames
	// (events.StreamPrompt; a whole answer's is in its one message,
	// events.StreamAnswer): passthrough's, whose conversation the log
	// holds nowhere else.
	RecordPrompt bool
}

// Frame is one server-sent event of an upstream stream, as received.
type Frame struct {
	Stream string // the stream it belongs to (the provider's response id)
	Pos    int64  // its position, 0, 1, 2…: its SSE id
	Event  string // the event name, "" when none
	Data   []byte
}

// Result is what one Stream did.
type Result struct {
	Stream string // the stream's id: the provider's response id, else Call.Stream
	Status int
	Header http.Header
	// Body is a response that was not a stream (a non-streamed answer, an
	// upstream error), whole, as received.
	Body   []byte
	Frames int              // frames relayed and kept (a Body is one)
	Model  client.Published // what the producer published
	// Upstream is the upstream that served the answer, Attempts how many
	// attempts it took (pool.go); Upstream is "" for an error the gateway
	// answered for the pool (none available, none answered).
	Upstream string
	Attempts int
	// Usage is the tokens the answer used, as the provider reported them.
	Usage Usage
}

// responseBodyMax bounds a non-streamed upstream response.
const responseBodyMax = 64 << 20

// Stream sends c upstream and reads its answer to the end. A streamed
// answer (text/event-stream with status 200) is read event by event: each
// is handed to onFrame (nil: none) as it arrives, then kept in the log as
// a sealed events.StreamFrame and written to a client.Writer (the model
// events, normalised at the edge and sealed, as any Go producer publishes
// them) on a path of its own, at most logQueueMax frames behind;
// when Stream returns, every frame and model event is in the log. onFrame
// is called from one goroutine, in order; its error stops the calls to
// onFrame alone: the upstream is still read to the end and logged. Any
// other answer is read whole into Result.Body and kept as one message (a
// frame and the end: events.StreamAnswer); a 200 one is also converted
// into its streamed form's events (ingest.DecodeWhole) and published
// by the client, both before Stream returns.
//
// ctx bounds the whole upstream read: pass one that outlives the client
// (context.WithoutCancel) for the read to survive it. It returns
// ErrBadRequest for a call it cannot route, ErrUpstream wrapping the
// transport's error when the upstream cannot be reached or read, and the
// log's errors.
func (g *Gateway) Stream(ctx context.Context, c Call, onFrame func(Frame) error) (res *Result, err error) {
	t, err := g.targetOf(c.API, c.Upstream, c.Body)
	if err != nil {
		return nil, err
	}
	began := time.Now()
	ctx, span := g.startModelSpan(ctx, c, t.model)
	defer func() {
		span.end(res, err)
		g.observeOperation(c, t.model, time.Since(began), res, err)
	}()
	if err := events.ValidTenant(c.Env.Tenant); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	// The pool's attempts (pool.go): nothing reaches onFrame or OnResponse
	// before the one whose answer the client gets.
	streamed := t.streamed
	if streamed && c.API == APIChat && g.countsTokens(c.Key) {
		t.body = withIncludeUsage(t.body) // else a Chat stream's tokens escape the key's limits
	}
	sv, err := g.send(ctx, c, t, streamed)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUpstream, err)
	}
	g.counted(c, t.model)
	defer sv.close()
	header := sv.header.Clone()
	if sv.up != nil {
		header.Set(HeaderUpstream, sv.up.Name)
		header.Set(HeaderAttempts, strconv.Itoa(sv.attempts))
	}
	if c.OnResponse != nil {
		c.OnResponse(sv.status, header)
	}
	res = &Result{Stream: c.Stream, Status: sv.status, Header: header, Attempts: sv.attempts}
	if sv.up != nil {
		res.Upstream = sv.up.Name
	}
	if res.Stream == "" {
		res.Stream = newStreamID()
	}
	// Usage counts against the key as it is reported, before the client
	// has the event that reports it: its next request sees it.
	s := &relay{g: g, c: c, res: res, keptAs: res.Stream, onFrame: onFrame, span: span, traceParent: telemetry.TraceParent(ctx), onUsage: func(u Usage) { g.account(c, t.model, u) },
		frames: publish.Ordered{JS: g.cfg.JS, Window: frameOutWindow}, members: t.members}
	if sv.events != nil {
		sv.events.wait.fn = c.OnWait
		s.release = sv.close
		err = s.stream(ctx, sv.events)
		g.done(sv, err)
	} else {
		err = s.whole(ctx, sv.body)
	}
	return res, err
}

func isEventStream(h http.Header) bool {
	return strings.HasPrefix(strings.ToLower(h.Get("Content-Type")), "text/event-stream")
}

// relay is one Stream's state.
type relay struct {
	g       *Gateway
	c       Call
	res     *Result
	onFrame func(Frame) error
	onUsage func(delta Usage) // called as the answer reports more usage
	frames  publish.Ordered   // the kept frames, in order (a window of asynchronous publishes)
	span    *modelSpan        // the request's span (otel.go); nil: none
	release func()            // gives the upstream's connection back once its stream is read; nil: none
	// traceParent is the W3C traceparent of the request's span, carried
	// on the model events published, so the calls assembled from them and
	// their executions join its trace; "" when not traced.
	traceParent string
	promptKept  bool // the prompt is queued before the first frame (Call.RecordPrompt); written on the log path, read after it ended
	// keptAs is the id the stream is kept under in the log (the subject
	// of its frames), own the gateway's id it falls back to when the
	// provider's is refused, claim that the stream's first message is yet
	// to be stored and is stored only on an empty subject (claimFirst);
	// liveSubj is the subject the stream is live on (setLive). The log
	// path owns them once the first frame is queued; the reading
	// goroutine reads them again only after the log path ended.
	keptAs, own string
	claim       bool
	liveSubj    string
	// members are the members of the call's body, decoded once where it
	// was routed (target.members): its prompt is read from them.
	members map[string]json.RawMessage
}

// readUsage takes the usage data reports and hands on what it adds.
func (s *relay) readUsage(data []byte) {
	before := s.res.Usage
	s.res.Usage.read(data)
	s.usageAdded(before)
}

// readHead is readUsage of a first event or a whole answer, returning its
// response id from the same decode (readHead).
func (s *relay) readHead(data []byte) (id string) {
	before := s.res.Usage
	id = readHead(data, &s.res.Usage)
	s.usageAdded(before)
	return id
}

// usageAdded hands on the usage the answer reported since before.
func (s *relay) usageAdded(before Usage) {
	if d := s.res.Usage.minus(before); d != (Usage{}) && s.onUsage != nil {
		s.onUsage(d)
	}
}

// logQueueMax bounds the frames read from the upstream and handed on but
// not yet kept and written to the producer. When the log falls that far
// behind, the upstream read waits for it.
const logQueueMax = 1024

// stream relays an event stream. Each frame is handed on first, then
// queued for the log path (a goroutine of its own, which keeps it and
// writes it to the stream's client.Writer), so the client does not wait
// for the log unless the log falls logQueueMax frames behind. It returns
// once everything is in the log.
func (s *relay) stream(ctx context.Context, rd eventSource) error {
	// The producer's stream is named by the id the request had before the
	// provider named its response (as a non-streamed answer's).
	// It is made on the log path: nothing of the model events' is between
	// the upstream's first event and the client's.
	producer := s.producerStream(s.res.Stream)
	pubc := make(chan published, 1)
	logq := make(chan Frame, logQueueMax)
	keptc := make(chan error, 1)
	go func() { // the log path
		w, werr := s.g.producer.NewWriter(ctx, client.WithStream(producer))
		var err error
		batch := make([]Frame, 0, 64)
		var next []Frame // a frame that did not fit the last window opens the next
		for {
			// A flush window: the frame and whatever queued up behind it
			// while the last window was kept, one message (keepFrames). A
			// frame that would take the window past frameBatchBytes waits
			// for the next, so a window is one frame or fits the bound.
			batch = append(batch[:0], next...)
			next = next[:0]
			if len(batch) == 0 {
				f, ok := <-logq
				if !ok {
					break
				}
				batch = append(batch, f)
			}
			size := len(batch[0].Data)
		window:
			for len(batch) < frameBatchMax && size < frameBatchBytes {
				select {
				case f, ok := <-logq:
					if !ok {
						break window
					}
					if size+len(f.Data) > frameBatchBytes {
						next = append(next, f)
						break window
					}
					batch = append(batch, f)
					size += len(f.Data)
				default:
					break window
				}
			}
			if err != nil {
				continue // the log failed: drain, the client still gets the stream
			}
			err = s.keepFrames(ctx, batch)
			for _, f := range batch {
				if err == nil && werr == nil && modelEvent(f.Data) {
					werr = w.Write(ctx, compactData(f.Data)) // sticky: after an error the writer takes nothing more
				}
			}
		}
		keptc <- err
		var p client.Published
		if w != nil {
			p, werr = w.Close(ctx) // what the stream's end implies; every event waited for
		}
		pubc <- published{p, werr}
	}()
	var readErr error
	for pos := int64(0); ; pos++ {
		event, data, err := rd.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			readErr = fmt.Errorf("%w: read: %w", ErrUpstream, err)
			break
		}
		if pos == 0 {
			s.span.firstChunk()
			// Until it is all in the log, a resumption finds the stream
			// here (its first frame may not be stored yet).
			// The provider's response id names the stream (the header
			// the first byte carries) when no stream of this gateway's is
			// live on it; the log is not asked before the first byte:
			// the stream's first message is stored only on an empty
			// subject (claimFirst), and refused, the stream is kept
			// under the gateway's own id (refused).
			id := s.readHead(data)
			if subj, ok := s.g.claimLive(s.c.Env, s.c.API, id); ok {
				s.own, s.res.Stream, s.keptAs = s.res.Stream, id, id
				s.claim, s.liveSubj = true, subj
			} else if subj, err := events.GatewaySubject(s.c.Env.Tenant, string(s.c.API), scopedID(s.c.Env.User, s.res.Stream)); err == nil {
				s.g.setLive(subj, s.c.Env)
				s.liveSubj = subj
			}
			defer func() { // after the log path ended: it may have moved the stream
				if s.liveSubj != "" {
					s.g.dropLive(s.liveSubj)
				}
			}()
		} else {
			s.readUsage(data)
		}
		f := Frame{Stream: s.res.Stream, Pos: pos, Event: event, Data: data}
		// Queued before it is handed: the goroutine readied last runs
		// first, and that should be the one that writes to the client.
		logq <- f
		s.hand(f)
	}
	// The upstream's answer is read: its connection goes back to the
	// pool now, not once the log has it all (the next request reuses it).
	if s.release != nil {
		s.release()
	}
	if s.c.OnEnd != nil {
		s.c.OnEnd(readErr)
	}
	close(logq)
	keepErr := <-keptc
	pub := <-pubc
	s.res.Model = pub.p
	s.res.Stream = s.keptAs // where the log has it (a refused claim keeps the gateway's id)
	if keepErr == nil {
		keepErr = s.keep(ctx, int64(s.res.Frames), "", nil, true)
	}
	if err := s.frames.Flush(ctx); err != nil && keepErr == nil {
		keepErr = err
	}
	if keepErr != nil {
		return fmt.Errorf("gateway: keep frames of %s: %w", s.res.Stream, keepErr)
	}
	if pub.err != nil {
		return pub.err
	}
	return readErr
}

// eventSource gives a stream's events in order; io.EOF at its end.
type eventSource interface {
	next() (event string, data []byte, err error)
}

// whole relays an answer that is not a stream: one message (keepWhole),
// stored while its model events are converted and published; the client
// waits for the slower of the two, not their sum.
func (s *relay) whole(ctx context.Context, body []byte) error {
	s.res.Body = body
	ok := s.res.Status == http.StatusOK
	var id string // the provider's response id: one decode with its usage
	if ok {
		id = s.readHead(body)
	}
	producerStream := s.res.Stream // as a stream's: the id before the provider names it
	pubc := make(chan published, 1)
	if ok {
		go func() {
			p, err := s.publishWhole(ctx, producerStream, body)
			pubc <- published{p, err}
		}()
	} else {
		pubc <- published{}
	}
	err := s.keepWhole(ctx, body, id, ok)
	pub := <-pubc
	s.res.Model = pub.p
	if err != nil {
		return err
	}
	return pub.err
}

// errTaken says a whole answer's subject already holds a message.
var errTaken = errors.New("gateway: the response id is taken")

// keepWhole keeps a whole answer (claimed: a 200 one) as one sealed
// events.StreamAnswer: its prompt (Call.RecordPrompt), its one frame and
// its end. A claimed answer is kept under the provider's response id (id,
// read with its usage: relay.readHead) when the id is new to its user: not relayed now by this gateway (claimLive)
// and nothing on its subject in the log, which is the publish's own
// condition (Nats-Expected-Last-Subject-Sequence 0), not a lookup before
// it: no round trip more than the store, and two gateways cannot both
// take the id. Taken, the answer is kept under the gateway's own id, as
// a stream's is (relay.claimFirst: an upstream that reuses ids).
func (s *relay) keepWhole(ctx context.Context, body []byte, id string, claim bool) error {
	s.res.Frames = 1
	if claim && id != "" {
		if subj, ok := s.g.claimLive(s.c.Env, s.c.API, id); ok {
			own := s.res.Stream
			s.res.Stream, s.keptAs = id, id
			err := s.keepAnswer(ctx, body, true)
			s.g.dropLive(subj)
			if !errors.Is(err, errTaken) {
				return err
			}
			s.g.log.Warn("gateway: the upstream reused a response id; the answer keeps the gateway's", "tenant", s.c.Env.Tenant, "api", string(s.c.API), "response", id)
			s.res.Stream, s.keptAs = own, own
		}
	}
	return s.keepAnswer(ctx, body, false)
}

// keepAnswer stores a whole answer as one sealed events.StreamAnswer on
// the subject of its stream's id scoped by its user (scopedID) and waits
// for the log's acknowledgement. Claimed, the subject must hold nothing:
// errTaken when it does (or the log knows the message's id).
func (s *relay) keepAnswer(ctx context.Context, body []byte, claim bool) error {
	env := s.c.Env
	stream := scopedID(env.User, s.keptAs)
	subj, err := events.GatewaySubject(env.Tenant, string(s.c.API), stream)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	a := &events.StreamAnswer{Data: string(body), Upstream: s.res.Upstream, Attempts: s.res.Attempts}
	if s.c.RecordPrompt {
		a.Prompt = promptOfMembers(s.members, len(s.c.Body), events.PromptBytesMax)
	}
	ev := s.event(events.StreamFrameID(env.Tenant, string(s.c.API), stream, 0), a)
	msg, err := events.EncodeSealed(ev, s.g.cfg.Keys, "")
	if err != nil {
		return fmt.Errorf("gateway: seal answer: %w", err)
	}
	m := &nats.Msg{Subject: subj, Data: msg, Header: nats.Header{jetstream.MsgIDHeader: []string{ev.ID}}}
	if claim {
		m.Header.Set(jetstream.ExpectedLastSubjSeqHeader, "0")
	}
	ack, err := s.g.cfg.JS.PublishMsg(ctx, m)
	if claim && (wrongLastSequence(err) || err == nil && ack.Duplicate) {
		return errTaken
	}
	if err != nil {
		return fmt.Errorf("gateway: keep answer: %w", err)
	}
	return nil
}

// wrongLastSequence reports whether err is the log's refusal of a
// publish whose subject's last sequence is not the one expected.
func wrongLastSequence(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}

// publishWhole publishes the model events of a non-streamed answer: the
// events its streamed form would have sent (ingest.DecodeWhole: a Chat
// answer read once, into the chunks those events decode to, anything else
// ingest.StreamEventsOf's JSON events), published by the Go client as a
// stream's are. An answer that cannot be converted is logged and publishes
// nothing: the caller gets it all the same.
func (s *relay) publishWhole(ctx context.Context, stream string, body []byte) (client.Published, error) {
	format, err := ingest.ParseFormat(s.c.API.format())
	if err != nil {
		return client.Published{}, fmt.Errorf("gateway: %w", err)
	}
	a, err := ingest.DecodeWhole(format, body)
	if err != nil {
		s.g.log.Warn("gateway: a non-streamed answer publishes no model events", "api", s.c.API,
			"tenant", s.c.Env.Tenant, "stream", stream, "err", err)
		return client.Published{}, nil
	}
	// Each event goes to the producer's writer as it is (WriteWhole):
	// client.Publish would join JSON events into lines to split them again
	// through a 64 KiB reader (ingest.ReadEvents) made for every answer. An
	// event over ingest.EventMax is refused as that reader refused it,
	// before anything is published; an answer read into chunks has none
	// (ingest.DecodeWhole reads only answers whose events all fit).
	if !a.Decoded() {
		evs, err := a.Events()
		if err != nil {
			return client.Published{}, fmt.Errorf("gateway: model events of %s: %w", stream, err)
		}
		for _, ev := range evs {
			if len(ev) > ingest.EventMax {
				return client.Published{}, fmt.Errorf("gateway: model events of %s: %w: %w: an event of %d bytes (at most %d)",
					stream, client.ErrBadInput, ingest.ErrTooLarge, len(ev), ingest.EventMax)
			}
		}
	}
	w, err := s.g.producer.NewWriter(ctx, client.WithStream(s.producerStream(stream)))
	if err != nil {
		return client.Published{}, err
	}
	if err := w.WriteWhole(ctx, a); err != nil {
		return w.Close(ctx) // the writer's sticky error, and what it published
	}
	return w.Close(ctx)
}

// published is what the producer published of a stream.
type published struct {
	p   client.Published
	err error
}

// producerStream is the producer's stream of the call: its id and the
// call's envelope.
func (s *relay) producerStream(id string) client.Stream {
	return client.Stream{Tenant: s.c.Env.Tenant, ID: id, Format: s.c.API.format(),
		User: s.c.Env.User, Session: s.c.Env.Session, Run: s.c.Env.Run, Step: s.c.Env.Step, ClientRuns: s.c.ClientRuns,
		ToolsOnly: s.c.ToolsOnly, Tools: s.c.Tools, TraceParent: s.traceParent}
}

// hand gives f to onFrame until it fails once.
func (s *relay) hand(f Frame) {
	if s.onFrame == nil {
		return
	}
	if err := s.onFrame(f); err != nil {
		s.onFrame = nil
	}
}

// keep publishes one frame, sealed, without waiting for its
// acknowledgement (flush waits), on the subject of the stream's id scoped
// by its user (scopedID).
func (s *relay) keep(ctx context.Context, pos int64, event string, data []byte, end bool) error {
	subj, stream, err := s.streamSubject(ctx)
	if err != nil {
		return err
	}
	env := s.c.Env
	ev := s.event(events.StreamFrameID(env.Tenant, string(s.c.API), stream, pos),
		&events.StreamFrame{Pos: pos, Event: event, Data: string(data), End: end})
	if end { // which upstream served it, after how many attempts: for trace
		f := ev.Body.(*events.StreamFrame)
		f.Upstream, f.Attempts = s.res.Upstream, s.res.Attempts
	}
	msg, err := events.EncodeSealed(ev, s.g.cfg.Keys, "")
	if err != nil {
		return fmt.Errorf("gateway: seal frame: %w", err)
	}
	if err := s.frames.Add(ctx, &nats.Msg{Subject: subj, Data: msg, Header: nats.Header{jetstream.MsgIDHeader: []string{ev.ID}}}); err != nil {
		return fmt.Errorf("gateway: keep frame: %w", err)
	}
	if !end {
		s.res.Frames++
	}
	return nil
}

// keepFrames publishes a run of consecutive frames as one sealed
// events.StreamFrames, without waiting for its acknowledgement (flush
// waits), on the subject of the stream's id scoped by its user (scopedID):
// one seal and one message for the run instead of one a frame.
func (s *relay) keepFrames(ctx context.Context, batch []Frame) error {
	err := s.keepFramesAs(ctx, batch)
	if errors.Is(err, errTaken) {
		s.refused()
		err = s.keepFramesAs(ctx, batch)
	}
	return err
}

// keepFramesAs is keepFrames under the id the stream is kept as now
// (keptAs); errTaken when the stream's first message was refused
// (claimFirst).
func (s *relay) keepFramesAs(ctx context.Context, batch []Frame) error {
	if len(batch) == 0 {
		return nil
	}
	subj, stream, err := s.streamSubject(ctx)
	if err != nil {
		return err
	}
	env := s.c.Env
	body := &events.StreamFrames{Pos: batch[0].Pos, Frames: make([]events.FrameData, len(batch))}
	for i, f := range batch {
		body.Frames[i] = events.FrameData{Event: f.Event, Data: string(f.Data)}
	}
	ev := s.event(events.StreamFrameID(env.Tenant, string(s.c.API), stream, body.Pos), body)
	msg, err := events.EncodeSealed(ev, s.g.cfg.Keys, "")
	if err != nil {
		return fmt.Errorf("gateway: seal frames: %w", err)
	}
	if err := s.add(ctx, &nats.Msg{Subject: subj, Data: msg, Header: nats.Header{jetstream.MsgIDHeader: []string{ev.ID}}}); err != nil {
		return fmt.Errorf("gateway: keep frames: %w", err)
	}
	s.res.Frames += len(batch)
	return nil
}

// add publishes a message of the stream after those added before it;
// the stream's first one while it claims the provider's id is
// claimFirst's.
func (s *relay) add(ctx context.Context, m *nats.Msg) error {
	if s.claim {
		s.claim = false
		return s.claimFirst(ctx, m)
	}
	return s.frames.Add(ctx, m)
}

// claimFirst stores the stream's first message on the condition that its
// subject is empty (Nats-Expected-Last-Subject-Sequence 0, as keepAnswer
// claims a whole answer's) and waits for the log's answer: errTaken when
// the subject holds a message (another answer under the provider's id:
// an upstream that reuses ids, or another gateway relaying the same id)
// or the log already knows the message's id. It is the log path's, after
// the first frame went to the client: nothing waits for the log before
// the first byte.
func (s *relay) claimFirst(ctx context.Context, m *nats.Msg) error {
	m.Header.Set(jetstream.ExpectedLastSubjSeqHeader, "0")
	ack, err := s.g.cfg.JS.PublishMsg(ctx, m)
	if wrongLastSequence(err) || err == nil && ack.Duplicate {
		return errTaken
	}
	return err
}

// refused moves a stream whose claim of the provider's id the log refused
// (claimFirst) to the gateway's own id: it is kept whole there, its
// prompt first again, and is live there. The client was given the
// provider's id with its first byte; the log never mixes the two answers
// on one subject, and Result.Stream names where this one is kept.
func (s *relay) refused() {
	env := s.c.Env
	s.g.log.Warn("gateway: the upstream reused a response id; the stream keeps the gateway's", "tenant", env.Tenant, "api", string(s.c.API),
		"response", s.keptAs, "stream", s.own)
	s.g.dropLive(s.liveSubj)
	s.liveSubj = ""
	s.keptAs, s.promptKept = s.own, false
	if subj, err := events.GatewaySubject(env.Tenant, string(s.c.API), scopedID(env.User, s.own)); err == nil {
		s.g.setLive(subj, env)
		s.liveSubj = subj
	}
}

// streamSubject is the subject the stream's frames are kept on, that of
// its id scoped by its user (scopedID), and that scoped id; the first time,
// where the request's prompt is recorded, it queues the prompt there ahead
// of the first frame.
func (s *relay) streamSubject(ctx context.Context) (subj, stream string, err error) {
	env := s.c.Env
	// Kept under the user's name for it: an upstream that gives two users'
	// answers one id never mixes their frames.
	stream = scopedID(env.User, s.keptAs)
	subj, err = events.GatewaySubject(env.Tenant, string(s.c.API), stream)
	if err != nil {
		return "", "", fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	if s.c.RecordPrompt && !s.promptKept {
		s.promptKept = true
		if err := s.keepPrompt(ctx, subj, stream); err != nil {
			return "", "", err
		}
	}
	return subj, stream, nil
}

// event is an event of the stream with id and body: the request's
// envelope (tenant, user, session, run, step), the stream's upstream id,
// now.
func (s *relay) event(id string, body events.Body) *events.Event {
	env := s.c.Env
	return &events.Event{
		ID: id, Tenant: env.Tenant, User: env.User, Session: env.Session, Run: env.Run, Step: env.Step,
		Response: s.keptAs, At: s.g.cfg.Now().UnixNano(), Body: body,
	}
}

// keepPrompt queues the request's prompt on the stream's subject, ahead
// of its first frame, sealed as the frames are.
func (s *relay) keepPrompt(ctx context.Context, subj, stream string) error {
	env := s.c.Env
	ev := s.event(events.StreamPromptID(env.Tenant, string(s.c.API), stream), promptOfMembers(s.members, len(s.c.Body), events.PromptBytesMax))
	msg, err := events.EncodeSealed(ev, s.g.cfg.Keys, "")
	if err != nil {
		return fmt.Errorf("gateway: seal prompt: %w", err)
	}
	if err := s.add(ctx, &nats.Msg{Subject: subj, Data: msg, Header: nats.Header{jetstream.MsgIDHeader: []string{ev.ID}}}); err != nil {
		return fmt.Errorf("gateway: keep prompt: %w", err)
	}
	return nil
}

// frameOutWindow bounds the messages of frames sent and not yet
// acknowledged.
const frameOutWindow = 512

// frameBatchMax and frameBatchBytes bound one message of frames
// (keepFrames): a flush window is the frames queued for the log when it
// is kept, at most these. Far under the server's payload limit.
const (
	frameBatchMax   = 256
	frameBatchBytes = 256 << 10
)

// responseID is the response id of a stream's first event or of a whole
// answer: Chat's "id", Responses' response.id, Messages' message.id (and
// a whole answer's "id").
func responseID(data []byte) string {
	var p struct {
		ID       string `json:"id"`
		Response struct {
			ID string `json:"id"`
		} `json:"response"`
		Message struct {
			ID string `json:"id"`
		} `json:"message"`
	}
	if json.Unmarshal(data, &p) != nil {
		return ""
	}
	return firstID(p.Response.ID, p.Message.ID, p.ID)
}

// firstID is the first of ids that is one (not empty, at most 256 bytes).
func firstID(ids ...string) string {
	for _, id := range ids {
		if id != "" && len(id) <= 256 {
			return id
		}
	}
	return ""
}

// modelEvent reports whether a frame's data goes to the normaliser: all
// but the frames that carry no event (empty, Chat's [DONE]), as the edge's
// reader (ingest.ReadEvents) hands on a producer's. A frame that is not
// the JSON object it should be is normalised too, and refused there as it
// is at the edge (events.InputRejected, malformed_event; the calls open
// then are aborted, never assembled without it): a json.Valid before it
// skipped it silently, and scanned every frame once more (a third of the
// log path's time).
func modelEvent(data []byte) bool {
	d := bytes.TrimSpace(data)
	return len(d) > 0 && !bytes.Equal(d, []byte("[DONE]"))
}

// compactData is a frame's JSON data on one line, as a provider's event
// is read from JSON lines.
func compactData(data []byte) []byte {
	if bytes.IndexByte(data, '\n') < 0 {
		return data
	}
	var b bytes.Buffer
	if json.Compact(&b, data) != nil {
		return data // not JSON: the normaliser refuses it as it is
	}
	return b.Bytes()
}

// forwardedHeaders are the client headers that go upstream: what a
// provider's SDK sends to shape the request (API version and beta
// features, the accepted type, retries' idempotency key, its user agent).
// Nothing else is passed: the request goes out under the
// operator's key, so a client's OpenAI-Organization or OpenAI-Project
// (billing another organisation or project of the operator's account),
// its own credentials, cookies, forwarding and Toolstream-* headers never
// reach the upstream.
var forwardedHeaders = []string{
	"Accept",
	"Anthropic-Version",
	"Anthropic-Beta",
	"OpenAI-Beta",
	"Idempotency-Key",
	"User-Agent",
}

// copyRequestHeader copies the client's headers that go upstream
// (forwardedHeaders).
func copyRequestHeader(dst, src http.Header) {
	for _, k := range forwardedHeaders {
		if vs := src.Values(k); len(vs) > 0 {
			dst[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
		}
	}
}

// route picks the upstream of a call and the body sent to it: the model's
// "upstream-name/" prefix, when it names an upstream of the API's kind,
// picks it and is removed from the body.
func (g *Gateway) route(api API, name string, body []byte) (*Upstream, []byte, error) {
	up, b, _, _, err := g.routeOf(api, name, body)
	return up, b, err
}

// routeOf is route, also returning the body's members as the client sent
// them (the one decode of the body) and the model the upstream is asked
// for (its prefix taken off; "" when the body names none).
func (g *Gateway) routeOf(api API, name string, body []byte) (up *Upstream, out []byte, fields map[string]json.RawMessage, model string, err error) {
	switch api {
	case APIChat, APIResponses, APIMessages:
	default:
		return nil, nil, nil, "", fmt.Errorf("%w: unknown API %q", ErrBadRequest, api)
	}
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, nil, nil, "", fmt.Errorf("%w: the body is not a JSON object: %v", ErrBadRequest, err)
	}
	if m, ok := fields["model"]; ok {
		if err := json.Unmarshal(m, &model); err != nil {
			return nil, nil, nil, "", fmt.Errorf("%w: model is not a string", ErrBadRequest)
		}
	}
	if prefix, rest, ok := strings.Cut(model, "/"); ok && name == "" {
		if up := g.upstream(prefix); up != nil && up.Kind == api.Kind() {
			sent := maps.Clone(fields) // fields stay the client's (its prompt names the prefix)
			sent["model"], _ = json.Marshal(rest)
			b, err := json.Marshal(sent)
			if err != nil {
				return nil, nil, nil, "", fmt.Errorf("%w: %v", ErrBadRequest, err)
			}
			return up, b, fields, rest, nil
		}
	}
	if name != "" {
		up := g.upstream(name)
		if up == nil {
			return nil, nil, nil, "", fmt.Errorf("%w: no upstream named %q", ErrBadRequest, name)
		}
		if up.Kind != api.Kind() {
			return nil, nil, nil, "", fmt.Errorf("%w: upstream %q is %s, not %s", ErrBadRequest, name, up.Kind, api.Kind())
		}
		return up, body, fields, model, nil
	}
	for i := range g.cfg.File.Upstreams {
		if up := &g.cfg.File.Upstreams[i]; up.Kind == api.Kind() {
			return up, body, fields, model, nil
		}
	}
	return nil, nil, nil, "", fmt.Errorf("%w: no %s upstream is configured", ErrBadRequest, api.Kind())
}

func (g *Gateway) upstream(name string) *Upstream {
	for i := range g.cfg.File.Upstreams {
		if g.cfg.File.Upstreams[i].Name == name {
			return &g.cfg.File.Upstreams[i]
		}
	}
	return nil
}
