package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Headers of the gateway's protocol.
const (
	HeaderRun     = "Toolstream-Run"
	HeaderSession = "Toolstream-Session"
	HeaderUser    = "Toolstream-User"
	HeaderStep    = "Toolstream-Step"
	// HeaderMode is "passthrough" (the default) or "run".
	HeaderMode = "Toolstream-Mode"
	// HeaderStream is the stream's id in the answer: what resuming names
	// (with Last-Event-ID on a POST, or in a GET's path).
	HeaderStream = "Toolstream-Stream"
	// HeaderExecute says who runs a passthrough answer's calls: "client"
	// (the default: recorded and assembled, never run by Toolstream) or
	// "server" (the registry's tools run them, as for a producer; also a
	// key's execute: true). Run mode always runs them.
	HeaderExecute = "Toolstream-Execute"
	// HeaderShouldRetry "false" on a run's decided outcome (failed,
	// cancelled) tells the official OpenAI and Anthropic SDKs, which retry
	// a 5xx or 409 twice by default, not to: sent again, the request starts
	// a new run (a failed run of 8 rounds ran 24).
	HeaderShouldRetry = "X-Should-Retry"
)

// HeaderIDBytesMax bounds the ids a client names in the headers above (a
// user, a run, a session, a step). They go into the log's subjects and
// bucket keys, which the NATS server reads in a control line of 4 KiB: a
// Toolstream-User of 5,000 bytes made the server close the driver's
// connection, and run mode answered 500 to every tenant until serve
// restarted. A longer one is refused with 400 before anything is asked.
const HeaderIDBytesMax = 256

// ServeHTTP serves the gateway's endpoints. A panic of one request is
// recovered here, logged with its stack and counted (Panics): it ends
// that request (a 500 when nothing was written yet) and nothing else.
// Every handler returns only once nothing it started writes to w any more.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The body must arrive within BodyReadTimeout; a handler clears the
	// deadline once it read it (a stream's response may last for minutes,
	// and a read deadline left on the connection would end it).
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(g.cfg.File.Limits.BodyReadTimeout))
	gw := &guardWriter{ResponseWriter: w}
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		if p == http.ErrAbortHandler { //nolint:errorlint // net/http's own sentinel, compared as net/http does
			panic(p)
		}
		panics.Add(1)
		g.log.Error("gateway panic recovered", "where", "handler", "method", r.Method, "path", r.URL.Path,
			"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		if !gw.wrote.Load() {
			WriteError(w, apiOfPath(r.URL.Path), http.StatusInternalServerError, errInternal.Error())
		}
	}()
	g.mux.ServeHTTP(gw, r)
}

// guardWriter records whether a response was begun, so a recovered panic
// answers 500 only when nothing was written.
type guardWriter struct {
	http.ResponseWriter
	wrote atomic.Bool
}

func (w *guardWriter) WriteHeader(status int) {
	w.wrote.Store(true)
	w.ResponseWriter.WriteHeader(status)
}

func (w *guardWriter) Write(p []byte) (int, error) {
	w.wrote.Store(true)
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (Flush, read
// deadlines).
func (w *guardWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// apiOfPath is the API whose error shape a path's answers take.
func apiOfPath(path string) API {
	switch {
	case strings.HasSuffix(path, "/messages") || strings.Contains(path, "/messages/"):
		return APIMessages
	case strings.Contains(path, "/responses"):
		return APIResponses
	}
	return APIChat
}

// admit authenticates r and takes its place in the limits. It writes the
// error in api's shape and returns false when r may not go on; else the
// caller releases the slot (slot.release) when it is done with it.
func (g *Gateway) admit(w http.ResponseWriter, r *http.Request, api API) (Envelope, *slot, bool) {
	env, hash, ok := g.authenticate(w, r, api)
	if !ok {
		return Envelope{}, nil, false
	}
	sl, err := g.limits.acquire(hash)
	if err != nil {
		g.log.Warn("gateway request refused", "tenant", env.Tenant, "user", env.User, "err", err)
		writeBusy(w, api, err)
		return Envelope{}, nil, false
	}
	return env, sl, true
}

// route is one pattern the gateway serves and its handler.
type route struct {
	pattern string
	h       http.HandlerFunc
}

// routeTable is every route the gateway serves, the catch-all last.
func (g *Gateway) routeTable() []route {
	return []route{
		{"POST /v1/chat/completions", g.post(APIChat)},
		{"POST /v1/responses", g.post(APIResponses)},
		{"POST /v1/messages", g.post(APIMessages)},
		{"GET /v1/responses/{id}", g.get(APIResponses)},
		{"POST /v1/responses/{id}/cancel", g.cancelResponse},
		{"GET /toolstream/v1/responses/{id}", g.get(APIResponses)},
		{"GET /toolstream/v1/chat/completions/{id}", g.get(APIChat)},
		{"GET /toolstream/v1/messages/{id}", g.get(APIMessages)},
		{"GET /v1/models", g.models},
		{"GET /v1/models/{id...}", g.model},
		{"POST /v1/embeddings", g.embeddings},
		{"/", g.notFound},
	}
}

// Routes is the pattern of every route the gateway serves (net/http's
// ServeMux patterns: method, path, wildcards), the catch-all "/" last:
// what an attack test enumerates, so a route added without a row of its
// table fails it.
func Routes() []string {
	var g Gateway
	rt := g.routeTable()
	out := make([]string, len(rt))
	for i, r := range rt {
		out[i] = r.pattern
	}
	return out
}

func (g *Gateway) routes() *http.ServeMux {
	mux := http.NewServeMux()
	for _, r := range g.routeTable() {
		mux.HandleFunc(r.pattern, r.h)
	}
	return mux
}

// authenticate returns the envelope of r's key and headers and the key's
// hash; it writes the error in api's shape and returns false when there
// is none. The envelope's run is scoped by its user (RunID).
func (g *Gateway) authenticate(w http.ResponseWriter, r *http.Request, api API) (Envelope, string, bool) {
	key := r.Header.Get("X-Api-Key")
	if key == "" {
		if auth := r.Header.Get("Authorization"); len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ") {
			key = strings.TrimSpace(auth[7:])
		}
	}
	hash := HashKey(key)
	k := g.key(hash)
	if key == "" || k == nil {
		WriteError(w, api, http.StatusUnauthorized, "Incorrect API key provided (Toolstream gateway).")
		return Envelope{}, "", false
	}
	if !k.Expires.IsZero() && !g.cfg.Now().Before(k.Expires) {
		g.refuse(w, api, k, g.police(k, ""))
		return Envelope{}, "", false
	}
	for _, h := range []string{HeaderUser, HeaderRun, HeaderSession, HeaderStep} {
		if v := r.Header.Get(h); len(v) > HeaderIDBytesMax {
			WriteError(w, api, http.StatusBadRequest, fmt.Sprintf("%s is %d bytes, over %d.", h, len(v), HeaderIDBytesMax))
			return Envelope{}, "", false
		}
	}
	env := Envelope{Tenant: k.Tenant, User: k.User, Session: r.Header.Get(HeaderSession),
		Run: r.Header.Get(HeaderRun), Step: r.Header.Get(HeaderStep)}
	if u := r.Header.Get(HeaderUser); u != "" {
		if k.User != "" && u != k.User {
			WriteError(w, api, http.StatusForbidden, "This API key may not act for user "+strconv.Quote(u)+".")
			return Envelope{}, "", false
		}
		env.User = u
	}
	if env.Run != "" {
		env.Run = RunID(env.User, env.Run)
	}
	return env, hash, true
}

// readBody reads a request's body within the body limit and deadline and
// lifts the read deadline (the response may take as long as the model, and
// the run); a body over the limit, late or unreadable is answered in api's
// shape (413, 408, 400) and ok is false.
func (g *Gateway) readBody(w http.ResponseWriter, r *http.Request, api API) (body []byte, ok bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.cfg.BodyMax))
	if err != nil {
		var tooLarge *http.MaxBytesError
		var ne net.Error
		switch {
		case errors.As(err, &tooLarge):
			WriteError(w, api, http.StatusRequestEntityTooLarge, fmt.Sprintf("The request body is over %d bytes.", g.cfg.BodyMax))
		case errors.As(err, &ne) && ne.Timeout():
			WriteError(w, api, http.StatusRequestTimeout, fmt.Sprintf("The request body did not arrive within %v.", g.cfg.File.Limits.BodyReadTimeout))
		default:
			WriteError(w, api, http.StatusBadRequest, "The request body could not be read: "+err.Error())
		}
		return nil, false
	}
	http.NewResponseController(w).SetReadDeadline(time.Time{})
	return body, true
}

// post serves a POST to api: run mode, a resumption, or passthrough.
func (g *Gateway) post(api API) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		env, sl, ok := g.admit(w, r, api)
		if !ok {
			return
		}
		defer sl.release()
		r = g.traced(r) // a client's traceparent: its trace goes on here (otel.go)
		body, ok := g.readBody(w, r, api)
		if !ok {
			return
		}
		var probe struct {
			Model    any  `json:"model"`
			Stream   bool `json:"stream"`
			Previous any  `json:"previous_response_id"` // Responses: checked by ownsPrevious
		}
		if err := json.Unmarshal(body, &probe); err != nil {
			WriteError(w, api, http.StatusBadRequest, fmt.Sprintf("%v: the body is not a JSON object: %v", ErrBadRequest, err))
			return
		}
		// The key's policy (keys.go): its models, budgets and rates.
		if k := g.key(sl.key); k != nil {
			model, _ := probe.Model.(string)
			if no := g.police(k, model); no != nil {
				g.refuse(w, api, k, no)
				return
			}
		}
		switch mode := r.Header.Get(HeaderMode); mode {
		case "", "passthrough":
		case "run":
			if g.cfg.Runner == nil {
				WriteError(w, api, http.StatusNotImplemented, "Toolstream-Mode: run is not served by this gateway.")
				return
			}
			model, _ := probe.Model.(string)
			up, _, err := g.route(api, "", body)
			if err != nil {
				WriteError(w, api, http.StatusBadRequest, err.Error())
				return
			}
			ctx, end := g.startRunSpan(r.Context(), env, model)
			defer end()
			noPlans, noDelegate := g.keyBuiltinsOff(sl.key)
			g.cfg.Runner.ServeRun(w, r.WithContext(ctx), &Request{API: api, Env: env, Body: body, Stream: probe.Stream, Model: model,
				Upstream: up.Name, RunName: r.Header.Get(HeaderRun), NoMemory: g.keyNoMemory(sl.key), NoPlans: noPlans, NoDelegate: noDelegate, slot: sl})
			return
		default:
			WriteError(w, api, http.StatusBadRequest, fmt.Sprintf("%v: %s %q (want passthrough or run)", ErrBadRequest, HeaderMode, mode))
			return
		}
		if last := r.Header.Get("Last-Event-ID"); last != "" && r.Header.Get(HeaderStream) != "" {
			after, err := strconv.ParseInt(last, 10, 64)
			if err != nil || after < -1 {
				WriteError(w, api, http.StatusBadRequest, fmt.Sprintf("%v: Last-Event-ID %q is not an event id", ErrBadRequest, last))
				return
			}
			g.resume(w, r, api, env, r.Header.Get(HeaderStream), after)
			return
		}
		if api == APIResponses && !g.ownsPrevious(w, r, env, probe.Previous) {
			return
		}
		clientRuns := true
		switch x := r.Header.Get(HeaderExecute); x {
		case "":
			clientRuns = !g.keyExecutes(sl.key)
		case "client":
		case "server":
			clientRuns = false
		default:
			WriteError(w, api, http.StatusBadRequest, fmt.Sprintf("%v: %s %q (want client or server)", ErrBadRequest, HeaderExecute, x))
			return
		}
		g.passthrough(w, r, api, env, body, sl, clientRuns)
	}
}

// ownsPrevious answers 404, as OpenAI does, a Responses request whose
// previous_response_id names no response of this tenant and user: the
// upstreams' keys and the responses they store are shared by every
// tenant, so without it a key that learned another tenant's (or user's)
// response id would continue that conversation, the upstream reading its
// history out to the wrong client. A response counts as the user's when
// the gateway relays it to them now or the log holds it under the id for
// them (findStream), which is how every response it relayed is kept. A
// response the upstream gave under an id it had given before is kept
// under the gateway's own id (relay.claimFirst), so continuing it by the
// upstream's id is refused too: the id names two conversations. previous
// is the body's previous_response_id as the request's one decode read it.
func (g *Gateway) ownsPrevious(w http.ResponseWriter, r *http.Request, env Envelope, previous any) bool {
	if previous == nil {
		return true
	}
	prev, ok := previous.(string)
	if !ok {
		WriteError(w, APIResponses, http.StatusBadRequest, fmt.Sprintf("%v: previous_response_id is not a string", ErrBadRequest))
		return false
	}
	if prev == "" {
		return true
	}
	_, err := g.findStream(r.Context(), APIResponses, env, prev)
	switch {
	case err == nil:
		return true
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrBadRequest):
		WriteError(w, APIResponses, http.StatusNotFound, fmt.Sprintf("Previous response with id '%s' not found.", prev))
	default:
		g.log.Error("gateway: look up a previous response", "tenant", env.Tenant, "err", err)
		WriteError(w, APIResponses, http.StatusInternalServerError, "The gateway could not read its log; try again.")
	}
	return false
}

// passthrough relays one request: the upstream read runs apart from the
// client, so a client that goes away does not stop it. A streamed answer
// is written to the client from the upstream read's goroutine itself (no
// hand-off between goroutines before the client has an event), but only
// through sse, which the handler closes before it returns: after that the
// goroutine's writes, headers and heartbeats do nothing. So nothing
// touches w after the handler returned, whenever the client goes (before
// the upstream's headers, mid-stream), which a write to a finished
// ResponseWriter from the goroutine did and crashed serve.
// The goroutine holds a reference to the request's slot until the
// upstream read ended.
func (g *Gateway) passthrough(w http.ResponseWriter, r *http.Request, api API, env Envelope, body []byte, sl *slot, clientRuns bool) {
	type ended struct {
		res *Result
		err error
	}
	sse := newSSEWriter(w, g.cfg.ClientStall)
	defer sse.Close()
	var streamed atomic.Bool       // set by OnResponse, before startc is closed
	startc := make(chan struct{})  // the upstream answered
	upEnded := make(chan struct{}) // its stream ended: every frame is written or dropped
	endc := make(chan ended, 1)
	call := Call{API: api, Body: body, Header: r.Header, Query: r.URL.RawQuery, Env: env, Key: sl.key, ClientRuns: clientRuns, RecordPrompt: true,
		OnResponse: func(status int, h http.Header) {
			if status == http.StatusOK && isEventStream(h) {
				sse.CopyHeader(h)
				sse.Heartbeat(g.cfg.File.Heartbeat)
				streamed.Store(true)
			}
			close(startc)
		},
		// Events that came from the upstream together are written
		// together, flushed once the relay has none more in hand.
		OnWait: func() { sse.Flush() },
		OnEnd:  func(error) { close(upEnded) }}
	first := true // onFrame runs on one goroutine
	onFrame := func(f Frame) error {
		if first { // the first byte goes out at once
			sse.SetHeader(HeaderStream, f.Stream)
			first = false
			return sse.Event(f.Pos, f.Event, f.Data)
		}
		return sse.Buffer(f.Pos, f.Event, f.Data)
	}
	release := sl.detach()
	g.detached.Add(1)
	go func() {
		defer g.detached.Done()
		defer release()
		e := ended{err: errInternal} // unless Stream returns
		defer func() { endc <- e }()
		defer recoverPanic(g.log, "upstream read", "tenant", env.Tenant, "api", string(api))
		e.res, e.err = g.Stream(context.WithoutCancel(r.Context()), call, onFrame)
		if e.err != nil {
			g.log.Warn("gateway upstream", "tenant", env.Tenant, "api", string(api), "err", e.err)
		}
	}()
	// The upstream's status and headers come first, when it answered.
	select {
	case <-startc:
	case e := <-endc:
		select {
		case <-startc:
			endc <- e
		default: // the upstream never answered
			status := http.StatusBadGateway
			switch {
			case errors.Is(e.err, ErrBadRequest):
				status = http.StatusBadRequest
			case errors.Is(e.err, errInternal):
				status = http.StatusInternalServerError
			}
			WriteError(w, api, status, e.err.Error())
			return
		}
	case <-r.Context().Done():
		return // the client went away first; sse is closed before the upstream answers
	}
	if streamed.Load() {
		select {
		case <-upEnded:
		case <-endc:
		case <-r.Context().Done(): // the client went away; the upstream read goes on
		}
		return
	}
	var e ended
	select {
	case e = <-endc:
	case <-r.Context().Done():
		return
	}
	if e.res == nil || e.res.Body == nil && e.err != nil {
		status := http.StatusBadGateway
		if errors.Is(e.err, errInternal) {
			status = http.StatusInternalServerError
		}
		WriteError(w, api, status, e.err.Error())
		return
	}
	copyResponseHeader(w.Header(), e.res.Header)
	w.Header().Set(HeaderStream, e.res.Stream)
	w.WriteHeader(e.res.Status)
	w.Write(e.res.Body)
}

// copyResponseHeader copies the upstream's answer headers that reach the
// client.
func copyResponseHeader(dst, src http.Header) {
	for k, vs := range src {
		switch strings.ToLower(k) {
		case "content-length", "connection", "keep-alive", "transfer-encoding", "trailer", "upgrade",
			"content-encoding", "set-cookie", "date", "server":
			continue
		}
		dst[k] = append([]string(nil), vs...)
	}
}

// get serves a resumption: GET …/{id}?stream=true&starting_after=N, or
// Last-Event-ID.
func (g *Gateway) get(api API) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		http.NewResponseController(w).SetReadDeadline(time.Time{}) // no body: a resumption lasts as long as its stream
		env, sl, ok := g.admit(w, r, api)
		if !ok {
			return
		}
		defer sl.release()
		q := r.URL.Query()
		after := int64(-1)
		for _, v := range []string{q.Get("starting_after"), r.Header.Get("Last-Event-ID")} {
			if v == "" {
				continue
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < -1 {
				WriteError(w, api, http.StatusBadRequest, fmt.Sprintf("%v: event id %q is not a number", ErrBadRequest, v))
				return
			}
			after = max(after, n)
		}
		if api == APIResponses && !strings.HasPrefix(r.URL.Path, "/toolstream/") {
			// A background response (background.go), polled or streamed.
			if b, ok := g.cfg.Runner.(backgrounder); ok && b.serveBackgroundGet(w, r, env, r.PathValue("id"), q.Get("stream") == "true", after) {
				return
			}
			if q.Get("stream") != "true" {
				WriteError(w, api, http.StatusNotFound, fmt.Sprintf("No background response with id %q (the gateway serves other stored responses as streams only, stream=true).", r.PathValue("id")))
				return
			}
		}
		g.resume(w, r, api, env, r.PathValue("id"), after)
	}
}

// resume streams a stream's frames from the log after position after (-1:
// from the start), then follows it live until its end or the client's.
func (g *Gateway) resume(w http.ResponseWriter, r *http.Request, api API, env Envelope, stream string, after int64) {
	fr, err := g.openFrames(r.Context(), api, env, stream)
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, ErrNotFound) {
			status = http.StatusNotFound
		} else if errors.Is(err, ErrBadRequest) {
			status = http.StatusBadRequest
		}
		WriteError(w, api, status, err.Error())
		return
	}
	defer fr.stop()
	w.Header().Set(HeaderStream, stream)
	sse := newSSEWriter(w, g.cfg.ClientStall)
	sse.Heartbeat(g.cfg.File.Heartbeat)
	defer sse.Close() // nothing writes to w once the handler returns
	if err := sse.Start(); err != nil {
		return
	}
	for {
		f, end, err := fr.next(r.Context())
		if err != nil {
			if r.Context().Err() == nil {
				g.log.Warn("gateway resume", "tenant", env.Tenant, "stream", stream, "err", err)
			}
			return
		}
		if end {
			return
		}
		if f.Pos <= after {
			continue
		}
		if sse.Event(f.Pos, f.Event, f.Data) != nil {
			return
		}
	}
}
