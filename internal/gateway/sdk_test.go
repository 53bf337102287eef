package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/jstest"
)

// The official SDKs as clients: what they yield is what the provider sent,
// errors come as the SDKs' own error classes, resumption works through the
// Responses API's retrieve(id, {stream, starting_after}), and heartbeats
// are ignored.

// runSDK runs the scenarios in one node process and returns each one's
// result, by scenario.
func runSDK(t *testing.T, tg *testGateway, scenarios []string, env ...string) map[string]map[string]json.RawMessage {
	t.Helper()
	script, err := filepath.Abs("testdata/sdk.mjs")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	env = append(env, "GATEWAY_URL="+tg.srv.URL, "GATEWAY_KEY="+clientKey)
	out := jstest.Node(ctx, t, env, append([]string{script}, scenarios...)...)
	var res map[string]map[string]json.RawMessage
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %v: %s", scenarios, err, out)
	}
	return res
}

// sameJSON reports whether the SDK's events are the recording's, value for
// value. The Anthropic SDK does not yield pings.
func sameJSON(t *testing.T, got json.RawMessage, want []sseEvent) {
	t.Helper()
	var evs []any
	if err := json.Unmarshal(got, &evs); err != nil {
		t.Fatal(err)
	}
	var wants []any
	for _, w := range want {
		if w.Data == "[DONE]" || w.Event == "ping" {
			continue // the SDK ends the stream there; the SDK skips pings
		}
		var v any
		if err := json.Unmarshal([]byte(w.Data), &v); err != nil {
			t.Fatal(err)
		}
		wants = append(wants, v)
	}
	if !reflect.DeepEqual(evs, wants) {
		t.Fatalf("the SDK yielded %d events, the upstream sent %d:\ngot  %.2000s\nwant %.2000v", len(evs), len(wants), got, wants)
	}
}

func TestSDKsStreamThroughTheGateway(t *testing.T) {
	jstest.Dir(t)
	tg := startGateway(t, nil)
	var scenarios []string
	for _, c := range passthroughCases {
		scenarios = append(scenarios, string(c.api)+"-stream", string(c.api)+"-whole")
	}
	res := runSDK(t, tg, scenarios)
	for _, c := range passthroughCases {
		t.Run(string(c.api), func(t *testing.T) {
			sameJSON(t, res[string(c.api)+"-stream"]["events"], frames(t, c.api, c.model))
			answer := res[string(c.api)+"-whole"]["answer"]
			var got, want map[string]any
			json.Unmarshal(answer, &got)
			json.Unmarshal([]byte(wholeAnswer(c.api, c.model)), &want)
			delete(got, "output_text") // the OpenAI SDK adds it to a response
			if !reflect.DeepEqual(got, want) {
				t.Errorf("whole answer %s, want %s", answer, wholeAnswer(c.api, c.model))
			}
		})
	}
}

func TestSDKsSeeTheProvidersErrors(t *testing.T) {
	jstest.Dir(t)
	tg := startGateway(t, nil)
	type failure struct {
		Status  int
		Name    string
		Type    string
		Message string
	}
	res := runSDK(t, tg, []string{"wrong-key", "upstream-error"})
	for _, c := range []struct {
		scenario, sdk string
		want          failure
	}{
		{"wrong-key", "openai", failure{401, "AuthenticationError", "invalid_request_error", "Incorrect API key"}},
		{"wrong-key", "anthropic", failure{401, "AuthenticationError", "authentication_error", "Incorrect API key"}},
		{"upstream-error", "openai", failure{429, "RateLimitError", "rate_limit_error", "fake: rate limited"}},
		{"upstream-error", "anthropic", failure{429, "RateLimitError", "rate_limit_error", "fake: rate limited"}},
	} {
		var f failure
		json.Unmarshal(res[c.scenario][c.sdk], &f)
		if f.Status != c.want.Status || f.Name != c.want.Name || f.Type != c.want.Type || !strings.Contains(f.Message, c.want.Message) {
			t.Errorf("%s %s: %+v, want %+v", c.scenario, c.sdk, f, c.want)
		}
	}
}

// TestSDKResumesAResponse: the OpenAI SDK's responses.retrieve with
// stream and starting_after gets the events after N from the log.
func TestSDKResumesAResponse(t *testing.T) {
	jstest.Dir(t)
	tg := startGateway(t, nil)
	c := passthroughCases[0]
	resp := tg.request(t, "POST", c.path, streamBody(c.model), bearer(clientKey))
	readSSE(t, resp.Body, 0)
	resp.Body.Close()
	res := runSDK(t, tg, []string{"resume"}, "STREAM_ID="+c.stream, "STARTING_AFTER=3")
	sameJSON(t, res["resume"]["events"], frames(t, c.api, c.model)[4:])
}

// heartbeatSpy tells when the gateway wrote a heartbeat.
type heartbeatSpy struct {
	http.ResponseWriter
	once *sync.Once
	beat chan struct{}
}

func (s heartbeatSpy) Write(p []byte) (int, error) {
	n, err := s.ResponseWriter.Write(p)
	if strings.Contains(string(p), ": heartbeat") {
		s.once.Do(func() { close(s.beat) })
	}
	return n, err
}

func (s heartbeatSpy) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// TestSDKsIgnoreHeartbeats: each SDK streams while the upstream holds its
// third event until the gateway sent a heartbeat; the SDKs yield the
// recording, nothing more.
func TestSDKsIgnoreHeartbeats(t *testing.T) {
	jstest.Dir(t)
	tg := startGateway(t, func(c *Config) { c.File.Heartbeat = 2 * time.Millisecond })
	var mu sync.Mutex
	beats := map[string]chan struct{}{}
	beatOf := func(model string) chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		if beats[model] == nil {
			beats[model] = make(chan struct{})
		}
		return beats[model]
	}
	tg.wrap(func(inner http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			model := map[string]string{"/v1/chat/completions": "weather-chat", "/v1/responses": "weather-responses", "/v1/messages": "weather-messages"}[r.URL.Path]
			inner.ServeHTTP(heartbeatSpy{ResponseWriter: w, once: new(sync.Once), beat: beatOf(model)}, r)
		})
	})
	tg.fake.gate = func(model string, pos int) {
		if pos == 2 {
			<-beatOf(model)
		}
	}
	res := runSDK(t, tg, []string{"chat-stream", "responses-stream", "messages-stream"})
	for _, c := range passthroughCases {
		t.Run(string(c.api), func(t *testing.T) {
			sameJSON(t, res[string(c.api)+"-stream"]["events"], frames(t, c.api, c.model))
		})
	}
}

// TestSDKsListModelsEmbedAndGetJSONErrors: the SDKs' models.list() gets
// the configured models in their own shape (each bare, and as
// "upstream/model"), retrieve() one or the SDK's
// NotFoundError; embeddings.create() is passed to the OpenAI upstream
// with its key and the model's prefix taken off; a path the gateway does
// not serve is the provider's JSON error, which the SDKs read as their own
// error classes (it was Go's plain-text "404 page not found").
func TestSDKsListModelsEmbedAndGetJSONErrors(t *testing.T) {
	jstest.Dir(t)
	tg := startGateway(t, func(c *Config) {
		c.File.Upstreams[0].Models = []string{"gpt-test", "embed-test"}
		c.File.Upstreams[1].Models = []string{"claude-test"}
	})
	res := runSDK(t, tg, []string{"models", "embeddings", "not-found"})
	var models struct {
		OpenAI, Anthropic []string
		One               string
		Missing           struct {
			Status int
			Name   string
		}
	}
	json.Unmarshal(mustMarshal(res["models"]), &models)
	want := []string{"gpt-test", "openai/gpt-test", "embed-test", "openai/embed-test", "claude-test", "claude/claude-test"}
	if !reflect.DeepEqual(models.OpenAI, want) || !reflect.DeepEqual(models.Anthropic, want) || models.One != "openai/gpt-test" {
		t.Errorf("models: %+v, want %v", models, want)
	}
	if models.Missing.Status != 404 || models.Missing.Name != "NotFoundError" {
		t.Errorf("retrieve of a model not configured: %+v", models.Missing)
	}
	var emb struct {
		Embedding []float64
		Model     string
	}
	json.Unmarshal(mustMarshal(res["embeddings"]), &emb)
	if !reflect.DeepEqual(emb.Embedding, []float64{0.25, -0.5}) || emb.Model != "embed-test" {
		t.Errorf("embeddings: %+v", emb)
	}
	type failure struct {
		Status int
		Name   string
		Type   string
	}
	for sdk, want := range map[string]failure{
		"openai":    {404, "NotFoundError", "invalid_request_error"},
		"anthropic": {404, "NotFoundError", "not_found_error"},
		"method":    {405, "APIError", "invalid_request_error"},
	} {
		var f failure
		json.Unmarshal(res["not-found"][sdk], &f)
		if f != want {
			t.Errorf("not served (%s): %+v, want %+v", sdk, f, want)
		}
	}
}

func mustMarshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
