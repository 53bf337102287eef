package gateway

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/erasure"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/projector/projectortest"
)

// passthroughCases are the recorded streams, one per API, and the call
// each one holds.
var passthroughCases = []struct {
	api    API
	path   string
	model  string
	stream string // the provider's response id
	call   string // the provider call id
}{
	{APIResponses, "/v1/responses", "weather-responses", "resp_04041325ab8ae30400698c519fb7fc81979972618138fc336d", "call_H5DxLSFnsGhiROnUiDHmgyc8"},
	{APIChat, "/v1/chat/completions", "weather-chat", "cca85624-4056-401f-b220-d77601d1f70d", "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF"},
	{APIMessages, "/v1/messages", "weather-messages", "msg_01CD3XaZfhNabxRt1SG5ybtK", "toolu_019Zvehfe1XQWweT1pm7okyt"},
}

func streamBody(model string) string {
	return `{"model":"` + model + `","stream":true,"input":"weather in SF?","messages":[{"role":"user","content":"weather in SF?"}],"max_tokens":100}`
}

// TestPassthroughRelaysEveryEventUnchanged: each API's recorded stream
// reaches the client event for event, byte for byte, each with its
// position as SSE id; the upstream got the body unchanged with the
// upstream's key; the call it holds is assembled from the model events
// the gateway published (a CallCompleted in the log, with the envelope of
// the request's headers).
func TestPassthroughRelaysEveryEventUnchanged(t *testing.T) {
	tg := startGateway(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	projectortest.Start(ctx, t, tg.bus, assembler.New(assembler.Config{}))
	for _, c := range passthroughCases {
		t.Run(string(c.api), func(t *testing.T) {
			h := map[string]string{"x-api-key": clientKey, HeaderUser: "bob", HeaderSession: "s1", HeaderRun: "run-" + string(c.api), HeaderStep: "3"}
			if c.api != APIMessages {
				h = map[string]string{"Authorization": "Bearer " + clientKey, HeaderUser: "bob", HeaderSession: "s1", HeaderRun: "run-" + string(c.api), HeaderStep: "3"}
			}
			body := streamBody(c.model)
			resp := tg.request(t, "POST", c.path, body, h)
			defer resp.Body.Close()
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("status %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
			}
			if got := resp.Header.Get(HeaderStream); got != c.stream {
				t.Errorf("%s %q, want the provider's response id %q", HeaderStream, got, c.stream)
			}
			got, _ := readSSE(t, resp.Body, 0)
			want := frames(t, c.api, c.model)
			for i := range want {
				want[i].ID = strconv.Itoa(i)
			}
			sameEvents(t, got, want)

			tg.fake.mu.Lock()
			last := tg.fake.requests[len(tg.fake.requests)-1]
			tg.fake.mu.Unlock()
			if last.Body["input"] != "weather in SF?" || last.Header.Get(HeaderUser) != "" || strings.Contains(last.Header.Get("Authorization"), clientKey) {
				t.Errorf("upstream got %v %v", last.Body, last.Header)
			}

			callCompleted(ctx, t, tg, c.call, "run-"+string(c.api))
		})
	}
}

// callCompleted waits for call in the log and checks it is a
// CallCompleted with the envelope the tests' requests carry (tenant acme,
// user bob, session s1, step 3) and run.
func callCompleted(ctx context.Context, t *testing.T, tg *testGateway, call, run string) {
	t.Helper()
	evs, err := bustest.WaitEvents(ctx, tg.bus, []string{events.AllCalls}, func(evs []*events.Event) bool {
		for _, ev := range evs {
			if ev.CallID == call {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("no call %s assembled: %v (%d call events)", call, err, len(evs))
	}
	for _, ev := range evs {
		if ev.CallID != call {
			continue
		}
		if _, ok := events.As[*events.CallCompleted](ev); !ok {
			t.Errorf("call %s: %s, want a CallCompleted", call, ev.Kind)
		}
		// The run is bob's (RunID): another user's run of the same name is
		// another run.
		if ev.Tenant != "acme" || ev.User != "bob" || ev.Session != "s1" || ev.Run != RunID("bob", run) || ev.Step != "3" {
			t.Errorf("call %s envelope %+v", call, ev)
		}
	}
}

// TestNonStreamedAnswerAssemblesItsCalls: the call of each API's
// non-streamed answer is assembled from the model events the gateway
// published for it (the answer converted into its streamed form): a
// CallCompleted in the log with the request's envelope; the client gets
// the answer unchanged.
func TestNonStreamedAnswerAssemblesItsCalls(t *testing.T) {
	tg := startGateway(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	projectortest.Start(ctx, t, tg.bus, assembler.New(assembler.Config{}))
	for _, c := range passthroughCases {
		t.Run(string(c.api), func(t *testing.T) {
			run := "run-whole-" + string(c.api)
			h := map[string]string{"Authorization": "Bearer " + clientKey, HeaderUser: "bob", HeaderSession: "s1", HeaderRun: run, HeaderStep: "3"}
			resp := tg.request(t, "POST", c.path, `{"model":"`+c.model+`","max_tokens":100}`, h)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(b) != wholeAnswer(c.api, c.model) {
				t.Fatalf("%d %s", resp.StatusCode, b)
			}
			callCompleted(ctx, t, tg, wholeCall(c.api), run)
		})
	}
}

// TestUnconvertibleAnswerPassesThrough: a non-streamed answer that cannot
// be converted into its streamed form publishes no model events, and the
// client still gets it unchanged, kept in the log.
func TestUnconvertibleAnswerPassesThrough(t *testing.T) {
	tg := startGateway(t, nil)
	for _, c := range passthroughCases {
		resp := tg.request(t, "POST", c.path, `{"model":"unconvertible"}`, map[string]string{"x-api-key": clientKey})
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != unconvertible {
			t.Errorf("%s: %d %s", c.api, resp.StatusCode, b)
		}
		got := resumeAll(t, tg, c.api, resp.Header.Get(HeaderStream), "")
		if len(got) != 1 || got[0].Data != unconvertible {
			t.Errorf("%s: the log holds %v", c.api, got)
		}
	}
}

func sameEvents(t *testing.T, got, want []sseEvent) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d:\ngot  %v\nwant %v", len(got), len(want), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("event %d:\ngot  %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

// TestNonStreamedAnswerPassesThrough: a request without "stream" gets the
// upstream's JSON unchanged, and the answer is kept in the log.
func TestNonStreamedAnswerPassesThrough(t *testing.T) {
	tg := startGateway(t, nil)
	for _, c := range passthroughCases {
		resp := tg.request(t, "POST", c.path, `{"model":"`+c.model+`"}`, map[string]string{"x-api-key": clientKey})
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != wholeAnswer(c.api, c.model) {
			t.Errorf("%s: %d %s", c.api, resp.StatusCode, b)
		}
		stream := resp.Header.Get(HeaderStream)
		got := resumeAll(t, tg, c.api, stream, "")
		if len(got) != 1 || got[0].Data != string(b) {
			t.Errorf("%s: the log holds %v", c.api, got)
		}
	}
}

// resumeAll reads a stream again from the log through the gateway, with
// the tenant's key and no user.
func resumeAll(t *testing.T, tg *testGateway, api API, stream, query string) []sseEvent {
	t.Helper()
	return resumeAs(t, tg, api, stream, query, bearer(clientKey))
}

// resumeAs reads a stream again from the log with header's key and user.
func resumeAs(t *testing.T, tg *testGateway, api API, stream, query string, header map[string]string) []sseEvent {
	t.Helper()
	return resumeUpTo(t, tg, api, stream, query, header, 0)
}

// resumeUpTo is resumeAs that stops after n events (0: at the stream's
// end): a stream the log holds no end of is followed for more.
func resumeUpTo(t *testing.T, tg *testGateway, api API, stream, query string, header map[string]string, n int) []sseEvent {
	t.Helper()
	path := map[API]string{APIResponses: "/v1/responses/", APIChat: "/toolstream/v1/chat/completions/", APIMessages: "/toolstream/v1/messages/"}[api]
	if api == APIResponses {
		query = "stream=true&" + query
	}
	resp := tg.request(t, "GET", path+stream+"?"+query, "", header)
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("resume %s: %d %s", stream, resp.StatusCode, b)
	}
	evs, _ := readSSE(t, resp.Body, n)
	return evs
}

// TestResumeReadsTheLog: a finished stream read again from the log, from
// the start, after starting_after=N and after Last-Event-ID: N, gives
// exactly the events after N with the same ids.
func TestResumeReadsTheLog(t *testing.T) {
	tg := startGateway(t, nil)
	for _, c := range passthroughCases {
		t.Run(string(c.api), func(t *testing.T) {
			resp := tg.request(t, "POST", c.path, streamBody(c.model), bearer(clientKey))
			all, _ := readSSE(t, resp.Body, 0)
			resp.Body.Close()
			sameEvents(t, resumeAll(t, tg, c.api, c.stream, ""), all)
			for _, n := range []int{0, 4, len(all) - 2, len(all) - 1} {
				sameEvents(t, resumeAll(t, tg, c.api, c.stream, "starting_after="+strconv.Itoa(n)), all[n+1:])
			}
			path := map[API]string{APIResponses: "/v1/responses/", APIChat: "/toolstream/v1/chat/completions/", APIMessages: "/toolstream/v1/messages/"}[c.api]
			resp = tg.request(t, "GET", path+c.stream+"?stream=true", "", map[string]string{"x-api-key": clientKey, "Last-Event-ID": "5"})
			got, _ := readSSE(t, resp.Body, 0)
			resp.Body.Close()
			sameEvents(t, got, all[6:])
		})
	}
}

// TestResumeIsTheTenantsAndTheUsers: a stream is read again only with a
// key of its tenant for its user — another tenant's key, a key bound to
// another user of the tenant, or the tenant's key for no user or another
// user, finds nothing (404), by the stream's id and by Last-Event-ID
// alike — and the owner (the tenant's key naming bob) still reads it whole.
func TestResumeIsTheTenantsAndTheUsers(t *testing.T) {
	tg := startGateway(t, nil)
	c := passthroughCases[0]
	resp := tg.request(t, "POST", c.path, streamBody(c.model), map[string]string{"Authorization": "Bearer " + clientKey, HeaderUser: "bob"})
	all, _ := readSSE(t, resp.Body, 0)
	resp.Body.Close()
	path := map[API]string{APIResponses: "/v1/responses/", APIChat: "/toolstream/v1/chat/completions/", APIMessages: "/toolstream/v1/messages/"}[c.api]
	for name, h := range map[string]map[string]string{
		"another tenant":        bearer(clientKeyOther),
		"another user":          bearer(clientKeyAnn),
		"another tenant by id":  {"x-api-key": clientKeyOther, "Last-Event-ID": "2"},
		"no user":               bearer(clientKey),
		"the tenant's, for ann": {"x-api-key": clientKey, HeaderUser: "ann"},
	} {
		resp := tg.request(t, "GET", path+c.stream+"?stream=true", "", h)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("%s: %d %s, want 404", name, resp.StatusCode, b)
		}
	}
	sameEvents(t, resumeAs(t, tg, c.api, c.stream, "", map[string]string{"x-api-key": clientKey, HeaderUser: "bob"}), all)
}

// TestClientDisconnectMidStreamLosesNothing: the client reads three
// events and goes away while the upstream is still writing; the upstream
// is read to the end all the same, and a reconnect with Last-Event-ID
// (on the GET, and on the POST with Toolstream-Stream) gets the rest, live,
// with nothing repeated.
func TestClientDisconnectMidStreamLosesNothing(t *testing.T) {
	var mu sync.Mutex // guards release: one per subtest
	var release chan struct{}
	current := func() chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		return release
	}
	tg := startGateway(t, func(c *Config) { c.File.Heartbeat = time.Hour })
	tg.fake.gate = func(model string, pos int) {
		if pos == 5 {
			<-current()
		}
	}
	c := passthroughCases[0]
	want := frames(t, c.api, c.model)
	for i := range want {
		want[i].ID = strconv.Itoa(i)
	}
	for _, how := range []string{"get", "post"} {
		t.Run(how, func(t *testing.T) {
			// The upstream waits at its fifth event until the resumption
			// is under way; however the subtest ends, it is let go, so a
			// failure is reported instead of the server's Close waiting
			// on the handler for ever.
			ch := make(chan struct{})
			var once sync.Once
			let := func() { once.Do(func() { close(ch) }) }
			mu.Lock()
			release = ch
			mu.Unlock()
			t.Cleanup(let)
			tg.fake.mu.Lock()
			before := len(tg.fake.requests)
			tg.fake.mu.Unlock()
			resp := tg.request(t, "POST", c.path, streamBody(c.model), bearer(clientKey))
			first, _ := readSSE(t, resp.Body, 3)
			resp.Body.Close() // the client goes away
			sameEvents(t, first, want[:3])

			h := map[string]string{"Authorization": "Bearer " + clientKey, "Last-Event-ID": "2"}
			if how == "get" {
				resp = tg.request(t, "GET", "/v1/responses/"+c.stream+"?stream=true", "", h)
			} else {
				h[HeaderStream] = c.stream
				resp = tg.request(t, "POST", c.path, streamBody(c.model), h)
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("%d %s", resp.StatusCode, b)
			}
			let()
			rest, _ := readSSE(t, resp.Body, 0)
			sameEvents(t, append(first, rest...), want)
			tg.fake.mu.Lock()
			defer tg.fake.mu.Unlock()
			if n := len(tg.fake.requests) - before; n != 1 {
				t.Errorf("%d upstream requests, want 1: the resumption must not call the upstream", n)
			}
		})
	}
}

// TestHeartbeatsWhileTheUpstreamIsQuiet: while the upstream says nothing
// the client gets SSE comments, and the events are unchanged around them.
func TestHeartbeatsWhileTheUpstreamIsQuiet(t *testing.T) {
	beat := make(chan struct{})
	tg := startGateway(t, func(c *Config) { c.File.Heartbeat = 5 * time.Millisecond })
	tg.fake.gate = func(model string, pos int) {
		if pos == 2 {
			<-beat
		}
	}
	c := passthroughCases[2]
	resp := tg.request(t, "POST", c.path, streamBody(c.model), map[string]string{"x-api-key": clientKey})
	defer resp.Body.Close()
	first, _ := readSSE(t, resp.Body, 2)
	// Read until a comment arrives, then let the upstream go on.
	br := make([]byte, 1)
	var line strings.Builder
	for {
		if _, err := io.ReadFull(resp.Body, br); err != nil {
			t.Fatal(err)
		}
		line.WriteByte(br[0])
		if strings.HasSuffix(line.String(), ": heartbeat\n\n") {
			break
		}
	}
	close(beat)
	rest, _ := readSSE(t, resp.Body, 0)
	want := frames(t, c.api, c.model)
	for i := range want {
		want[i].ID = strconv.Itoa(i)
	}
	sameEvents(t, append(first, rest...), want)
}

// TestErrorsComeInTheProvidersShape: a wrong or missing key, an upstream
// error, an unreachable upstream, a malformed body, an unknown mode, a
// stream that is not in the log and a bad event id, each in the shape of
// the API's provider.
func TestErrorsComeInTheProvidersShape(t *testing.T) {
	tg := startGateway(t, nil)
	down := startGateway(t, func(c *Config) {
		c.File.Upstreams[0].BaseURL = "http://127.0.0.1:1/v1"
		c.File.Upstreams[1].BaseURL = "http://127.0.0.1:1/v1"
	})
	for _, c := range []struct {
		name   string
		tg     *testGateway
		api    API
		method string
		path   string
		body   string
		header map[string]string
		status int
		want   string // in the error's message
	}{
		{"wrong key openai", tg, APIChat, "POST", "/v1/chat/completions", streamBody("weather-chat"), bearer("nope"), 401, "Incorrect API key"},
		{"no key anthropic", tg, APIMessages, "POST", "/v1/messages", streamBody("weather-messages"), nil, 401, "Incorrect API key"},
		{"wrong key resume", tg, APIResponses, "GET", "/v1/responses/resp_x?stream=true", "", bearer("nope"), 401, "Incorrect API key"},
		{"another user", tg, APIChat, "POST", "/v1/chat/completions", streamBody("weather-chat"), map[string]string{"Authorization": "Bearer " + clientKeyAnn, HeaderUser: "bob"}, 403, "user"},
		{"upstream 429 openai", tg, APIResponses, "POST", "/v1/responses", streamBody("overloaded"), bearer(clientKey), 429, "fake: rate limited"},
		{"upstream 429 anthropic", tg, APIMessages, "POST", "/v1/messages", streamBody("overloaded"), map[string]string{"x-api-key": clientKey}, 429, "fake: rate limited"},
		{"unreachable", down, APIMessages, "POST", "/v1/messages", streamBody("weather-messages"), map[string]string{"x-api-key": clientKey}, 502, "upstream failed"},
		{"not json", tg, APIChat, "POST", "/v1/chat/completions", "{nope", bearer(clientKey), 400, "not a JSON object"},
		{"model not a string", tg, APIChat, "POST", "/v1/chat/completions", `{"model":3}`, bearer(clientKey), 400, "model is not a string"},
		{"unknown mode", tg, APIChat, "POST", "/v1/chat/completions", streamBody("weather-chat"), map[string]string{"Authorization": "Bearer " + clientKey, HeaderMode: "turbo"}, 400, "Toolstream-Mode"},
		{"run without runner", tg, APIMessages, "POST", "/v1/messages", streamBody("weather-messages"), map[string]string{"x-api-key": clientKey, HeaderMode: "run"}, 501, "not served"},
		{"no such stream", tg, APIResponses, "GET", "/v1/responses/resp_nope?stream=true", "", bearer(clientKey), 404, "no such stream"},
		{"bad starting_after", tg, APIChat, "GET", "/toolstream/v1/chat/completions/x?starting_after=abc", "", bearer(clientKey), 400, "not a number"},
		{"not a stream", tg, APIResponses, "GET", "/v1/responses/resp_x", "", bearer(clientKey), 404, "stream=true"}, // no background response of this gateway
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := c.tg.request(t, c.method, c.path, c.body, c.header)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.status, b)
			}
			var shape struct {
				Type  string `json:"type"`
				Error struct {
					Type    string `json:"type"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(b, &shape); err != nil {
				t.Fatalf("%s: %v", b, err)
			}
			if c.api == APIMessages && shape.Type != "error" || c.api != APIMessages && shape.Type != "" {
				t.Errorf("not %s's shape: %s", c.api.Kind(), b)
			}
			if shape.Error.Type == "" || !strings.Contains(shape.Error.Message, c.want) {
				t.Errorf("error %s, want a type and %q in the message", b, c.want)
			}
		})
	}
}

// TestModelPrefixPicksTheUpstream: "upstream-name/model" routes to that
// upstream with the prefix removed; a prefix naming no upstream is part of
// the model.
func TestModelPrefixPicksTheUpstream(t *testing.T) {
	tg := startGateway(t, func(c *Config) {
		c.File.Upstreams = append([]Upstream{{Name: "other", Kind: KindOpenAI, BaseURL: "http://127.0.0.1:1/v1", APIKey: "x"}}, c.File.Upstreams...)
	})
	resp := tg.request(t, "POST", "/v1/chat/completions", `{"model":"openai/weather-chat"}`, bearer(clientKey))
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != wholeAnswer(APIChat, "weather-chat") {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	// A prefix naming no upstream is part of the model: the pool of openai
	// upstreams serves it. "other" is down, so it is "openai" (after a
	// retry when "other" was drawn first), which gets the model whole.
	resp = tg.request(t, "POST", "/v1/chat/completions", `{"model":"nope/weather-chat"}`, bearer(clientKey))
	resp.Body.Close()
	reqs := tg.fake.requestsSoFar()
	if resp.Header.Get(HeaderUpstream) != "openai" || len(reqs) != 2 || reqs[1].Body["model"] != "nope/weather-chat" {
		t.Fatalf("unprefixed model: %d from %q; the fake got %+v", resp.StatusCode, resp.Header.Get(HeaderUpstream), reqs)
	}
}

type runnerFunc func(w http.ResponseWriter, r *http.Request, req *Request)

func (f runnerFunc) ServeRun(w http.ResponseWriter, r *http.Request, req *Request) { f(w, r, req) }

// TestRunModeGoesToTheRunner: Toolstream-Mode: run reaches Config.Runner
// with the envelope and the body, after authentication.
func TestRunModeGoesToTheRunner(t *testing.T) {
	var got *Request
	tg := startGateway(t, func(c *Config) {
		c.Runner = runnerFunc(func(w http.ResponseWriter, r *http.Request, req *Request) {
			got = req
			w.WriteHeader(http.StatusAccepted)
		})
	})
	body := streamBody("weather-messages")
	resp := tg.request(t, "POST", "/v1/messages", body, map[string]string{"x-api-key": clientKeyAnn, HeaderMode: "run", HeaderRun: "r1"})
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted || got == nil {
		t.Fatalf("%d %+v", resp.StatusCode, got)
	}
	want := Envelope{Tenant: "acme", User: "ann", Run: RunID("ann", "r1")}
	if got.Env != want || got.RunName != "r1" || string(got.Body) != body || !got.Stream || got.API != APIMessages || got.Upstream != "claude" || got.Model != "weather-messages" {
		t.Errorf("runner got %+v", got)
	}
}

// TestErasureReachesTheFrames: after the user's erasure the stream's
// frames cannot be read (they were sealed under the user's key).
func TestErasureReachesTheFrames(t *testing.T) {
	tg := startGateway(t, nil)
	c := passthroughCases[0]
	resp := tg.request(t, "POST", c.path, streamBody(c.model), map[string]string{"Authorization": "Bearer " + clientKey, HeaderUser: "eve"})
	readSSE(t, resp.Body, 0)
	resp.Body.Close()
	eve := map[string]string{"x-api-key": clientKey, HeaderUser: "eve"}
	if got := resumeAs(t, tg, c.api, c.stream, "", eve); len(got) == 0 {
		t.Fatal("nothing to read before the erasure")
	}
	ks, ok := tg.bus.Keys.(*keys.Store)
	if !ok {
		t.Fatalf("keys %T", tg.bus.Keys)
	}
	if _, err := erasure.User(context.Background(), tg.bus, ks, "acme", "eve"); err != nil {
		t.Fatal(err)
	}
	resp = tg.request(t, "GET", "/v1/responses/"+c.stream+"?stream=true", "", eve)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || !strings.Contains(string(b), "erased") {
		t.Fatalf("after erasure: %d %s", resp.StatusCode, b)
	}
}
