package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/toolstream/toolstream/internal/agent"
)

// OpenAI background mode for Responses, on top of run mode's detached
// runs (docs/operations.md, "Background responses"):
//
//   - POST /v1/responses with "background": true in run mode starts the
//     run apart from the request (as a run whose client went away goes
//     on) and answers at once with the response object, status "queued"
//     and the response's id (resp_ts_bg_…); with "stream": true too, the
//     answer is the run's stream instead, which may be resumed;
//   - GET /v1/responses/{id} is the response object as it is now
//     (in_progress, then completed, incomplete, failed or cancelled, with
//     the output and usage once there are);
//   - POST /v1/responses/{id}/cancel cancels the run (its context ends:
//     no further round, no further tool) and answers the object with
//     status "cancelled"; a response that ended already is answered as it
//     ended;
//   - GET /v1/responses/{id}?stream=true&starting_after=N streams the
//     answer's events after sequence number N once the run has ended
//     (heartbeats while it has not).
//
// A background response is its tenant's and user's: a key of another
// tenant or user is told it does not exist (404 in OpenAI's shape), as
// for another user's run. The gateway keeps the latest
// BackgroundMax background responses in memory (the runs themselves are
// in the log): they do not survive a restart of the process, and another
// gateway process does not know them.

// BackgroundMax is how many background responses a RunServer keeps;
// beyond it the oldest that has ended is forgotten.
const BackgroundMax = 4096

// bgRun is one background response.
type bgRun struct {
	id, tenant, user, name string
	req                    Request // API, Model; no slot
	created                int64
	cancel                 context.CancelFunc
	done                   chan struct{} // closed when the drive ended

	mu        sync.Mutex
	cancelled bool
	out       *agent.Outcome
	err       error
}

// bgTable is a RunServer's background responses.
type bgTable struct {
	mu    sync.Mutex
	m     map[string]*bgRun
	order []string // ids, oldest first
}

func (t *bgTable) add(b *bgRun) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[string]*bgRun{}
	}
	for len(t.order) >= BackgroundMax {
		victim := -1
		for i, id := range t.order {
			select {
			case <-t.m[id].done:
				victim = i
			default:
			}
			if victim >= 0 {
				break
			}
		}
		if victim < 0 {
			break // every one is under way: the table grows with the runs, which the limits bound
		}
		delete(t.m, t.order[victim])
		t.order = append(t.order[:victim], t.order[victim+1:]...)
	}
	t.m[b.id] = b
	t.order = append(t.order, b.id)
}

// get returns the background response id of env's tenant and user, or nil.
func (t *bgTable) get(env Envelope, id string) *bgRun {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.m[id]
	if b == nil || b.tenant != env.Tenant || b.user != env.User {
		return nil
	}
	return b
}

// wantsBackground reports whether a Responses body asks for background mode.
func wantsBackground(body []byte) bool {
	var probe struct {
		Background bool `json:"background"`
	}
	return json.Unmarshal(body, &probe) == nil && probe.Background
}

// serveBackground starts spec's run as a background response and answers
// with it (queued), or with its stream when the request asked for one.
func (s *RunServer) serveBackground(w http.ResponseWriter, r *http.Request, req *Request, name string, spec agent.Spec) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	b := &bgRun{id: "resp_ts_bg_" + agent.NewRunID(), tenant: req.Env.Tenant, user: req.Env.User, name: name,
		req: Request{API: req.API, Model: req.Model, Env: req.Env}, created: s.now().Unix(), cancel: cancel, done: make(chan struct{})}
	spec.OnDisconnect = "continue"
	release := req.Detach() // the drive holds the request's place in the limits until it ends
	s.detached.Add(1)
	go func() {
		defer s.detached.Done()
		defer release()
		defer close(b.done)
		defer cancel()
		var out *agent.Outcome
		err := errInternal // unless Run returns
		defer func() {
			b.mu.Lock()
			b.out, b.err = out, err
			b.mu.Unlock()
		}()
		defer recoverPanic(s.log(), "background run", "tenant", spec.Tenant, "run", spec.Run)
		out, err = s.Driver.Run(ctx, spec)
		if err != nil {
			s.log().Warn("background run failed", "tenant", spec.Tenant, "run", spec.Run, "err", err)
		}
	}()
	s.bg.add(b)
	w.Header().Set(HeaderRun, name)
	if req.Stream {
		s.streamBackground(w, r, b, -1)
		return
	}
	obj := s.bgObject(b)
	obj["status"] = "queued" // the drive has just begun
	w.Header().Set("Content-Type", "application/json")
	w.Write(mustJSON(obj))
}

// bgObject is b's response object as it is now.
func (s *RunServer) bgObject(b *bgRun) map[string]any {
	b.mu.Lock()
	out, err, cancelled := b.out, b.err, b.cancelled
	b.mu.Unlock()
	ended := false
	select {
	case <-b.done:
		ended = true
	default:
	}
	obj := map[string]any{"id": b.id, "object": "response", "created_at": b.created, "status": "in_progress", "background": true,
		"model": b.req.Model, "output": []any{}, "error": nil, "incomplete_details": nil, "usage": nil,
		"toolstream": RunMeta{Run: b.name, Status: agent.Status("running")}}
	switch {
	case cancelled:
		obj["status"] = "cancelled"
		if ended && out != nil {
			obj["toolstream"] = s.bgMeta(b, out)
		}
	case !ended:
	case err != nil:
		obj["status"], obj["error"] = "failed", map[string]any{"code": "server_error", "message": err.Error()}
	case out.Status == agent.StatusCancelled:
		obj["status"], obj["toolstream"] = "cancelled", s.bgMeta(b, out)
	case out.Status == agent.StatusFailed || out.Reason == agent.ReasonUpstreamError:
		msg := fmt.Sprintf("run %s failed (%s): %s", b.name, out.Reason, out.Detail)
		if out.Upstream != nil {
			var e struct {
				Error struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			if json.Unmarshal(out.Upstream.Body, &e) == nil && e.Error.Message != "" {
				msg = e.Error.Message
			}
		}
		obj["status"], obj["error"], obj["toolstream"] = "failed", map[string]any{"code": "server_error", "message": msg}, s.bgMeta(b, out)
	default:
		obj = s.bgAnswer(b, out).response(true)
		obj["background"] = true
	}
	return obj
}

func (s *RunServer) bgMeta(b *bgRun, out *agent.Outcome) RunMeta {
	return s.bgAnswer(b, out).meta
}

// bgAnswer is the answer of b's ended run, under b's id.
func (s *RunServer) bgAnswer(b *bgRun, out *agent.Outcome) *answer {
	o := *out
	o.Run = b.name
	a := newAnswer(&b.req, &o, s.now())
	a.id, a.created = b.id, b.created
	return a
}

// streamBackground streams b's answer after sequence number after once
// its run has ended.
func (s *RunServer) streamBackground(w http.ResponseWriter, r *http.Request, b *bgRun, after int64) {
	sse := NewSSEWriter(w)
	sse.Heartbeat(s.Heartbeat)
	defer sse.Close() // nothing writes to w once the handler returns
	select {
	case <-b.done:
	case <-r.Context().Done():
		return
	}
	sse.StopHeartbeat()
	obj := s.bgObject(b)
	if st := obj["status"]; st != "completed" && st != "incomplete" {
		e, _ := obj["error"].(map[string]any)
		msg := fmt.Sprintf("response %s was %v", b.id, st)
		if e != nil {
			msg = fmt.Sprint(e["message"])
		}
		s.fail(w, sse, APIResponses, http.StatusConflict, msg)
		return
	}
	b.mu.Lock()
	out := b.out
	b.mu.Unlock()
	for i, ev := range s.bgAnswer(b, out).events() {
		if int64(i) <= after {
			continue // the client has it: the answer's events are the same every time
		}
		if sse.Event(int64(i), ev.name, ev.data) != nil {
			return
		}
	}
}

// serveBackgroundGet serves GET /v1/responses/{id} for a background
// response of env's; false when there is none.
func (s *RunServer) serveBackgroundGet(w http.ResponseWriter, r *http.Request, env Envelope, id string, stream bool, after int64) bool {
	b := s.bg.get(env, id)
	if b == nil {
		return false
	}
	if stream {
		s.streamBackground(w, r, b, after)
		return true
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set(HeaderRun, b.name)
	w.Write(mustJSON(s.bgObject(b)))
	return true
}

// serveBackgroundCancel serves POST /v1/responses/{id}/cancel for a
// background response of env's; false when there is none.
func (s *RunServer) serveBackgroundCancel(w http.ResponseWriter, env Envelope, id string) bool {
	b := s.bg.get(env, id)
	if b == nil {
		return false
	}
	select {
	case <-b.done: // ended already: answered as it ended
	default:
		b.mu.Lock()
		b.cancelled = true
		b.mu.Unlock()
		b.cancel()
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set(HeaderRun, b.name)
	w.Write(mustJSON(s.bgObject(b)))
	return true
}

// backgrounder is a Runner that keeps background responses (RunServer).
type backgrounder interface {
	serveBackgroundGet(w http.ResponseWriter, r *http.Request, env Envelope, id string, stream bool, after int64) bool
	serveBackgroundCancel(w http.ResponseWriter, env Envelope, id string) bool
}

var _ backgrounder = (*RunServer)(nil)

// cancelResponse serves POST /v1/responses/{id}/cancel.
func (g *Gateway) cancelResponse(w http.ResponseWriter, r *http.Request) {
	env, sl, ok := g.admit(w, r, APIResponses)
	if !ok {
		return
	}
	defer sl.release()
	id := r.PathValue("id")
	if b, ok := g.cfg.Runner.(backgrounder); ok && b.serveBackgroundCancel(w, env, id) {
		return
	}
	WriteError(w, APIResponses, http.StatusNotFound, fmt.Sprintf("No background response with id %s.", strconv.Quote(id)))
}
