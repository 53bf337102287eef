package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/internal/trace"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/memory/memapi"
)

// CookieName is the session cookie.
const CookieName = "toolstream_console"

// CSRFHeader carries the session's CSRF token on state-changing requests.
const CSRFHeader = "X-Console-CSRF"

// bodyMax bounds a request body.
const bodyMax = 64 << 10

type handler func(w http.ResponseWriter, r *http.Request, g Grant)

func (s *Server) routes() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /signin", s.signinForm)
	mux.HandleFunc("POST /signin", s.signin)
	mux.HandleFunc("POST /signout", s.signout)
	mux.Handle("GET /assets/", http.StripPrefix("/assets", s.static))
	mux.HandleFunc("GET /{$}", s.page)
	for path, h := range map[string]handler{
		"GET /api/me":              s.me,
		"GET /api/calls":           s.calls,
		"GET /api/events":          s.events,
		"GET /api/trace":           s.trace,
		"GET /api/approvals":       s.approvals,
		"POST /api/decide":         s.decide,
		"GET /api/answers":         s.answers,
		"GET /api/memory":          s.memoryList,
		"GET /api/memory/history":  s.memoryHistory,
		"POST /api/memory/forget":  s.memoryForget,
		"POST /api/memory/correct": s.memoryCorrect,
		"GET /api/health":          s.health,
		"GET /api/runs":            s.runsList,
		"GET /api/runs/rounds":     s.runsRounds,
	} {
		mux.Handle(path, s.authed(h, strings.HasPrefix(path, "POST")))
	}
	if s.cfg.Extra != nil {
		mux.Handle("/", s.cfg.Extra)
	}
	s.mux = mux
}

// session returns the request's session, if it has a live one.
func (s *Server) session(r *http.Request) (*session, bool) {
	c, err := r.Cookie(CookieName)
	if err != nil {
		return nil, false
	}
	return s.sessions.lookup(c.Value)
}

// authed runs h for a request with a session, 401 without; a
// state-changing request also needs the CSRF token and a same-origin
// browser.
func (s *Server) authed(h handler, changes bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ss, ok := s.session(r)
		if !ok {
			httpError(w, http.StatusUnauthorized, "sign in: run `toolstream console-token` and open the URL it prints")
			return
		}
		if changes {
			if r.Header.Get(CSRFHeader) != ss.csrf || !sameOrigin(r) {
				httpError(w, http.StatusForbidden, "cross-site request refused")
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, bodyMax)
		}
		w.Header().Set("Cache-Control", "no-store")
		h(w, r, ss.grant)
	})
}

// sameOrigin reports whether a browser says the request comes from this
// console's own pages: an Origin, when sent, of this host, and a
// Sec-Fetch-Site, when sent, of same-origin.
func sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return false
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || u.Host != r.Host {
			return false
		}
	}
	return true
}

func httpError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

func securityHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
}

// page serves the console, or the sign-in page (401) without a session.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	securityHeaders(w)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if _, ok := s.session(r); !ok {
		s.signinPage(w, http.StatusUnauthorized)
		return
	}
	data, err := assets.ReadFile("assets/index.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Write(data)
}

// signinForm serves the sign-in form, and only the form: a token in the
// address is not redeemed (a link from another site would sign its visitor
// in as the link's viewer: login CSRF). console-token's URL carries the
// token after #, which the browser never sends; the form's script puts it
// in the field, and the person presses Sign in.
func (s *Server) signinForm(w http.ResponseWriter, r *http.Request) {
	s.signinPage(w, http.StatusOK)
}

func (s *Server) signinPage(w http.ResponseWriter, code int) {
	securityHeaders(w)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	data, _ := assets.ReadFile("assets/signin.html")
	w.Write(data)
}

// signin redeems a one-time token, posted by the console's own form (the
// token in the body), into a session cookie and sends the browser to the
// console. A browser must say the form is this console's (an Origin of
// this host or Sec-Fetch-Site same-origin, and neither naming another
// site): a form on another site posting its own token is refused 403, and
// the token stays unused.
func (s *Server) signin(w http.ResponseWriter, r *http.Request) {
	if !fromOwnPage(r) {
		s.log.Warn("console: cross-site sign-in refused", "origin", r.Header.Get("Origin"), "site", r.Header.Get("Sec-Fetch-Site"), "remote", r.RemoteAddr)
		securityHeaders(w)
		httpError(w, http.StatusForbidden, "sign in from the console's own page")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, bodyMax)
	id, ss, err := s.sessions.redeem(r.PostFormValue("token"))
	if err != nil {
		s.log.Warn("console: sign-in refused", "err", err, "remote", r.RemoteAddr)
		s.signinPage(w, http.StatusUnauthorized)
		return
	}
	securityHeaders(w)
	s.log.Info("console: signed in", "role", ss.grant.Role, "tenant", ss.grant.Tenant, "remote", r.RemoteAddr)
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: id, Path: "/", HttpOnly: true, Secure: r.TLS != nil,
		SameSite: http.SameSiteStrictMode, Expires: ss.expires})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// fromOwnPage reports whether a request says it comes from this console's
// own pages (sameOrigin), and says so at all: an Origin or a
// Sec-Fetch-Site, which every browser sends with a POST. A request that
// names neither (an old browser, a script) is refused: a sign-in must not
// be made by a page that cannot be told apart from another site's.
//
// A browser that sends Fetch Metadata is judged by Sec-Fetch-Site alone (no
// page can set it): the console's pages are served with Referrer-Policy
// no-referrer, under which Chromium posts its own form with Origin "null"
// and Sec-Fetch-Site same-origin (the browser test found it: every
// sign-in was refused). One without it must send an Origin of this host.
func fromOwnPage(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		return site == "same-origin"
	}
	return r.Header.Get("Origin") != "" && sameOrigin(r)
}

func (s *Server) signout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(CookieName); err == nil {
		if ss, ok := s.sessions.lookup(c.Value); ok && r.Header.Get(CSRFHeader) == ss.csrf && sameOrigin(r) {
			if err := s.sessions.end(ss); err != nil {
				s.log.Warn("console: sign-out not kept", "err", err)
				httpError(w, http.StatusInternalServerError, "sign-out could not be recorded; try again")
				return
			}
		}
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) me(w http.ResponseWriter, r *http.Request, g Grant) {
	ss, _ := s.session(r)
	writeJSON(w, map[string]any{"role": g.Role, "tenant": g.Tenant, "csrf": ss.csrf,
		"may_decide": g.MayDecideAny(), "may_write_memory": g.MayWriteMemory() && s.cfg.Forget != nil})
}

// tenantParam is the request's tenant: the grant's own for a per-tenant
// viewer, which may not name another (ok false: answered 403).
func tenantParam(w http.ResponseWriter, g Grant, tenant string, required bool) (string, bool) {
	if g.Tenant != "" {
		if tenant != "" && tenant != g.Tenant {
			httpError(w, http.StatusForbidden, "this session sees tenant "+g.Tenant+" only")
			return "", false
		}
		return g.Tenant, true
	}
	if tenant == "" && required {
		httpError(w, http.StatusBadRequest, "tenant is required")
		return "", false
	}
	if tenant != "" {
		if err := events.ValidTenant(tenant); err != nil {
			httpError(w, http.StatusBadRequest, err.Error())
			return "", false
		}
	}
	return tenant, true
}

func (s *Server) calls(w http.ResponseWriter, r *http.Request, g Grant) {
	q := r.URL.Query()
	tenant, ok := tenantParam(w, g, q.Get("tenant"), false)
	if !ok {
		return
	}
	flt := CallFilter{Tenant: tenant, Tool: q.Get("tool"), State: q.Get("state"), Limit: 500}
	if v := q.Get("since"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			httpError(w, http.StatusBadRequest, "since: "+err.Error())
			return
		}
		flt.Since = s.cfg.Now().Add(-d)
	}
	if n, err := strconv.Atoi(q.Get("limit")); err == nil && n > 0 && n < flt.Limit {
		flt.Limit = n
	}
	list, counts := s.feed.list(g, flt)
	if list == nil {
		list = []Call{}
	}
	writeJSON(w, map[string]any{"calls": list, "counts": counts})
}

// events streams the changes the grant sees as server-sent events.
func (s *Server) events(w http.ResponseWriter, r *http.Request, g Grant) {
	fl, ok := w.(http.Flusher)
	if !ok {
		httpError(w, http.StatusInternalServerError, "streaming unsupported")
		return
	}
	ch := s.feed.subscribe(g)
	defer s.feed.unsubscribe(ch)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 2000\n: connected\n\n")
	fl.Flush()
	keepalive := time.NewTicker(25 * time.Second)
	defer keepalive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-keepalive.C:
			fmt.Fprint(w, ": keepalive\n\n")
			fl.Flush()
		case u, open := <-ch:
			if !open {
				return // too slow: the page reconnects and reloads
			}
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", u.kind, u.data)
			fl.Flush()
		}
	}
}

func (s *Server) trace(w http.ResponseWriter, r *http.Request, g Grant) {
	q := r.URL.Query()
	tenant, ok := tenantParam(w, g, q.Get("tenant"), true)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	tr, err := trace.Call(ctx, s.cfg.Bus, tenant, q.Get("id"), q.Get("response"))
	switch {
	case errors.Is(err, trace.ErrNotFound):
		httpError(w, http.StatusNotFound, err.Error())
		return
	case errors.Is(err, trace.ErrAmbiguous):
		httpError(w, http.StatusConflict, err.Error())
		return
	case err != nil:
		httpError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, tr)
}

// Approval is a call waiting for a person, with its tool's side-effect
// level.
type Approval struct {
	Call
	SideEffect string `json:"side_effect,omitempty"`
	MayDecide  bool   `json:"may_decide"`
}

func (s *Server) approvals(w http.ResponseWriter, r *http.Request, g Grant) {
	tenant, ok := tenantParam(w, g, r.URL.Query().Get("tenant"), false)
	if !ok {
		return
	}
	list, _ := s.feed.list(g, CallFilter{Tenant: tenant, State: StateAwaiting})
	out := make([]Approval, 0, len(list))
	for _, c := range list {
		a := Approval{Call: c, MayDecide: g.MayDecide(c.Tenant, c.Key)}
		if s.cfg.Registry != nil {
			if rg := s.cfg.Registry(); rg != nil {
				if t, ok := rg.Lookup(c.Tool); ok {
					a.SideEffect = t.SideEffect
				}
			}
		}
		out = append(out, a)
	}
	writeJSON(w, map[string]any{"approvals": out})
}

func (s *Server) decide(w http.ResponseWriter, r *http.Request, g Grant) {
	var req struct {
		Tenant   string `json:"tenant"`
		Key      string `json:"key"`
		Decision string `json:"decision"` // approve or deny
		Reason   string `json:"reason"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		httpError(w, http.StatusBadRequest, "request: "+err.Error())
		return
	}
	if !g.Sees(req.Tenant) {
		httpError(w, http.StatusForbidden, "this session sees tenant "+g.Tenant+" only")
		return
	}
	if !g.MayDecide(req.Tenant, req.Key) {
		httpError(w, http.StatusForbidden, "role "+string(g.Role)+" may not decide approvals")
		return
	}
	by := "console:" + string(g.Role)
	if g.Tenant != "" {
		by += ":" + g.Tenant
	}
	var err error
	switch req.Decision {
	case "approve":
		_, err = s.client.Approve(r.Context(), req.Tenant, req.Key, client.By(by), client.Because(req.Reason))
	case "deny":
		if strings.TrimSpace(req.Reason) == "" {
			httpError(w, http.StatusBadRequest, "deny needs a reason")
			return
		}
		_, err = s.client.Deny(r.Context(), req.Tenant, req.Key, req.Reason, client.By(by))
	default:
		httpError(w, http.StatusBadRequest, "decision: want approve or deny")
		return
	}
	if err != nil {
		httpError(w, clientStatus(err, http.StatusInternalServerError), err.Error())
		return
	}
	s.log.Info("console: decision", "decision", req.Decision, "tenant", req.Tenant, "key", req.Key, "by", by)
	writeJSON(w, map[string]string{"decided": req.Decision, "key": req.Key})
}

func (s *Server) answers(w http.ResponseWriter, r *http.Request, g Grant) {
	tenant, ok := tenantParam(w, g, r.URL.Query().Get("tenant"), false)
	if !ok {
		return
	}
	list := s.feed.answerList(g, tenant, 200)
	if list == nil {
		list = []Answer{}
	}
	writeJSON(w, map[string]any{"answers": list})
}

// clientStatus is the HTTP status of an error of the Go client: the
// sentinel it wraps, else other (a lost connection, a timeout).
func clientStatus(err error, other int) int {
	var se *client.ServiceError
	switch {
	case errors.Is(err, client.ErrBadInput):
		return http.StatusBadRequest
	case errors.Is(err, client.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, client.ErrAlreadyDecided), errors.Is(err, client.ErrStaleVersion), errors.Is(err, client.ErrConflict):
		return http.StatusConflict
	case errors.Is(err, client.ErrPermissionDenied):
		return http.StatusForbidden
	case errors.Is(err, client.ErrUnavailable):
		return http.StatusServiceUnavailable
	case errors.As(err, &se):
		return http.StatusBadRequest // the service refused it with another code
	}
	return other
}

// memoryRead lists a user's records ("list", with history the inactive
// ones too) or a record's versions ("history") through the Go client.
func (s *Server) memoryRead(w http.ResponseWriter, r *http.Request, g Grant, verb string) {
	q := r.URL.Query()
	tenant, ok := tenantParam(w, g, q.Get("tenant"), true)
	if !ok {
		return
	}
	user, id := q.Get("user"), q.Get("id")
	if user == "" {
		httpError(w, http.StatusBadRequest, "user is required")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
	defer cancel()
	var recs []memapi.Record
	var err error
	if verb == "history" {
		recs, err = s.client.RecordHistory(ctx, tenant, user, id)
	} else {
		recs, err = s.client.Records(ctx, tenant, user, q.Get("history") != "")
	}
	if err != nil {
		httpError(w, clientStatus(err, http.StatusServiceUnavailable), err.Error())
		return
	}
	if recs == nil {
		recs = []memapi.Record{}
	}
	writeJSON(w, map[string]any{"records": recs})
}

func (s *Server) memoryList(w http.ResponseWriter, r *http.Request, g Grant) {
	s.memoryRead(w, r, g, "list")
}

func (s *Server) memoryHistory(w http.ResponseWriter, r *http.Request, g Grant) {
	s.memoryRead(w, r, g, "history")
}

// memoryWrite reads a memory write's request and checks the grant.
func (s *Server) memoryWrite(w http.ResponseWriter, r *http.Request, g Grant) (*memory.Op, bool) {
	var op memory.Op
	if err := json.NewDecoder(r.Body).Decode(&op); err != nil {
		httpError(w, http.StatusBadRequest, "request: "+err.Error())
		return nil, false
	}
	if !g.Sees(op.Tenant) {
		httpError(w, http.StatusForbidden, "this session sees tenant "+g.Tenant+" only")
		return nil, false
	}
	if !g.MayWriteMemory() {
		httpError(w, http.StatusForbidden, "role "+string(g.Role)+" may not write memory")
		return nil, false
	}
	if err := events.ValidTenant(op.Tenant); err != nil || op.User == "" || op.ID == "" {
		httpError(w, http.StatusBadRequest, "tenant, user and id are required")
		return nil, false
	}
	return &op, true
}

func (s *Server) memoryForget(w http.ResponseWriter, r *http.Request, g Grant) {
	op, ok := s.memoryWrite(w, r, g)
	if !ok {
		return
	}
	if s.cfg.Forget == nil {
		httpError(w, http.StatusNotImplemented, "this console cannot forget (no key store)")
		return
	}
	out, err := s.cfg.Forget(r.Context(), op.Tenant, op.User, op.ID)
	if err != nil {
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.log.Info("console: memory forgotten", "tenant", op.Tenant, "id", op.ID, "by", g.Role)
	writeJSON(w, out)
}

func (s *Server) memoryCorrect(w http.ResponseWriter, r *http.Request, g Grant) {
	op, ok := s.memoryWrite(w, r, g)
	if !ok {
		return
	}
	if strings.TrimSpace(op.Text) == "" {
		httpError(w, http.StatusBadRequest, "the corrected text is required")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
	defer cancel()
	rep, err := s.client.Correct(ctx, op.Tenant, op.User, op.ExpectedVersion, client.Observation{ID: op.ID, Kind: op.Kind,
		Subject: op.Subject, Attribute: op.Attribute, Value: op.Value, Polarity: op.Polarity, Text: op.Text})
	if err != nil {
		httpError(w, clientStatus(err, http.StatusServiceUnavailable), err.Error())
		return
	}
	writeJSON(w, rep)
}

// runsAsk asks the runs service (through the Go client) for tenant's
// runs ("list") or a run's rounds ("rounds") and answers with them.
func (s *Server) runsAsk(w http.ResponseWriter, r *http.Request, g Grant, verb string) {
	q := r.URL.Query()
	tenant, ok := tenantParam(w, g, q.Get("tenant"), true)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
	defer cancel()
	var out any
	var err error
	switch verb {
	case "list":
		var rs []runs.Run
		rs, err = s.client.Runs(ctx, tenant)
		out = orEmpty(rs)
	default:
		var rs []runs.Round
		rs, err = s.client.Rounds(ctx, tenant, q.Get("run"))
		out = orEmpty(rs)
	}
	var refused *client.ServiceError
	switch {
	case errors.As(err, &refused):
		httpError(w, http.StatusBadRequest, "runs "+verb+": "+refused.Message)
		return
	case err != nil:
		httpError(w, http.StatusServiceUnavailable, "runs service: "+err.Error())
		return
	}
	writeJSON(w, map[string]any{verb: out})
}

// orEmpty is s, or an empty list for none (JSON [] rather than null).
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (s *Server) runsList(w http.ResponseWriter, r *http.Request, g Grant) {
	s.runsAsk(w, r, g, "list")
}

func (s *Server) runsRounds(w http.ResponseWriter, r *http.Request, g Grant) {
	s.runsAsk(w, r, g, "rounds")
}
