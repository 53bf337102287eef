package mcp_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/mcp"
)

// rpc posts one JSON-RPC request to the endpoint as a raw HTTP client
// (2025-11-25, no session) with header Authorization: auth ("" none).
func rpc(t *testing.T, url, auth, body string, hdr ...string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// modelEvents counts the model events of tenant in the log.
func modelEvents(t *testing.T, ts *testServer, tenant string) uint64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := ts.p.B.JS.Stream(ctx, events.StreamModel)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx, jetstream.WithSubjectFilter("ts.model."+tenant+".>"))
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, c := range info.State.Subjects {
		n += c
	}
	return n
}

const callWeather = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Paris"}}}`

// TestAttackWithoutAKey: a raw HTTP client without a key, with a key not
// in the file, with a malformed Authorization or another scheme, gets 401
// with WWW-Authenticate: Bearer, for every method, before the SDK reads
// the body. The victim, tenant acme: nothing was written to the log
// (no model event of any tenant), weather never ran.
func TestAttackWithoutAKey(t *testing.T) {
	ts := start(t, "")
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	for _, auth := range []string{"", "Bearer ", "Bearer wrong-key", "Bearer " + keyA + "x", "Basic " + keyA, "Bearer " + keyA + " " + keyA} {
		for _, body := range []string{list, callWeather} {
			code, h, got := rpc(t, ts.url, auth, body)
			if code != http.StatusUnauthorized || !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("Authorization %q: %d %q (WWW-Authenticate %q), want 401", auth, code, got, h.Get("WWW-Authenticate"))
			}
			if strings.Contains(got, "weather") {
				t.Errorf("Authorization %q: the answer names a tool: %s", auth, got)
			}
		}
	}
	if n := modelEvents(t, ts, "acme") + modelEvents(t, ts, "globex"); n != 0 || ts.p.Invoked["weather"].Load() != 0 {
		t.Errorf("after the attempts: %d model events, weather ran %d times; want none", n, ts.p.Invoked["weather"].Load())
	}
}

// TestAttackOtherTenantsTools: globex's key (tenant globex) lists only
// globex's tool and calling acme's weather is JSON-RPC -32602, unknown
// tool, as for a name nobody has; a Toolstream-User header does not move
// it to another tenant. The victim, acme: its tools are never named to
// globex, weather never ran, no model event was written for either
// tenant. And within acme, a client's call key is its user's: the same
// key from another user of acme is another call (weather runs again).
func TestAttackOtherTenantsTools(t *testing.T) {
	ts := start(t, "")
	_, _, got := rpc(t, ts.url, "Bearer "+keyB, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)
	if !strings.Contains(got, `"payroll"`) || strings.Contains(got, "weather") || strings.Contains(got, "refund") {
		t.Errorf("globex's tools/list: %s, want payroll only", got)
	}
	for _, body := range []string{callWeather,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather__forecast","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"refund","arguments":{"order_id":"A1"}}}`} {
		for _, hdr := range [][]string{nil, {"Toolstream-User", "alice"}, {"Toolstream-Tenant", "acme"}} {
			_, _, got := rpc(t, ts.url, "Bearer "+keyB, body, hdr...)
			if !strings.Contains(got, "-32602") || !strings.Contains(got, "unknown tool") {
				t.Errorf("globex calls %s (%v): %s, want -32602 unknown tool", body, hdr, got)
			}
		}
	}
	if n := modelEvents(t, ts, "acme") + modelEvents(t, ts, "globex"); n != 0 || ts.p.Invoked["weather"].Load() != 0 || ts.p.Invoked["refund"].Load() != 0 {
		t.Errorf("after globex's attempts: %d model events, weather ran %d times, refund %d; want none",
			n, ts.p.Invoked["weather"].Load(), ts.p.Invoked["refund"].Load())
	}

	withKey := `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Paris"},"_meta":{"` + mcp.MetaCallKey + `":"k1"}}}`
	for i, who := range []string{"alice", "alice", "bob"} {
		key := keyA // bound to alice
		if who == "bob" {
			key = keyBob
		}
		_, _, got := rpc(t, ts.url, "Bearer "+key, withKey, "Toolstream-User", who)
		if !strings.Contains(got, "temperature_c") {
			t.Fatalf("%s's call with key k1: %s", who, got)
		}
		if want := []int32{1, 1, 2}[i]; ts.p.Invoked["weather"].Load() != want {
			t.Errorf("after %s's call %d with key k1: weather ran %d times, want %d", who, i+1, ts.p.Invoked["weather"].Load(), want)
		}
	}
}

// TestBehindAProxy: a reverse proxy on the same host (a loopback arrival
// whose Host is the public name) is served with a key, and still refused
// without one; a browser page's preflight (OPTIONS) gets no CORS grant, so
// a page cannot send a key cross-origin.
func TestBehindAProxy(t *testing.T) {
	ts := start(t, "")
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	if code, _, got := rpc(t, ts.url, "Bearer "+keyA, list, "Host", "mcp.example.com"); code != http.StatusOK || !strings.Contains(got, `"refund"`) {
		t.Errorf("through a proxy with a key: %d %.300s", code, got)
	}
	if code, _, _ := rpc(t, ts.url, "", list, "Host", "mcp.example.com"); code != http.StatusUnauthorized {
		t.Errorf("through a proxy without a key: %d, want 401", code)
	}
	req, _ := http.NewRequest(http.MethodOptions, ts.url, nil)
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "" || resp.Header.Get("Access-Control-Allow-Headers") != "" {
		t.Errorf("a preflight from another origin was granted: %v", resp.Header)
	}
}
