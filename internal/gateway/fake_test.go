package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// The fake upstream stands for the providers: it serves the recorded
// streams of testdata, framed as each provider frames them, checks the
// upstream key the gateway must send, and answers errors in the
// providers' shapes.

const (
	upOpenAIKey    = "sk-upstream-openai"
	upAnthropicKey = "sk-upstream-anthropic"
	clientKey      = "ts-client-key"
	clientKeyAnn   = "ts-client-key-ann"    // bound to user ann
	clientKeyOther = "ts-client-key-globex" // another tenant's
)

// recordings by the model a request names.
var recordings = map[string]string{
	"weather-responses": "testdata/openai-responses-azure-weather.jsonl",
	"weather-chat":      "testdata/openai-chat-deepseek-weather.jsonl",
	"weather-messages":  "testdata/anthropic-weather.jsonl",
	"quota-responses":   "testdata/openai-responses-error-insufficient-quota.jsonl",
}

// sseEvent is one event as written or read on the wire.
type sseEvent struct {
	ID    string
	Event string
	Data  string
}

type fakeUpstream struct {
	t   testing.TB
	srv *httptest.Server
	// gate, when set, is called before each frame is written (pos 0, 1…);
	// it may block. Set it before the first request.
	gate func(model string, pos int)
	// headerGate, when set, is called before a stream's status and headers
	// are written; it may block. Set it before the first request.
	headerGate func(model string)
	// wholeGate, when set, is called before a non-streamed answer is
	// written; it may block. Set it before the first request.
	wholeGate func(model string)

	mu       sync.Mutex
	requests []fakeRequest
}

type fakeRequest struct {
	Path   string
	Header http.Header
	Body   map[string]any
}

func startFake(t testing.TB) *fakeUpstream {
	f := &fakeUpstream{t: t}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// bulkEvents is how many text deltas the "bulk-responses" model streams.
const bulkEvents = 5000

// frames returns the events the fake sends for model on api, as written.
func frames(t testing.TB, api API, model string) []sseEvent {
	t.Helper()
	switch model {
	case "bulk-responses":
		return bulk()
	case "huge-responses":
		return bulkOf(hugeEvents)
	}
	data, err := os.ReadFile(recordings[model])
	if err != nil {
		t.Fatal(err)
	}
	var out []sseEvent
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		ev := sseEvent{Data: line}
		if api != APIChat {
			var p struct{ Type string }
			json.Unmarshal([]byte(line), &p)
			ev.Event = p.Type
		}
		out = append(out, ev)
	}
	if api == APIChat {
		out = append(out, sseEvent{Data: "[DONE]"})
	}
	return out
}

func (f *fakeUpstream) serve(w http.ResponseWriter, r *http.Request) {
	var api API
	switch r.URL.Path {
	case "/v1/chat/completions":
		api = APIChat
	case "/v1/responses":
		api = APIResponses
	case "/v1/messages":
		api = APIMessages
	case "/v1/embeddings":
		f.embed(w, r)
		return
	default:
		http.NotFound(w, r)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		WriteError(w, api, http.StatusBadRequest, "fake: not JSON")
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, fakeRequest{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	f.mu.Unlock()
	if api == APIMessages && r.Header.Get("X-Api-Key") != upAnthropicKey ||
		api != APIMessages && r.Header.Get("Authorization") != "Bearer "+upOpenAIKey {
		WriteError(w, api, http.StatusUnauthorized, "fake: wrong upstream key")
		return
	}
	model, _ := body["model"].(string)
	if model == "overloaded" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, string(ErrorBody(api, http.StatusTooManyRequests, "fake: rate limited")))
		return
	}
	if model == "unconvertible" { // a 200 answer that is no answer of the API
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, unconvertible)
		return
	}
	if _, ok := recordings[model]; !ok && model != "bulk-responses" && model != "huge-responses" {
		WriteError(w, api, http.StatusNotFound, "fake: no model "+strconv.Quote(model))
		return
	}
	if stream, _ := body["stream"].(bool); !stream {
		if f.wholeGate != nil {
			f.wholeGate(model)
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, wholeAnswer(api, model))
		return
	}
	if f.headerGate != nil {
		f.headerGate(model)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Request-Id", "req_fake")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	rc.Flush()
	for i, ev := range frames(f.t, api, model) {
		if f.gate != nil {
			f.gate(model, i)
		}
		if ev.Event != "" {
			fmt.Fprintf(w, "event: %s\n", ev.Event)
		}
		fmt.Fprintf(w, "data: %s\n\n", ev.Data)
		if rc.Flush() != nil {
			return
		}
	}
}

// embed answers an embeddings request: the model it was asked for, one
// vector.
func (f *fakeUpstream) embed(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	json.Unmarshal(raw, &body)
	f.mu.Lock()
	f.requests = append(f.requests, fakeRequest{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	f.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer "+upOpenAIKey {
		WriteError(w, APIChat, http.StatusUnauthorized, "fake: wrong upstream key")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.25,-0.5]}],"model":%q,"usage":{"prompt_tokens":1,"total_tokens":1}}`, body["model"])
}

// hugeEvents is how many text deltas the "huge-responses" model streams:
// more than a client's socket buffers hold (about 10 MB).
const hugeEvents = 60000

// bulk is a long synthetic Responses stream of text deltas, for measuring
// throughput.
func bulk() []sseEvent { return bulkOf(bulkEvents) }

// bulkOf is bulk with n text deltas.
func bulkOf(n int) []sseEvent {
	out := []sseEvent{{Event: "response.created", Data: `{"type":"response.created","sequence_number":0,"response":{"id":"resp_bulk","object":"response","status":"in_progress","model":"bulk","output":[]}}`}}
	out = append(out, sseEvent{Event: "response.output_item.added", Data: `{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_bulk","type":"message","status":"in_progress","role":"assistant","content":[]}}`})
	for i := range n {
		seq := strconv.Itoa(i + 2)
		out = append(out, sseEvent{Event: "response.output_text.delta", Data: `{"type":"response.output_text.delta","sequence_number":` + seq + `,"item_id":"msg_bulk","output_index":0,"content_index":0,"delta":"word` + seq + ` "}`})
	}
	seq := strconv.Itoa(n + 2)
	out = append(out, sseEvent{Event: "response.output_item.done", Data: `{"type":"response.output_item.done","sequence_number":` + seq + `,"output_index":0,"item":{"id":"msg_bulk","type":"message","status":"completed","role":"assistant","content":[]}}`})
	seq = strconv.Itoa(n + 3)
	out = append(out, sseEvent{Event: "response.completed", Data: `{"type":"response.completed","sequence_number":` + seq + `,"response":{"id":"resp_bulk","object":"response","status":"completed","model":"bulk","output":[]}}`})
	return out
}

// wholeAnswer is a non-streamed answer of api: text and one call
// (wholeCall).
func wholeAnswer(api API, model string) string {
	switch api {
	case APIChat:
		return `{"id":"chatcmpl-whole","object":"chat.completion","created":1,"model":"` + model + `","choices":[{"index":0,"message":{"role":"assistant","content":"Sunny.","tool_calls":[{"id":"call_whole_chat","type":"function","function":{"name":"weather","arguments":"{\"location\":\"SF\"}"}}]},"finish_reason":"tool_calls"}]}`
	case APIResponses:
		return `{"id":"resp_whole","object":"response","created_at":1,"status":"completed","model":"` + model + `","output":[{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Sunny.","annotations":[]}]},{"type":"function_call","id":"fc_whole","call_id":"call_whole_responses","name":"weather","arguments":"{\"location\":\"SF\"}","status":"completed"}]}`
	}
	return `{"id":"msg_whole","type":"message","role":"assistant","model":"` + model + `","content":[{"type":"text","text":"Sunny."},{"type":"tool_use","id":"toolu_whole","name":"weather","input":{"location":"SF"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`
}

// unconvertible is the "unconvertible" model's answer: JSON, but no
// answer of any API.
const unconvertible = `{"answer":"not one"}`

// wholeCall is the call id of api's wholeAnswer.
func wholeCall(api API) string {
	switch api {
	case APIChat:
		return "call_whole_chat"
	case APIResponses:
		return "call_whole_responses"
	}
	return "toolu_whole"
}

// testGateway is a gateway on an embedded server in front of the fake.
type testGateway struct {
	*Gateway
	bus     *bus.Bus
	fake    *fakeUpstream
	srv     *httptest.Server
	handler atomic.Pointer[http.Handler] // what srv serves: the gateway, or a test's wrapper of it
}

// wrap makes srv serve wrap(gateway) from now on.
func (tg *testGateway) wrap(wrap func(http.Handler) http.Handler) {
	h := wrap(tg.Gateway)
	tg.handler.Store(&h)
}

func startGateway(t testing.TB, mut func(*Config)) *testGateway {
	t.Helper()
	b := bustest.Start(t)
	fake := startFake(t)
	cfg := Config{JS: b.JS, Keys: b.Keys, File: File{
		Upstreams: []Upstream{
			{Name: "openai", Kind: KindOpenAI, BaseURL: fake.srv.URL + "/v1", APIKey: upOpenAIKey},
			{Name: "claude", Kind: KindAnthropic, BaseURL: fake.srv.URL + "/v1", APIKey: upAnthropicKey},
		},
		Keys: []Key{{SHA256: HashKey(clientKey), Tenant: "acme"}, {SHA256: HashKey(clientKeyAnn), Tenant: "acme", User: "ann"}, {SHA256: HashKey(clientKeyOther), Tenant: "globex"}},
	}}
	if mut != nil {
		mut(&cfg)
	}
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tg := &testGateway{Gateway: g, bus: b, fake: fake}
	tg.serve(t)
	return tg
}

// serve starts tg's HTTP server (srv) in front of its gateway, closed,
// and the gateway's upstream reads waited for, when t ends.
func (tg *testGateway) serve(t testing.TB) {
	var h http.Handler = tg.Gateway
	tg.handler.Store(&h)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*tg.handler.Load()).ServeHTTP(w, r) }))
	tg.srv = srv
	t.Cleanup(func() {
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		tg.Gateway.Wait(ctx)
	})
}

// request is one client request to the gateway.
func (tg *testGateway) request(t testing.TB, method, path, body string, header map[string]string) *http.Response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, tg.srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func bearer(key string) map[string]string { return map[string]string{"Authorization": "Bearer " + key} }

// readSSE reads a client's stream: its events (with their ids) and how
// many comments came between them. stopAfter > 0 stops after that many
// events.
func readSSE(t testing.TB, r io.Reader, stopAfter int) (evs []sseEvent, comments int) {
	t.Helper()
	br := bufio.NewReader(r)
	var cur sseEvent
	var has bool
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return evs, comments
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if has {
				evs = append(evs, cur)
				if stopAfter > 0 && len(evs) == stopAfter {
					return evs, comments
				}
			}
			cur, has = sseEvent{}, false
		case strings.HasPrefix(line, ":"):
			comments++
		default:
			k, v, _ := strings.Cut(line, ":")
			v = strings.TrimPrefix(v, " ")
			switch k {
			case "id":
				cur.ID = v
			case "event":
				cur.Event = v
			case "data":
				if has {
					cur.Data += "\n"
				}
				cur.Data += v
				has = true
			}
		}
	}
}
