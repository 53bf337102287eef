package gateway

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/toolstream/toolstream/internal/fakeup"
	"github.com/toolstream/toolstream/internal/jstest"
	"github.com/toolstream/toolstream/internal/trace"
)

// The upstream pool through the real gateway, against fake
// upstreams (package fakeup) that fail in each way a provider does.

// chatRecording is the recorded Chat stream every good upstream serves.
var chatRecording = filepath.Join("..", "..", "testdata", "streams", "openai-chat-deepseek-weather.jsonl")

// requestsSoFar returns what the gateway's own fake upstream received.
func (f *fakeUpstream) requestsSoFar() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeRequest(nil), f.requests...)
}

// good is a fake upstream that serves the Chat recording to every request.
func good(t *testing.T) *fakeup.Server {
	return fakeup.Start(t, func(int, string, []byte) (fakeup.Answer, error) { return fakeup.Answer{File: chatRecording}, nil })
}

// poolGateway is a gateway whose openai upstreams are ups (name → base
// URL and pool settings), with routing r.
func poolGateway(t *testing.T, r Routing, ups ...Upstream) *testGateway {
	return startGateway(t, func(c *Config) {
		for i := range ups {
			ups[i].Kind = KindOpenAI
			ups[i].APIKey = upOpenAIKey
		}
		c.File.Upstreams = ups
		c.File.Routing = r
	})
}

// chatStream sends a streamed Chat request with the client key and
// returns the answer's status, headers and events.
func chatStream(t *testing.T, tg *testGateway) (*http.Response, []sseEvent) {
	t.Helper()
	resp := tg.request(t, "POST", "/v1/chat/completions", `{"model":"weather-chat","stream":true,"messages":[]}`, bearer(clientKey))
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		return resp, []sseEvent{{Data: string(b)}}
	}
	evs, _ := readSSE(t, resp.Body, 0)
	return resp, evs
}

func ptr[T any](v T) *T { return &v }

// TestPoolFallsBackOnEachFailure: an upstream drawn first (weight 10^6
// to 1) fails in one of the ways a provider does; the request is retried
// on the other, and the client gets the other's stream whole, told so by
// Toolstream-Upstream and Toolstream-Attempts. The failed attempt is
// counted by outcome, the retry and the fallback too; nothing of it
// reached the client.
func TestPoolFallsBackOnEachFailure(t *testing.T) {
	want, err := fakeup.Lines(chatRecording)
	if err != nil {
		t.Fatal(err)
	}
	never := make(chan struct{}) // released when the test ends
	t.Cleanup(func() { close(never) })
	closed := good(t)
	closed.Close() // connection refused
	cases := []struct {
		name    string
		answer  fakeup.Answer
		url     string // instead of a fake's
		outcome string
	}{
		{"503", fakeup.Answer{Status: 503, Body: `{"error":{"message":"overloaded","type":"server_error"}}`}, "", outcomeServerError},
		{"529", fakeup.Answer{Status: 529, Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}, "", outcomeServerError},
		{"429", fakeup.Answer{Status: 429, Body: `{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}`,
			Header: http.Header{"Retry-After": {"20"}}}, "", outcomeRateLimited},
		{"unreachable", fakeup.Answer{}, closed.URL, outcomeUnreachable},
		{"silent", fakeup.Answer{File: chatRecording, HeadersHold: never}, "", outcomeFirstByteTimeout},
		{"cut-before-first-event", fakeup.Answer{File: chatRecording, CutAfter: -1}, "", outcomeBrokenStream},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := fakeup.Start(t, func(int, string, []byte) (fakeup.Answer, error) { return c.answer, nil })
			ok := good(t)
			badName, okName := "bad-"+c.name, "ok-"+c.name
			url := bad.URL
			if c.url != "" {
				url = c.url
			}
			tg := poolGateway(t, Routing{},
				Upstream{Name: badName, BaseURL: url + "/v1", Pool: Pool{Weight: 1_000_000, FirstByteTimeout: 500 * time.Millisecond}},
				Upstream{Name: okName, BaseURL: ok.URL + "/v1", Pool: Pool{Weight: 1}})
			before := value(attempts.WithLabelValues(badName, c.outcome))
			resp, evs := chatStream(t, tg)
			if resp.StatusCode != 200 || resp.Header.Get(HeaderUpstream) != okName || resp.Header.Get(HeaderAttempts) != "2" {
				t.Fatalf("%d from %q after %q attempts: %v", resp.StatusCode, resp.Header.Get(HeaderUpstream), resp.Header.Get(HeaderAttempts), evs)
			}
			if len(evs) != len(want)+1 { // and [DONE]
				t.Fatalf("the client got %d events, the good upstream sent %d", len(evs), len(want)+1)
			}
			if got := value(attempts.WithLabelValues(badName, c.outcome)) - before; got != 1 {
				t.Errorf("attempts_total{%s,%s} grew by %v, want 1", badName, c.outcome, got)
			}
			if value(retries.WithLabelValues(badName, c.outcome)) < 1 || value(fallbacks.WithLabelValues(badName, okName)) < 1 {
				t.Errorf("no retry or fallback counted from %s", badName)
			}
			if c.outcome == outcomeRateLimited {
				// The 429's Retry-After cools the upstream for every request:
				// the next goes to the other at once.
				n := len(bad.Requests())
				resp, _ := chatStream(t, tg)
				if resp.Header.Get(HeaderUpstream) != okName || resp.Header.Get(HeaderAttempts) != "1" || len(bad.Requests()) != n {
					t.Errorf("a cooling upstream was asked again: %q after %s attempts", resp.Header.Get(HeaderUpstream), resp.Header.Get(HeaderAttempts))
				}
			}
		})
	}
}

// TestNoRetryOnceTheClientHasAByte: a stream that breaks, or goes quiet
// past its idle_timeout, after its first events reached the client is
// not retried (the client would get two answers spliced): it ends, the
// other upstream is never asked, and the failure is counted.
func TestNoRetryOnceTheClientHasAByte(t *testing.T) {
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	for _, c := range []struct {
		name    string
		answer  fakeup.Answer
		outcome string
	}{
		{"cut", fakeup.Answer{File: chatRecording, CutAfter: 5}, outcomeBrokenStream},
		{"quiet", fakeup.Answer{File: chatRecording, Hold: never}, outcomeIdleTimeout},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := fakeup.Start(t, func(int, string, []byte) (fakeup.Answer, error) { return c.answer, nil })
			other := good(t)
			badName := "mid-" + c.name
			tg := poolGateway(t, Routing{},
				Upstream{Name: badName, BaseURL: bad.URL + "/v1", Pool: Pool{Weight: 1_000_000, IdleTimeout: 300 * time.Millisecond}},
				Upstream{Name: "other-" + c.name, BaseURL: other.URL + "/v1", Pool: Pool{Weight: 1}})
			before := value(streamEnds.WithLabelValues(badName, c.outcome))
			resp, evs := chatStream(t, tg)
			if resp.StatusCode != 200 || resp.Header.Get(HeaderUpstream) != badName || len(evs) == 0 || len(evs) > 30 {
				t.Fatalf("%d from %q, %d events", resp.StatusCode, resp.Header.Get(HeaderUpstream), len(evs))
			}
			if n := len(other.Requests()); n != 0 {
				t.Fatalf("the other upstream was asked %d times after the client had the first one's events", n)
			}
			// Counted when the stream is all in the log, after the client's
			// answer ended.
			eventually(t, func() bool { return value(streamEnds.WithLabelValues(badName, c.outcome))-before == 1 },
				"stream_failures_total{%s,%s} did not grow by 1", badName, c.outcome)
		})
	}
}

// TestRetryAfterIsHonoured: a 429 with retry-after-ms from the only
// upstream is retried on it once that time passed, not before; one whose
// Retry-After is past retry_after_max reaches the client as the upstream
// sent it, status, body and Retry-After, after one request.
func TestRetryAfterIsHonoured(t *testing.T) {
	var mu sync.Mutex
	var at []time.Time
	limited := `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`
	var wait atomic.Value
	wait.Store(http.Header{"Retry-After-Ms": {"400"}})
	up := fakeup.Start(t, func(n int, _ string, _ []byte) (fakeup.Answer, error) {
		mu.Lock()
		at = append(at, time.Now())
		mu.Unlock()
		if n%2 == 1 {
			return fakeup.Answer{Status: 429, Body: limited, Header: wait.Load().(http.Header)}, nil
		}
		return fakeup.Answer{File: chatRecording}, nil
	})
	tg := poolGateway(t, Routing{RetryAfterMax: 5 * time.Second}, Upstream{Name: "limited", BaseURL: up.URL + "/v1"})
	resp, _ := chatStream(t, tg)
	if resp.StatusCode != 200 || resp.Header.Get(HeaderAttempts) != "2" {
		t.Fatalf("%d after %s attempts", resp.StatusCode, resp.Header.Get(HeaderAttempts))
	}
	mu.Lock()
	gap := at[1].Sub(at[0])
	mu.Unlock()
	if gap < 400*time.Millisecond {
		t.Fatalf("retried %v after a 429 asking for 400ms", gap)
	}
	wait.Store(http.Header{"Retry-After": {"120"}})
	resp, evs := chatStream(t, tg)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "120" || evs[0].Data != limited || len(up.Requests()) != 3 {
		t.Fatalf("%d Retry-After %q %v after %d requests", resp.StatusCode, resp.Header.Get("Retry-After"), evs, len(up.Requests()))
	}
}

// TestCircuitOpensAndProbes: after breaker_failures failures in a row
// the upstream's circuit opens: requests get 503 in the provider's shape
// with Retry-After, and the upstream is not asked. After the cooldown one
// request probes it: a failure opens it again at once, a success closes
// it.
func TestCircuitOpensAndProbes(t *testing.T) {
	var healthy atomic.Bool
	up := fakeup.Start(t, func(int, string, []byte) (fakeup.Answer, error) {
		if healthy.Load() {
			return fakeup.Answer{File: chatRecording}, nil
		}
		return fakeup.Answer{Status: 500, Body: `{"error":{"message":"boom","type":"server_error"}}`}, nil
	})
	const cooldown = 700 * time.Millisecond
	tg := poolGateway(t, Routing{Retries: ptr(0), BreakerFailures: 2, BreakerCooldown: cooldown}, Upstream{Name: "breaker", BaseURL: up.URL + "/v1"})
	state := func() float64 { return value(circuitState.WithLabelValues("breaker")) }
	openedBefore := value(circuitOpened.WithLabelValues("breaker"))
	for i := range 2 {
		if resp, _ := chatStream(t, tg); resp.StatusCode != 500 {
			t.Fatalf("failure %d: %d, want the upstream's 500", i, resp.StatusCode)
		}
	}
	opened := time.Now()
	resp, evs := chatStream(t, tg)
	var shape struct{ Error struct{ Type string } }
	json.Unmarshal([]byte(evs[0].Data), &shape)
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || shape.Error.Type != "server_error" || len(up.Requests()) != 2 || state() != circuitOpen {
		t.Fatalf("open circuit: %d Retry-After %q %s, upstream asked %d times, state %v", resp.StatusCode, resp.Header.Get("Retry-After"), evs[0].Data, len(up.Requests()), state())
	}
	// A failed probe opens it again.
	time.Sleep(time.Until(opened.Add(cooldown + 50*time.Millisecond)))
	if resp, _ := chatStream(t, tg); resp.StatusCode != 500 || len(up.Requests()) != 3 {
		t.Fatalf("probe: %d, upstream asked %d times", resp.StatusCode, len(up.Requests()))
	}
	reopened := time.Now()
	if resp, _ := chatStream(t, tg); resp.StatusCode != 503 || len(up.Requests()) != 3 {
		t.Fatalf("after a failed probe: %d, upstream asked %d times", resp.StatusCode, len(up.Requests()))
	}
	healthy.Store(true)
	time.Sleep(time.Until(reopened.Add(cooldown + 50*time.Millisecond)))
	if resp, _ := chatStream(t, tg); resp.StatusCode != 200 || state() != circuitClosed {
		t.Fatalf("a good probe: %d, state %v", resp.StatusCode, state())
	}
	if resp, _ := chatStream(t, tg); resp.StatusCode != 200 {
		t.Fatalf("closed again: %d", resp.StatusCode)
	}
	if n := value(circuitOpened.WithLabelValues("breaker")) - openedBefore; n != 2 {
		t.Errorf("circuit_opened_total %v, want 2", n)
	}
}

// TestWeightsShareTheRequests: two healthy upstreams weighted 3 to 1
// share 400 requests about so (the draw is random: the bounds are wide).
func TestWeightsShareTheRequests(t *testing.T) {
	a, b := good(t), good(t)
	tg := poolGateway(t, Routing{}, Upstream{Name: "w3", BaseURL: a.URL + "/v1", Pool: Pool{Weight: 3}},
		Upstream{Name: "w1", BaseURL: b.URL + "/v1", Pool: Pool{Weight: 1}})
	const n = 400
	for range n {
		resp := tg.request(t, "POST", "/v1/chat/completions", `{"model":"weather-chat","messages":[]}`, bearer(clientKey))
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	na, nb := len(a.Requests()), len(b.Requests())
	if na+nb != n || na < 250 || na > 350 {
		t.Fatalf("weights 3:1 gave %d:%d", na, nb)
	}
}

// TestPoolModels: an upstream serves only the models it lists; a model
// no upstream serves is a 400 in the provider's shape, nothing sent.
func TestPoolModels(t *testing.T) {
	a, b := good(t), good(t)
	tg := poolGateway(t, Routing{}, Upstream{Name: "mini", BaseURL: a.URL + "/v1", Models: []string{"gpt-mini*"}},
		Upstream{Name: "big", BaseURL: b.URL + "/v1", Models: []string{"weather-chat"}})
	for range 10 {
		resp, _ := chatStream(t, tg)
		if resp.Header.Get(HeaderUpstream) != "big" {
			t.Fatalf("weather-chat went to %q", resp.Header.Get(HeaderUpstream))
		}
	}
	resp := tg.request(t, "POST", "/v1/chat/completions", `{"model":"gpt-other","messages":[]}`, bearer(clientKey))
	b2, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(b2), "no openai upstream serves model") || len(a.Requests())+len(b.Requests()) != 10 {
		t.Fatalf("%d %s", resp.StatusCode, b2)
	}
}

// TestPoolThroughTheSDK: the official OpenAI SDK, its own retries off,
// streams through a pool whose first upstream answers 503 and gets the
// second's stream whole, event for event; the failing upstream's circuit
// opened at its first failure (breaker_failures 1), so the next request
// goes to the other at once.
func TestPoolThroughTheSDK(t *testing.T) {
	jstest.Dir(t)
	bad := fakeup.Start(t, func(int, string, []byte) (fakeup.Answer, error) {
		return fakeup.Answer{Status: 503, Body: `{"error":{"message":"overloaded","type":"server_error"}}`}, nil
	})
	ok := good(t)
	tg := poolGateway(t, Routing{BreakerFailures: 1, BreakerCooldown: time.Hour},
		Upstream{Name: "sdk-bad", BaseURL: bad.URL + "/v1", Pool: Pool{Weight: 1_000_000}},
		Upstream{Name: "sdk-ok", BaseURL: ok.URL + "/v1"})
	want, _ := fakeup.Lines(chatRecording)
	res := runCalls(t, tg, []map[string]any{
		{"api": "chat", "key": clientKey, "model": "weather-chat", "stream": true},
		{"api": "chat", "key": clientKey, "model": "weather-chat"},
	})
	if !res[0].OK || res[0].Events != len(want) || !res[1].OK {
		t.Fatalf("%+v", res)
	}
	if n := len(bad.Requests()); n != 1 {
		t.Fatalf("the failing upstream was asked %d times; its circuit should be open after 1", n)
	}
}

// callResult is what calls.mjs reports of one call.
type callResult struct {
	OK          bool    `json:"ok"`
	Events      int     `json:"events"`
	Status      int     `json:"status"`
	Name        string  `json:"name"`
	Type        string  `json:"type"`
	Code        string  `json:"code"`
	RetryAfter  *string `json:"retryAfter"`
	ShouldRetry *string `json:"shouldRetry"`
	Message     string  `json:"message"`
}

// runCalls makes calls with the official SDKs (testdata/calls.mjs).
func runCalls(t *testing.T, tg *testGateway, calls []map[string]any) []callResult {
	t.Helper()
	script, err := filepath.Abs("testdata/calls.mjs")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(calls)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out := jstest.Node(ctx, t, []string{"GATEWAY_URL=" + tg.srv.URL, "CALLS=" + string(b)}, script)
	var res []callResult
	if err := json.Unmarshal(out, &res); err != nil || len(res) != len(calls) {
		t.Fatalf("%v: %s", err, out)
	}
	return res
}

// value is a counter's or gauge's value.
func value(c prometheus.Metric) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		panic(err)
	}
	if m.Counter != nil {
		return m.Counter.GetValue()
	}
	return m.Gauge.GetValue()
}

// eventually polls cond until it holds, failing the test with msg after
// 20 s.
func eventually(t *testing.T, cond func() bool, msg string, args ...any) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf(msg, args...)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestTraceSaysWhichUpstreamServed: `toolstream trace` of a call the
// model streamed through the gateway names the upstream that served it
// and the attempts it took (kept on the stream's end frame), here the
// second upstream after the first answered 503.
func TestTraceSaysWhichUpstreamServed(t *testing.T) {
	bad := fakeup.Start(t, func(int, string, []byte) (fakeup.Answer, error) {
		return fakeup.Answer{Status: 503, Body: `{"error":{"message":"overloaded","type":"server_error"}}`}, nil
	})
	ok := good(t)
	tg := poolGateway(t, Routing{}, Upstream{Name: "trace-bad", BaseURL: bad.URL + "/v1", Pool: Pool{Weight: 1_000_000}},
		Upstream{Name: "trace-ok", BaseURL: ok.URL + "/v1"})
	if resp, _ := chatStream(t, tg); resp.StatusCode != 200 {
		t.Fatalf("%d", resp.StatusCode)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var tr *trace.Trace
	eventually(t, func() bool {
		var err error
		tr, err = trace.Call(ctx, tg.bus, "acme", "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", "")
		return err == nil && tr.Served != nil
	}, "no trace with the gateway's record")
	if sv := *tr.Served; sv.API != "chat" || sv.Upstream != "trace-ok" || sv.Attempts != 2 {
		t.Fatalf("served: %+v", tr.Served)
	}
	var text strings.Builder
	tr.WriteText(&text)
	if !strings.Contains(text.String(), "served by upstream trace-ok, attempt 2") {
		t.Fatalf("trace's text does not say who served:\n%s", text.String())
	}
}
