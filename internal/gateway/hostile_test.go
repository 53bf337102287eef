package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
)

// The attacks of docs/security.md on the gateway, through a real
// gateway (an embedded server, the fake upstream) with the client they came
// from: raw HTTP over a connection of the test's own.

const (
	clientKeyAlice = "ts-client-key-alice" // tenant acme, bound to user alice
	clientKeyBob   = "ts-client-key-bob"   // tenant acme, bound to user bob
)

func withAliceAndBob(c *Config) {
	c.File.Keys = append(c.File.Keys, Key{SHA256: HashKey(clientKeyAlice), Tenant: "acme", User: "alice"},
		Key{SHA256: HashKey(clientKeyBob), Tenant: "acme", User: "bob"})
}

// rawPost sends a POST on a connection of its own and returns it: the
// test reads from it, or hangs up by closing it.
func rawPost(t *testing.T, tg *testGateway, path, key, body string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", tg.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer %s\r\nx-api-key: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		path, key, key, len(body), body)
	return c
}

// handlerEnds makes tg report each POST handler's return on the channel.
func handlerEnds(tg *testGateway) <-chan string {
	ended := make(chan string, 64)
	tg.wrap(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r)
			if r.Method == http.MethodPost {
				ended <- r.URL.Path
			}
		})
	})
	return ended
}

func waitEnded(t *testing.T, ended <-chan string, what string) {
	t.Helper()
	select {
	case <-ended:
	case <-time.After(60 * time.Second):
		t.Fatalf("the handler did not return after %s", what)
	}
}

// normalStream asks for one whole stream and checks it came whole.
func normalStream(t *testing.T, tg *testGateway) {
	t.Helper()
	c := passthroughCases[2] // Anthropic Messages
	resp := tg.request(t, "POST", c.path, streamBody(c.model), map[string]string{"x-api-key": clientKey})
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("a normal request after the hang-up: %d %s", resp.StatusCode, b)
	}
	got, _ := readSSE(t, resp.Body, 0)
	if want := frames(t, c.api, c.model); len(got) != len(want) {
		t.Fatalf("a normal request after the hang-up got %d events, want %d", len(got), len(want))
	}
}

// TestClientGoneAtAnyStageServeLives: a streaming client that hangs up
// before the upstream sent its headers, or mid-stream, ends its request
// and nothing else: the upstream read goes on and is logged whole (the
// stream read back from the log has every frame), no panic is recovered
// (nothing wrote to the finished response: before the fix the upstream
// read's goroutine wrote its headers and first event to the
// ResponseWriter of a handler that had returned, and serve crashed), and
// the same gateway serves the next request whole. Run it with -race.
func TestClientGoneAtAnyStageServeLives(t *testing.T) {
	var mu sync.Mutex
	holds := map[string]chan struct{}{} // by model; guarded by mu
	hold := func(model string) chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		if holds[model] == nil {
			holds[model] = make(chan struct{})
		}
		return holds[model]
	}
	tg := startGateway(t, func(c *Config) { c.File.Heartbeat = 5 * time.Millisecond })
	tg.fake.headerGate = func(model string) {
		if model == "weather-responses" {
			<-hold(model)
		}
	}
	tg.fake.gate = func(model string, pos int) {
		if model == "weather-chat" && pos == 5 {
			<-hold(model)
		}
	}
	t.Cleanup(func() { // a failed stage must not leave the fake blocked
		mu.Lock()
		defer mu.Unlock()
		for _, c := range holds {
			select {
			case <-c:
			default:
				close(c)
			}
		}
	})
	ended := handlerEnds(tg)
	panicsBefore := Panics()
	requests := func() int {
		tg.fake.mu.Lock()
		defer tg.fake.mu.Unlock()
		return len(tg.fake.requests)
	}
	for _, c := range []struct {
		name  string
		api   int                                           // of passthroughCases
		leave func(t *testing.T, conn net.Conn, before int) // before: the upstream's requests before this one
	}{
		{"before the upstream's headers", 0, func(t *testing.T, conn net.Conn, before int) {
			waitFor(t, "the upstream to get the request", func() bool { return requests() > before })
		}},
		{"mid-stream", 1, func(t *testing.T, conn net.Conn, before int) {
			br := bufio.NewReader(conn)
			for {
				line, err := br.ReadString('\n')
				if err != nil {
					t.Fatalf("the stream ended before its third event: %v", err)
				}
				if strings.TrimSpace(line) == "id: 2" {
					return
				}
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			pc := passthroughCases[c.api]
			before := requests()
			conn := rawPost(t, tg, pc.path, clientKey, streamBody(pc.model))
			c.leave(t, conn, before)
			conn.Close()
			waitEnded(t, ended, "the client hung up")
			close(hold(pc.model)) // the upstream answers (on) now, to a client gone
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if err := tg.Wait(ctx); err != nil {
				t.Fatalf("the upstream read did not end: %v", err)
			}
			if n := Panics() - panicsBefore; n != 0 {
				t.Fatalf("%d panics recovered: something wrote to a finished response", n)
			}
			if got, want := resumeAll(t, tg, pc.api, pc.stream, ""), frames(t, pc.api, pc.model); len(got) != len(want) {
				t.Errorf("the log holds %d frames of the stream, want %d", len(got), len(want))
			}
			// The request's prompt was kept all the same, first on the subject.
			if msgs := streamMessages(t, tg, pc.api, "", pc.stream); len(msgs) == 0 {
				t.Errorf("nothing kept on the stream's subject")
			} else if ev, err := events.DecodeWith(msgs[0].Data, tg.bus.Keys); err != nil {
				t.Errorf("the subject's first message: %v", err)
			} else if _, ok := events.As[*events.StreamPrompt](ev); !ok {
				t.Errorf("the subject's first message is %s, want the request's prompt", ev.Kind)
			}
			normalStream(t, tg)
		})
	}
}

// waitFor polls ok until it holds or a minute passed.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestHandlerPanicIsRecovered: a panic in one request (a bug) is
// recovered at the handler's boundary — logged, counted, answered with a
// 500 in the provider's shape — and the gateway serves the next request.
func TestHandlerPanicIsRecovered(t *testing.T) {
	tg := startGateway(t, func(c *Config) {
		c.Runner = runnerFunc(func(w http.ResponseWriter, r *http.Request, req *Request) { panic("a bug in run mode") })
	})
	before := Panics()
	resp := tg.request(t, "POST", "/v1/messages", streamBody("weather-messages"), map[string]string{"x-api-key": clientKey, HeaderMode: "run"})
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var e struct {
		Type  string                `json:"type"`
		Error struct{ Type string } `json:"error"`
	}
	json.Unmarshal(b, &e)
	if resp.StatusCode != http.StatusInternalServerError || e.Type != "error" || e.Error.Type != "api_error" {
		t.Errorf("the panicking request got %d %s", resp.StatusCode, b)
	}
	if n := Panics() - before; n != 1 {
		t.Errorf("%d panics counted, want 1", n)
	}
	normalStream(t, tg)
}

// TestKeyRequestsAreBounded: one key holds at most KeyRequestsMax
// requests under way, counting an upstream read whose client went away
// until it ends; past it the key gets 429 in its API's shape with
// Retry-After, while another tenant's key is served; once they end the key
// is served again.
func TestKeyRequestsAreBounded(t *testing.T) {
	release := make(chan struct{})
	tg := startGateway(t, func(c *Config) { c.File.Limits.KeyRequestsMax = 2 })
	tg.fake.gate = func(model string, pos int) {
		if model == "weather-responses" && pos == 1 {
			<-release
		}
	}
	c := passthroughCases[0]
	first := tg.request(t, "POST", c.path, streamBody(c.model), bearer(clientKey))
	second := tg.request(t, "POST", c.path, streamBody(c.model), bearer(clientKey))
	defer second.Body.Close()
	first.Body.Close() // gone: its upstream read goes on and keeps its place
	refused := func(path, body string, h map[string]string) {
		t.Helper()
		resp := tg.request(t, "POST", path, body, h)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e struct {
			Type  string `json:"type"`
			Error struct {
				Type string
				Code string
			} `json:"error"`
		}
		json.Unmarshal(b, &e)
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || e.Error.Type != "rate_limit_error" {
			t.Errorf("%s over the key's bound: %d %v %s", path, resp.StatusCode, resp.Header, b)
		}
		if strings.HasSuffix(path, "/messages") != (e.Type == "error") {
			t.Errorf("%s: not the provider's shape: %s", path, b)
		}
	}
	refused("/v1/chat/completions", `{"model":"weather-chat"}`, bearer(clientKey))
	refused("/v1/messages", `{"model":"weather-messages","max_tokens":10}`, map[string]string{"x-api-key": clientKey})
	other := tg.request(t, "POST", "/v1/chat/completions", `{"model":"weather-chat"}`, bearer(clientKeyOther))
	io.Copy(io.Discard, other.Body)
	other.Body.Close()
	if other.StatusCode != http.StatusOK {
		t.Errorf("another tenant's key: %d", other.StatusCode)
	}
	close(release)
	io.Copy(io.Discard, second.Body)
	second.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := tg.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the key to be served again", func() bool {
		resp := tg.request(t, "POST", "/v1/chat/completions", `{"model":"weather-chat"}`, bearer(clientKey))
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// TestSlowAndLargeBodiesAreRefused: a body that does not arrive within
// BodyReadTimeout gets 408 and frees its connection; one over BodyMax gets
// 413; both in the provider's shape, and the upstream is never asked.
func TestSlowAndLargeBodiesAreRefused(t *testing.T) {
	tg := startGateway(t, func(c *Config) {
		c.File.Limits.BodyReadTimeout = 300 * time.Millisecond
		c.BodyMax = 1000
	})
	conn, err := net.Dial("tcp", tg.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer %s\r\nContent-Length: 500\r\n\r\n{\"model\":", clientKey)
	conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a body that never arrives: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), `"error"`) {
		t.Errorf("a body that never arrives: %d %s", resp.StatusCode, b)
	}
	big := `{"model":"weather-chat","pad":"` + strings.Repeat("x", 2000) + `"}`
	r2 := tg.request(t, "POST", "/v1/chat/completions", big, bearer(clientKey))
	b, _ = io.ReadAll(r2.Body)
	r2.Body.Close()
	if r2.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), `"error"`) {
		t.Errorf("a body over BodyMax: %d %s", r2.StatusCode, b)
	}
	tg.fake.mu.Lock()
	defer tg.fake.mu.Unlock()
	if n := len(tg.fake.requests); n != 0 {
		t.Errorf("%d requests reached the upstream", n)
	}
}

// TestOnlyAllowedHeadersGoUpstream: the upstream gets
// the provider headers an SDK shapes a request with, and none of the
// client's others — not OpenAI-Organization or OpenAI-Project (which
// would bill another organisation or project under the operator's key),
// cookies, forwarding headers, the client's key, Toolstream-*.
func TestOnlyAllowedHeadersGoUpstream(t *testing.T) {
	tg := startGateway(t, nil)
	h := map[string]string{
		"Authorization": "Bearer " + clientKey, "OpenAI-Organization": "org-victim", "OpenAI-Project": "proj-victim",
		"Cookie": "session=secret", "X-Forwarded-For": "10.0.0.1", "Forwarded": "for=10.0.0.1", "Proxy-Authorization": "Basic eA==",
		"X-Custom": "1", HeaderUser: "bob", "X-Stainless-Lang": "js",
		"OpenAI-Beta": "responses=v1", "Idempotency-Key": "idem-1", "User-Agent": "OpenAI/JS 5.0", "Accept": "text/event-stream",
	}
	resp := tg.request(t, "POST", "/v1/responses", streamBody("weather-responses"), h)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	resp = tg.request(t, "POST", "/v1/messages", streamBody("weather-messages"), map[string]string{"x-api-key": clientKey,
		"Anthropic-Version": "2023-06-01", "Anthropic-Beta": "tools-2024-04-04", "Cookie": "a=b", "OpenAI-Organization": "org-victim"})
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	tg.fake.mu.Lock()
	reqs := append([]fakeRequest(nil), tg.fake.requests...)
	tg.fake.mu.Unlock()
	if len(reqs) != 2 {
		t.Fatalf("%d upstream requests", len(reqs))
	}
	for _, r := range reqs {
		for k := range r.Header {
			switch http.CanonicalHeaderKey(k) {
			case "Accept", "Openai-Beta", "Idempotency-Key", "User-Agent", "Anthropic-Version", "Anthropic-Beta",
				"Content-Type", "Content-Length", "Accept-Encoding", "Authorization", "X-Api-Key":
			default:
				t.Errorf("%s: header %s reached the upstream: %q", r.Path, k, r.Header.Values(k))
			}
		}
	}
	if got := reqs[0].Header; got.Get("Authorization") != "Bearer "+upOpenAIKey || got.Get("Openai-Beta") != "responses=v1" ||
		got.Get("Idempotency-Key") != "idem-1" || got.Get("Accept") != "text/event-stream" {
		t.Errorf("openai upstream got %v", got)
	}
	if got := reqs[1].Header; got.Get("X-Api-Key") != upAnthropicKey || got.Get("Anthropic-Beta") != "tools-2024-04-04" || got.Get("Authorization") != "" {
		t.Errorf("anthropic upstream got %v", got)
	}
}

// TestReusedResponseIDStaysTheUsers: an upstream that
// gives alice's and bob's answers one response id (the fake serves each
// recording under its recorded id) keeps them apart: before bob has one,
// resuming the id with bob's key finds nothing (404, not alice's frames);
// bob's own stream is kept whole and is all he reads back; alice still
// reads hers whole; the tenant's key without a user finds neither. A
// second stream of alice's under the reused id is kept whole under the
// gateway's own id.
func TestReusedResponseIDStaysTheUsers(t *testing.T) {
	tg := startGateway(t, withAliceAndBob)
	c := passthroughCases[0]
	path := "/v1/responses/" + c.stream + "?stream=true"
	resp := tg.request(t, "POST", c.path, streamBody(c.model), bearer(clientKeyAlice))
	alice, _ := readSSE(t, resp.Body, 0)
	resp.Body.Close()
	if resp.Header.Get(HeaderStream) != c.stream {
		t.Fatalf("alice's stream is %q", resp.Header.Get(HeaderStream))
	}
	for name, h := range map[string]map[string]string{
		"bob by id":                   bearer(clientKeyBob),
		"bob by Last-Event-ID":        {"Authorization": "Bearer " + clientKeyBob, "Last-Event-ID": "0"},
		"the tenant's key, no user":   bearer(clientKey),
		"the tenant's key, bob":       {"Authorization": "Bearer " + clientKey, HeaderUser: "bob"},
		"bob's key claiming alice":    {"Authorization": "Bearer " + clientKeyBob, HeaderUser: "alice"},
		"the tenant's key, not alice": {"Authorization": "Bearer " + clientKey, HeaderUser: "Alice"},
	} {
		r := tg.request(t, "GET", path, "", h)
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != http.StatusNotFound && r.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d %.200s, want 404 (or 403 for a key acting for another user)", name, r.StatusCode, b)
		}
	}
	resp = tg.request(t, "POST", c.path, streamBody(c.model), bearer(clientKeyBob))
	bob, _ := readSSE(t, resp.Body, 0)
	resp.Body.Close()
	sameEvents(t, resumeAs(t, tg, c.api, c.stream, "", bearer(clientKeyBob)), bob)
	sameEvents(t, resumeAs(t, tg, c.api, c.stream, "", bearer(clientKeyAlice)), alice)
	sameEvents(t, resumeAs(t, tg, c.api, c.stream, "", map[string]string{"x-api-key": clientKey, HeaderUser: "alice"}), alice)

	// Alice again, the id reused for her too: her second stream is kept
	// whole under the gateway's own id (the Toolstream-Stream she is
	// given), not dropped as a duplicate of her first.
	aliceReusesTheID(t, tg, alice)
}

// aliceReusesTheID has alice stream the first passthrough case again, its
// upstream reusing the response id her first stream (first) was stored
// under. Her first byte does not wait for the log, so the
// Toolstream-Stream she is given is the provider's id; the log refuses
// the second stream there (its first message is stored only on an empty
// subject) and keeps it whole under the gateway's own id, not dropped as
// a duplicate and never mixed into her first, which reads back as she
// got it.
func aliceReusesTheID(t *testing.T, tg *testGateway, first []sseEvent) {
	t.Helper()
	c := passthroughCases[0]
	resp := tg.request(t, "POST", c.path, streamBody(c.model), bearer(clientKeyAlice))
	again, _ := readSSE(t, resp.Body, 0)
	resp.Body.Close()
	if got := resp.Header.Get(HeaderStream); got != c.stream {
		t.Fatalf("alice's second stream of a reused id is named %q, want the provider's %q", got, c.stream)
	}
	var own string
	eventually(t, func() bool {
		own = ownStreamOf(t, tg, c.api, "alice")
		return own != ""
	}, "alice's second stream was not kept under a gateway id")
	sameEvents(t, resumeAs(t, tg, c.api, own, "", bearer(clientKeyAlice)), again)
	sameEvents(t, resumeAs(t, tg, c.api, c.stream, "", bearer(clientKeyAlice)), first)
}

// ownStreamOf is the id of user's stream kept under a gateway's own id
// (gw_…) in the log, "" when none.
func ownStreamOf(t *testing.T, tg *testGateway, api API, user string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := tg.bus.JS.Stream(ctx, events.StreamGateway)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(">"))
	if err != nil {
		t.Fatal(err)
	}
	prefix := scopedID(user, "gw_")
	for subj := range info.State.Subjects {
		tok := subj[strings.LastIndexByte(subj, '.')+1:]
		stream, err := events.Untoken(tok)
		if err != nil || !strings.HasPrefix(stream, prefix) {
			continue
		}
		if want, err := events.GatewaySubject("acme", string(api), stream); err == nil && want == subj {
			return strings.TrimPrefix(stream, scopedID(user, ""))
		}
	}
	return ""
}
