package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
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
)

// ServeHTTP serves the gateway's endpoints.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) { g.mux.ServeHTTP(w, r) }

func (g *Gateway) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", g.post(APIChat))
	mux.HandleFunc("POST /v1/responses", g.post(APIResponses))
	mux.HandleFunc("POST /v1/messages", g.post(APIMessages))
	mux.HandleFunc("GET /v1/responses/{id}", g.get(APIResponses))
	mux.HandleFunc("GET /toolstream/v1/responses/{id}", g.get(APIResponses))
	mux.HandleFunc("GET /toolstream/v1/chat/completions/{id}", g.get(APIChat))
	mux.HandleFunc("GET /toolstream/v1/messages/{id}", g.get(APIMessages))
	return mux
}

// authenticate returns the envelope of r's key and headers; it writes the
// error in api's shape and returns false when there is none.
func (g *Gateway) authenticate(w http.ResponseWriter, r *http.Request, api API) (Envelope, bool) {
	key := r.Header.Get("X-Api-Key")
	if key == "" {
		if auth := r.Header.Get("Authorization"); len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ") {
			key = strings.TrimSpace(auth[7:])
		}
	}
	k, ok := g.keys[HashKey(key)]
	if key == "" || !ok {
		WriteError(w, api, http.StatusUnauthorized, "Incorrect API key provided (Toolstream gateway).")
		return Envelope{}, false
	}
	env := Envelope{Tenant: k.Tenant, User: k.User, Session: r.Header.Get(HeaderSession),
		Run: r.Header.Get(HeaderRun), Step: r.Header.Get(HeaderStep)}
	if u := r.Header.Get(HeaderUser); u != "" {
		if k.User != "" && u != k.User {
			WriteError(w, api, http.StatusForbidden, "This API key may not act for user "+strconv.Quote(u)+".")
			return Envelope{}, false
		}
		env.User = u
	}
	return env, true
}

// post serves a POST to api: run mode, a resumption, or passthrough.
func (g *Gateway) post(api API) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		env, ok := g.authenticate(w, r, api)
		if !ok {
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.cfg.BodyMax))
		if err != nil {
			WriteError(w, api, http.StatusRequestEntityTooLarge, "The request body could not be read: "+err.Error())
			return
		}
		var probe struct {
			Model  any  `json:"model"`
			Stream bool `json:"stream"`
		}
		if err := json.Unmarshal(body, &probe); err != nil {
			WriteError(w, api, http.StatusBadRequest, fmt.Sprintf("%v: the body is not a JSON object: %v", ErrBadRequest, err))
			return
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
			g.cfg.Runner.ServeRun(w, r, &Request{API: api, Env: env, Body: body, Stream: probe.Stream, Model: model, Upstream: up.Name})
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
		g.passthrough(w, r, api, env, body)
	}
}

// passthrough relays one request: the upstream read runs apart from the
// client, so a client that goes away does not stop it. A streamed answer
// is written to the client from the upstream read's goroutine itself (no
// hand-off between goroutines before the client has an event); the
// handler waits for the upstream's end or the client's, then closes the
// writer so nothing touches the ResponseWriter after it returns.
func (g *Gateway) passthrough(w http.ResponseWriter, r *http.Request, api API, env Envelope, body []byte) {
	type ended struct {
		res *Result
		err error
	}
	var sse *SSEWriter             // set by OnResponse, before startc is closed
	startc := make(chan struct{})  // the upstream answered
	upEnded := make(chan struct{}) // its stream ended: every frame is written or dropped
	endc := make(chan ended, 1)
	call := Call{API: api, Body: body, Header: r.Header, Query: r.URL.RawQuery, Env: env,
		OnResponse: func(status int, h http.Header) {
			if status == http.StatusOK && isEventStream(h) {
				copyResponseHeader(w.Header(), h)
				sse = NewSSEWriter(w)
				sse.Heartbeat(g.cfg.File.Heartbeat)
			}
			close(startc)
		},
		OnEnd: func(error) { close(upEnded) }}
	onFrame := func(f Frame) error {
		if !sse.Started() {
			w.Header().Set(HeaderStream, f.Stream)
		}
		return sse.Event(f.Pos, f.Event, f.Data)
	}
	g.detached.Add(1)
	go func() {
		defer g.detached.Done()
		res, err := g.Stream(context.WithoutCancel(r.Context()), call, onFrame)
		if err != nil {
			g.log.Warn("gateway upstream", "tenant", env.Tenant, "api", string(api), "err", err)
		}
		endc <- ended{res, err}
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
			if errors.Is(e.err, ErrBadRequest) {
				status = http.StatusBadRequest
			}
			WriteError(w, api, status, e.err.Error())
			return
		}
	case <-r.Context().Done():
		return
	}
	if sse != nil {
		defer sse.Close()
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
		WriteError(w, api, http.StatusBadGateway, e.err.Error())
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
		env, ok := g.authenticate(w, r, api)
		if !ok {
			return
		}
		q := r.URL.Query()
		if api == APIResponses && q.Get("stream") != "true" && !strings.HasPrefix(r.URL.Path, "/toolstream/") {
			WriteError(w, api, http.StatusBadRequest, fmt.Sprintf("%v: the gateway serves stored responses as streams only (stream=true)", ErrBadRequest))
			return
		}
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
	sse := NewSSEWriter(w)
	sse.Heartbeat(g.cfg.File.Heartbeat)
	defer sse.StopHeartbeat()
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
