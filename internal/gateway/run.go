package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/toolstream/toolstream/internal/agent"
	"github.com/toolstream/toolstream/internal/runs"
)

// HeaderOnDisconnect is what a run does when its client goes away:
// "continue" (the default: it goes on to its answer or approval wait) or
// "cancel" (it ends with reason client_disconnected and runs no further
// tool).
const HeaderOnDisconnect = "Toolstream-On-Disconnect"

// HeaderRunStatus is a run-mode answer's status (agent.Status): on every
// answer that is not a stream, and on a stream whose headers were not
// written before the outcome (a heartbeat writes them). The answer's
// "toolstream" field always has it.
const HeaderRunStatus = "Toolstream-Run-Status"

// HeaderMemory "off" leaves the user's memory out of a run-mode request:
// nothing recalled into its rounds, its user messages not written. A
// request cannot turn on what the key (memory: false) or the gateway
// (memory: {off: true}) turned off.
const HeaderMemory = "Toolstream-Memory"

// RunServer serves run mode (Toolstream-Mode: run) with an agent.Driver
// whose rounds go upstream through the gateway (Model). Set Driver before
// serving. Safe for concurrent use.
type RunServer struct {
	Driver *agent.Driver
	// Heartbeat is the interval of the SSE comments while a streamed run is
	// under way; default DefaultHeartbeat.
	Heartbeat time.Duration
	Logger    *slog.Logger
	// Now stamps the answers' created times; default time.Now.
	Now func() time.Time

	detached sync.WaitGroup // drives whose client went away
	bg       bgTable        // background responses (background.go)
}

var _ Runner = (*RunServer)(nil)

// Model returns the agent.Model that sends a run's rounds upstream through
// g: every event kept, published and assembled as in passthrough.
func Model(g *Gateway) agent.Model { return gatewayModel{g} }

type gatewayModel struct{ g *Gateway }

func (m gatewayModel) Round(ctx context.Context, r agent.Round) (*agent.RoundResult, error) {
	s := r.Spec
	// Routed as the client's request was: by the body's model
	// ("upstream-name/model", the prefix taken off) or to the first
	// upstream of the API's kind.
	api := apiOfFormat(s.Format)
	res, err := m.g.Stream(ctx, Call{API: api, Body: r.Body, Key: s.Key,
		Env:       Envelope{Tenant: s.Tenant, User: s.User, Session: s.Session, Run: s.Run, Step: r.Step},
		ToolsOnly: s.Parent != "", Tools: s.Tools}, nil)
	if err != nil {
		if res != nil && res.Status != 0 && res.Status != http.StatusOK {
			return &agent.RoundResult{Response: res.Stream, Status: res.Status, Body: res.Body, Header: res.Header}, nil
		}
		if ctx.Err() != nil || res != nil && res.Status == http.StatusOK {
			return nil, err // the client's end, or a stream cut: the round's outcome is the log's
		}
		// No answer at all: the client gets the provider's error, as
		// passthrough answers it (a timeout is a 504).
		status := http.StatusBadGateway
		switch {
		case errors.Is(err, ErrBadRequest):
			status = http.StatusBadRequest
		case isTimeout(err):
			status = http.StatusGatewayTimeout
		}
		return &agent.RoundResult{Status: status, Body: ErrorBody(api, status, err.Error()), Header: http.Header{}}, nil
	}
	return &agent.RoundResult{Response: res.Stream, Status: res.Status, Body: res.Body, Header: res.Header}, nil
}

// isTimeout reports whether err is a deadline passing (a transport's or a
// context's).
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

func apiOfFormat(f string) API {
	switch f {
	case runs.FormatResponses:
		return APIResponses
	case runs.FormatAnthropic:
		return APIMessages
	}
	return APIChat
}

func formatOfAPI(a API) string {
	switch a {
	case APIResponses:
		return runs.FormatResponses
	case APIMessages:
		return runs.FormatAnthropic
	}
	return runs.FormatChat
}

// Wait waits until every drive whose client went away has ended, or ctx
// ends.
func (s *RunServer) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() { s.detached.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *RunServer) log() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// ServeRun implements Runner: it drives the request's run (Toolstream-Run,
// or a new id) and answers with its outcome in the API's shape — the
// answer as one stream when the client asked for one (SSE comments while
// it waits), else one JSON object — with the run's id in Toolstream-Run
// and its status and the verifier's verdicts in a "toolstream" field.
func (s *RunServer) ServeRun(w http.ResponseWriter, r *http.Request, req *Request) {
	onDisconnect := r.Header.Get(HeaderOnDisconnect)
	switch onDisconnect {
	case "", "continue", "cancel":
	default:
		WriteError(w, req.API, http.StatusBadRequest, fmt.Sprintf("%v: %s %q (want continue or cancel)", ErrBadRequest, HeaderOnDisconnect, onDisconnect))
		return
	}
	if s.Driver == nil {
		WriteError(w, req.API, http.StatusNotImplemented, "Toolstream-Mode: run is not served by this gateway.")
		return
	}
	mem := ""
	switch m := r.Header.Get(HeaderMemory); {
	case m != "" && m != "on" && m != agent.MemoryOff:
		WriteError(w, req.API, http.StatusBadRequest, fmt.Sprintf("%v: %s %q (want on or off)", ErrBadRequest, HeaderMemory, m))
		return
	case m == agent.MemoryOff || req.NoMemory:
		mem = agent.MemoryOff
	}
	// The client names its run (Toolstream-Run) or gets a new one; in the
	// log, the runs view and the leases it is the user's (RunID), and the
	// name is its run's in the tenant: a key bound to bob that names
	// alice's run is told no such run exists (404, agent.ErrNotFound) and
	// the model is not asked; it never reaches her run.
	name, run := req.RunName, req.Env.Run
	if name == "" {
		name = agent.NewRunID()
		run = RunID(req.Env.User, name)
	} else if run == "" {
		run = RunID(req.Env.User, name)
	}
	spec := agent.Spec{Tenant: req.Env.Tenant, User: req.Env.User, Session: req.Env.Session, Run: run, Name: req.RunName,
		Format: formatOfAPI(req.API), Upstream: req.Upstream, Body: req.Body, OnDisconnect: onDisconnect, Key: req.key(), Memory: mem,
		PlansOff: req.NoPlans, DelegateOff: req.NoDelegate}
	if req.API == APIResponses && wantsBackground(req.Body) {
		s.serveBackground(w, r, req, name, spec) // background.go
		return
	}
	// The run outlives its client unless the client asked otherwise.
	ctx := context.WithoutCancel(r.Context())
	if onDisconnect == "cancel" {
		ctx = r.Context()
	}
	type ended struct {
		out *agent.Outcome
		err error
	}
	endc := make(chan ended, 1)
	release := req.Detach() // the drive holds the request's place in the limits until it ends
	s.detached.Add(1)
	go func() {
		defer s.detached.Done()
		defer release()
		e := ended{err: errInternal} // unless Run returns
		defer func() { endc <- e }()
		defer recoverPanic(s.log(), "run drive", "tenant", spec.Tenant, "run", run)
		e.out, e.err = s.Driver.Run(ctx, spec)
		if e.err != nil {
			s.log().Warn("run failed", "tenant", spec.Tenant, "run", run, "err", e.err)
		} else if e.out.Status != agent.StatusAnswered {
			s.log().Info("run ended", "tenant", spec.Tenant, "run", run, "status", e.out.Status, "reason", e.out.Reason)
		}
	}()
	w.Header().Set(HeaderRun, name)
	var sse *SSEWriter
	if req.Stream {
		// Nothing is written before the first heartbeat: an answer that
		// comes sooner can still be an error with the provider's status.
		sse = NewSSEWriter(w)
		sse.Heartbeat(s.Heartbeat)
		defer sse.Close() // nothing writes to w once the handler returns
	}
	var e ended
	select {
	case e = <-endc:
	case <-r.Context().Done():
		return // the run goes on (or was cancelled, by the same context)
	}
	if sse != nil {
		sse.StopHeartbeat()
	}
	if e.err != nil {
		status, msg := http.StatusInternalServerError, e.err.Error()
		switch {
		case errors.Is(e.err, agent.ErrBadRequest):
			status = http.StatusBadRequest
		case errors.Is(e.err, agent.ErrNotFound):
			// Another user's run (a caller that did not scope it): told
			// as a run that does not exist, which it does not, for this
			// user.
			status, msg = http.StatusNotFound, fmt.Sprintf("%v: no run %q", ErrNotFound, name)
		}
		s.fail(w, sse, req.API, status, msg)
		return
	}
	out := *e.out  // a copy: a second request of the run shares the outcome
	out.Run = name // as the client named it
	if out.Reason == agent.ReasonUpstreamError && out.Upstream != nil && (sse == nil || !sse.Started()) {
		// The upstream's error as it answered it, with its headers
		// (Retry-After, X-Request-Id) for the caller and the provider's
		// support. The run has failed, and the gateway's pool retried the
		// upstream already: an SDK's automatic retry (the official ones
		// retry a 429, a 5xx twice by default) would start a new run that
		// fails again, one failed run per retry. X-Should-Retry: false,
		// which both SDKs obey, as on every failed run's answer.
		copyResponseHeader(w.Header(), out.Upstream.Header)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set(HeaderRunStatus, string(out.Status))
		if out.Status == agent.StatusFailed {
			w.Header().Set(HeaderShouldRetry, "false")
		}
		w.WriteHeader(out.Upstream.Status)
		w.Write(out.Upstream.Body)
		return
	}
	if out.Reason == agent.ReasonUpstreamError && out.Upstream != nil && json.Valid(out.Upstream.Body) {
		// The stream began (heartbeats): the upstream's error, in its
		// provider's shape, is the stream's error event, which the SDKs
		// raise with its message.
		name := ""
		if req.API == APIMessages {
			name = "error"
		}
		sse.Event(-1, name, out.Upstream.Body)
		return
	}
	switch out.Status {
	case agent.StatusCancelled, agent.StatusFailed:
		w.Header().Set(HeaderShouldRetry, "false") // a stream already begun sent its headers: no SDK retries it
		w.Header().Set(HeaderRunStatus, string(out.Status))
	}
	switch out.Status {
	case agent.StatusCancelled:
		s.fail(w, sse, req.API, http.StatusConflict, fmt.Sprintf("run %s was cancelled (%s).", out.Run, out.Reason))
		return
	case agent.StatusFailed:
		s.fail(w, sse, req.API, http.StatusBadGateway, fmt.Sprintf("run %s failed (%s): %s", out.Run, out.Reason, out.Detail))
		return
	}
	a := newAnswer(req, &out, s.now())
	if sse == nil {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set(HeaderRunStatus, string(out.Status))
		w.Write(a.whole())
		return
	}
	sse.SetHeader(HeaderRunStatus, string(out.Status)) // when no heartbeat wrote the headers yet
	after := int64(-1)
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		if n, err := strconv.ParseInt(last, 10, 64); err == nil {
			after = n
		}
	}
	for i, ev := range a.events() {
		if int64(i) <= after {
			continue // the client has it: the answer's events are the same every time
		}
		if sse.Event(int64(i), ev.name, ev.data) != nil {
			return
		}
	}
}

// fail ends a run-mode response with an error in the API's shape: the
// status and body, or, on a stream already started, an error event.
func (s *RunServer) fail(w http.ResponseWriter, sse *SSEWriter, api API, status int, message string) {
	if sse == nil || !sse.Started() {
		WriteError(w, api, status, message)
		return
	}
	name := ""
	if api == APIMessages {
		name = "error"
	}
	sse.Event(-1, name, ErrorBody(api, status, message))
}

func (s *RunServer) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// key is the hash of the request's client key (its place in the limits is
// taken under it); "" for a request without one.
func (r *Request) key() string {
	if r.slot == nil {
		return ""
	}
	return r.slot.key
}
