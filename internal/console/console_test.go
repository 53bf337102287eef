package console_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/console"
	"github.com/toolstream/toolstream/internal/logread"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

// harness is a console on a real embedded log.
type harness struct {
	t   *testing.T
	b   *bus.Bus
	srv *httptest.Server
	ctx context.Context
}

func start(t *testing.T) *harness {
	t.Helper()
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	c, err := console.New(console.Config{Bus: b, Key: testKey})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	srv := httptest.NewServer(c.Handler())
	t.Cleanup(srv.Close)
	return &harness{t: t, b: b, srv: srv, ctx: ctx}
}

// publish writes a call of tenant (completed, waiting for approval) and a
// verified answer citing it.
func (h *harness) publish(tenant, call string) string {
	h.t.Helper()
	key := events.IdempotencyKey(tenant, "", "resp-"+call, call)
	pub := func(subj string, err error, ev *events.Event) {
		h.t.Helper()
		if err != nil {
			h.t.Fatal(err)
		}
		ev.Tenant, ev.Response, ev.CallID, ev.At = tenant, "resp-"+call, call, time.Now().UnixNano()
		if _, err := h.b.Publish(h.ctx, subj, ev); err != nil {
			h.t.Fatal(err)
		}
	}
	subj, err := events.CallSubject(tenant, "orders.refund")
	pub(subj, err, &events.Event{ID: "done:" + key, Item: "item-" + call, Body: &events.CallCompleted{Name: "orders.refund", Arguments: []byte(`{"order_id":"O-7"}`)}})
	subj, err = events.ExecSubject(tenant, key)
	pub(subj, err, &events.Event{ID: "ask:" + key, Body: &events.ApprovalRequested{Name: "orders.refund", Arguments: []byte(`{"order_id":"O-7"}`), Key: key}})
	subj, err = events.AnswerSubject(tenant, "resp-"+call)
	pub(subj, err, &events.Event{ID: "ans:" + key, Body: &events.AnswerSubmitted{Text: "退款 59.9 元已提交"}})
	pub(subj, err, &events.Event{ID: "ver:" + key, Body: &events.AnswerVerified{Faithfulness: 1, Policy: "annotate",
		Claims: []events.ClaimVerdict{{Text: "59.9", Start: 3, End: 7, Verdict: events.VerdictSupported, Evidence: []events.EvidenceRef{{CallID: call, Pointer: "/amount", Value: "59.9"}}}}}})
	return key
}

// client signs in with a token of g and returns a client holding the
// session cookie and the session's CSRF token.
func (h *harness) client(g console.Grant) (*http.Client, string) {
	h.t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	tok, err := console.Mint(testKey, g, time.Now().Add(time.Minute))
	if err != nil {
		h.t.Fatal(err)
	}
	res, err := postSignin(c, h.srv.URL, tok)
	if err != nil {
		h.t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/" {
		h.t.Fatalf("sign-in: %s at %s", res.Status, res.Request.URL)
	}
	var me struct{ CSRF string }
	h.getJSON(c, "/api/me", http.StatusOK, &me)
	return c, me.CSRF
}

func (h *harness) getJSON(c *http.Client, path string, want int, v any) {
	h.t.Helper()
	res, err := c.Get(h.srv.URL + path)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		h.t.Fatalf("GET %s: %s, want %d: %s", path, res.Status, want, body)
	}
	if v != nil {
		if err := json.Unmarshal(body, v); err != nil {
			h.t.Fatalf("GET %s: %v: %s", path, err, body)
		}
	}
}

func (h *harness) post(c *http.Client, path, csrf, origin string, body any) (int, string) {
	h.t.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, h.srv.URL+path, strings.NewReader(string(data)))
	req.Header.Set("Content-Type", "application/json")
	if csrf != "" {
		req.Header.Set(console.CSRFHeader, csrf)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	res, err := c.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(out)
}

// calls waits until the console lists n calls to c.
func (h *harness) calls(c *http.Client, query string, n int) []console.Call {
	h.t.Helper()
	for {
		var out struct{ Calls []console.Call }
		h.getJSON(c, "/api/calls"+query, http.StatusOK, &out)
		if len(out.Calls) >= n {
			return out.Calls
		}
		select {
		case <-h.ctx.Done():
			h.t.Fatalf("%d calls listed, want %d", len(out.Calls), n)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestWithoutASessionEverythingIs401: every page and API answers 401 (the
// page the sign-in page) until a token is redeemed; a token works once, and
// one expired, forged or of another key never.
func TestWithoutASessionEverythingIs401(t *testing.T) {
	h := start(t)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	for _, p := range []string{"/", "/api/me", "/api/calls", "/api/events", "/api/trace?tenant=a&id=x", "/api/approvals", "/api/answers", "/api/memory?tenant=a&user=u", "/api/health"} {
		res, err := c.Get(h.srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without a session: %s", p, res.Status)
		}
		if p == "/" && !strings.Contains(string(body), "console-token") {
			t.Errorf("GET / without a session is not the sign-in page: %s", body)
		}
	}
	if code, _ := h.post(c, "/api/decide", "", "", map[string]string{}); code != http.StatusUnauthorized {
		t.Errorf("POST /api/decide without a session: %d", code)
	}
	good, _ := console.Mint(testKey, console.Grant{Role: auth.RoleOperator}, time.Now().Add(time.Minute))
	expired, _ := console.Mint(testKey, console.Grant{Role: auth.RoleOperator}, time.Now().Add(-time.Second))
	other, _ := console.Mint([]byte("another key of thirty-two bytes!"), console.Grant{Role: auth.RoleOperator}, time.Now().Add(time.Minute))
	p, s, _ := strings.Cut(good, ".")
	payload, _ := base64.RawURLEncoding.DecodeString(p)
	changed := strings.Replace(string(payload), `"operator"`, `"reader"`, 1)
	if changed == string(payload) {
		t.Fatalf("the token's payload %s does not name the role", payload)
	}
	forged := base64.RawURLEncoding.EncodeToString([]byte(changed)) + "." + s // the payload changed, the signature kept
	for _, tc := range []struct {
		name, token string
		want        int
	}{
		{"expired", expired, http.StatusUnauthorized},
		{"another key", other, http.StatusUnauthorized},
		{"forged", forged, http.StatusUnauthorized},
		{"garbage", "x.y", http.StatusUnauthorized},
		{"good", good, http.StatusOK},
		{"good again", good, http.StatusUnauthorized},
	} {
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar}
		res, err := postSignin(c, h.srv.URL, tc.token)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tc.want {
			t.Errorf("sign-in with the %s token: %s, want %d", tc.name, res.Status, tc.want)
		}
	}
	if _, err := console.Mint(testKey, console.Grant{Role: auth.RoleAdmin}, time.Now().Add(time.Minute)); !errors.Is(err, console.ErrInvalidGrant) {
		t.Errorf("a token for the admin role: %v, want ErrInvalidGrant", err)
	}
}

// TestStateChangesNeedCSRFAndSameOrigin: a POST with the session cookie
// but without the session's CSRF token, or from another origin, is refused
// before it does anything.
func TestStateChangesNeedCSRFAndSameOrigin(t *testing.T) {
	h := start(t)
	key := h.publish("acme", "c1")
	c, csrf := h.client(console.Grant{Role: auth.RoleOperator})
	req := map[string]string{"tenant": "acme", "key": key, "decision": "approve"}
	for _, tc := range []struct {
		name, csrf, origin string
		want               int
	}{
		{"no token", "", "", http.StatusForbidden},
		{"wrong token", "nope", "", http.StatusForbidden},
		{"another origin", csrf, "http://evil.example", http.StatusForbidden},
		{"same origin", csrf, h.srv.URL, http.StatusOK},
		{"decided already", csrf, h.srv.URL, http.StatusConflict},
	} {
		if code, body := h.post(c, "/api/decide", tc.csrf, tc.origin, req); code != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, code, body, tc.want)
		}
	}
	// A denial needs a reason; with one it is the decision, once.
	other := h.publish("acme", "c2")
	deny := map[string]string{"tenant": "acme", "key": other, "decision": "deny"}
	if code, body := h.post(c, "/api/decide", csrf, h.srv.URL, deny); code != http.StatusBadRequest {
		t.Errorf("a denial without a reason: %d %s, want 400", code, body)
	}
	deny["reason"] = "not this order"
	if code, body := h.post(c, "/api/decide", csrf, h.srv.URL, deny); code != http.StatusOK {
		t.Errorf("a denial with a reason: %d %s", code, body)
	}
	if code, body := h.post(c, "/api/decide", csrf, h.srv.URL, map[string]string{"tenant": "acme", "key": "beta/-/r/c", "decision": "approve"}); code != http.StatusBadRequest {
		t.Errorf("a key of another tenant: %d %s, want 400", code, body)
	}
	// The decision is an event in the log like the CLI's, saying who.
	subj, _ := events.ApprovalSubject("acme", key)
	var got []*events.Event
	err := h.b.Read(h.ctx, logread.Config{Stream: events.StreamCalls, Filter: subj}, func(batch []*logread.Msg) error {
		for _, m := range batch {
			ev, err := events.DecodeAt(m.Subject, m.Data)
			if err != nil {
				return err
			}
			got = append(got, ev)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d decisions in the log, want 1", len(got))
	}
	if g, ok := events.As[*events.ApprovalGranted](got[0]); !ok || g.By != "console:operator" {
		t.Errorf("the decision in the log: %+v", got[0].Body)
	}
}

// TestATenantViewerNeverSeesAnotherTenant: a viewer of acme lists acme's
// calls, approvals and answers only, receives acme's live updates only, is
// refused (403) whatever names beta, and a reader may not decide.
func TestATenantViewerNeverSeesAnotherTenant(t *testing.T) {
	h := start(t)
	h.publish("acme", "a1")
	betaKey := h.publish("beta", "b1")
	op, _ := h.client(console.Grant{Role: auth.RoleOperator})
	if got := h.calls(op, "", 2); len(got) != 2 {
		t.Fatalf("the operator lists %d calls, want 2", len(got))
	}
	viewer, csrf := h.client(console.Grant{Role: auth.RoleOperator, Tenant: "acme"})

	// Live: beta's call is published before acme's, so had it been sent it
	// would come first.
	res, err := viewer.Get(h.srv.URL + "/api/events")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	lines := bufio.NewScanner(res.Body)
	lines.Scan() // the stream is open once its first line arrives
	h.publish("beta", "b2")
	h.publish("acme", "a2")
	var first string
	for lines.Scan() {
		if d, ok := strings.CutPrefix(lines.Text(), "data: "); ok {
			first = d
			break
		}
	}
	var live console.Call
	if err := json.Unmarshal([]byte(first), &live); err != nil || live.Tenant != "acme" {
		t.Errorf("the viewer's first live update: %s (%v), want a call of acme", first, err)
	}

	for _, c := range h.calls(viewer, "", 2) {
		if c.Tenant != "acme" {
			t.Errorf("the viewer of acme lists a call of %s", c.Tenant)
		}
	}
	var ap struct{ Approvals []console.Approval }
	h.getJSON(viewer, "/api/approvals", http.StatusOK, &ap)
	var an struct{ Answers []console.Answer }
	h.getJSON(viewer, "/api/answers", http.StatusOK, &an)
	if len(ap.Approvals) == 0 || len(an.Answers) == 0 {
		t.Errorf("the viewer sees %d approvals and %d answers of its own tenant, want some", len(ap.Approvals), len(an.Answers))
	}
	for _, a := range ap.Approvals {
		if a.Tenant != "acme" {
			t.Errorf("the viewer of acme lists an approval of %s", a.Tenant)
		}
	}
	for _, a := range an.Answers {
		if a.Tenant != "acme" {
			t.Errorf("the viewer of acme lists an answer of %s", a.Tenant)
		}
	}
	for _, p := range []string{"/api/calls?tenant=beta", "/api/approvals?tenant=beta", "/api/answers?tenant=beta",
		"/api/trace?tenant=beta&id=b1", "/api/memory?tenant=beta&user=u", "/api/memory/history?tenant=beta&user=u&id=x",
		"/api/runs?tenant=beta", "/api/runs/rounds?tenant=beta&run=r"} {
		h.getJSON(viewer, p, http.StatusForbidden, nil)
	}
	for _, p := range []string{"/api/decide", "/api/memory/forget", "/api/memory/correct"} {
		body := map[string]any{"tenant": "beta", "key": betaKey, "decision": "approve", "user": "u", "id": "x", "text": "t"}
		if code, out := h.post(viewer, p, csrf, "", body); code != http.StatusForbidden {
			t.Errorf("the viewer of acme POSTs %s for beta: %d %s", p, code, out)
		}
	}
	reader, rcsrf := h.client(console.Grant{Role: auth.RoleReader})
	if code, out := h.post(reader, "/api/decide", rcsrf, "", map[string]string{"tenant": "beta", "key": betaKey, "decision": "approve"}); code != http.StatusForbidden {
		t.Errorf("a reader decides: %d %s", code, out)
	}
	var me struct {
		MayDecide bool `json:"may_decide"`
	}
	h.getJSON(reader, "/api/me", http.StatusOK, &me)
	if me.MayDecide {
		t.Error("a reader's page offers decisions")
	}
}

// TestTokensNeedTheKeyFile: LoadKey makes an owner-only key once and
// reads it back; a key others can read is refused.
func TestTokensNeedTheKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "auth", "console.key")
	if _, err := console.LoadKey(path, false); !errors.Is(err, console.ErrNoKey) {
		t.Fatalf("no key file: %v, want ErrNoKey", err)
	}
	k1, err := console.LoadKey(path, true)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := console.LoadKey(path, false)
	if err != nil || string(k1) != string(k2) || len(k1) != console.KeySize {
		t.Fatalf("read back %x (%v), made %x", k2, err, k1)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := console.LoadKey(path, false); !errors.Is(err, auth.ErrInsecure) {
		t.Errorf("a key others can read: %v, want ErrInsecure", err)
	}
}
