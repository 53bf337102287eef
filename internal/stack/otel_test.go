package stack

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/fakeup"
	"github.com/toolstream/toolstream/internal/gateway"
	"github.com/toolstream/toolstream/internal/telemetry"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/registry"
)

// otlpReceiver is an OTLP/HTTP trace receiver: it decodes each export
// (POST /v1/traces, application/x-protobuf) with the protocol's own types
// and keeps the spans.
type otlpReceiver struct {
	*httptest.Server
	mu      sync.Mutex
	spans   []*tracepb.Span
	service []string // service.name of each export's resource
}

func startOTLPReceiver(t *testing.T) *otlpReceiver {
	rcv := &otlpReceiver{}
	rcv.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/traces" || r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("OTLP receiver: %s %s (%s)", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
			http.Error(w, "not OTLP/HTTP protobuf traces", http.StatusBadRequest)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			t.Errorf("OTLP receiver: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rcv.mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, a := range rs.GetResource().GetAttributes() {
				if a.Key == "service.name" {
					rcv.service = append(rcv.service, a.Value.GetStringValue())
				}
			}
			for _, ss := range rs.ScopeSpans {
				rcv.spans = append(rcv.spans, ss.Spans...)
			}
		}
		rcv.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	}))
	t.Cleanup(rcv.Close)
	return rcv
}

// Spans returns the spans received so far.
func (r *otlpReceiver) Spans() []*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*tracepb.Span(nil), r.spans...)
}

func (r *otlpReceiver) named(name string) []*tracepb.Span {
	var out []*tracepb.Span
	for _, s := range r.Spans() {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// attrs is a span's attributes as text.
func attrs(s *tracepb.Span) map[string]string {
	m := map[string]string{}
	for _, a := range s.Attributes {
		m[a.Key] = anyValue(a.Value)
	}
	return m
}

func anyValue(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	case *commonpb.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	}
	return v.String()
}

const otelTools = `
tools:
  - name: weather
    description: Current weather for a location.
    input_schema: {type: object, properties: {location: {type: string}}, required: [location], additionalProperties: false}
grants:
  - tenant: acme
    permissions: [weather]
`

// tracedStack is serve's stack exporting to an OTLP receiver, with the
// gateway (a key, client-key, that runs its calls on the server), the
// weather tool and an upstream answering by script.
type tracedStack struct {
	addr   string
	rcv    *otlpReceiver
	s      *Stack
	config func(views, gwAddr string) Config
	mu     sync.Mutex
	ran    int // weather's invocations
}

// weatherRecording is a streamed Chat answer with a weather call
// (DeepSeek's, recorded).
func weatherRecording(t *testing.T) string {
	recording, err := filepath.Abs("../gateway/testdata/openai-chat-deepseek-weather.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return recording
}

func startTracedStack(t *testing.T, ctx context.Context, script fakeup.Script) *tracedStack {
	return startTracedStackWith(t, ctx, script, false)
}

// startTracedStackWith is startTracedStack, recording content
// (--otlp-content) when content is set.
func startTracedStackWith(t *testing.T, ctx context.Context, script fakeup.Script, content bool) *tracedStack {
	ts := &tracedStack{rcv: startOTLPReceiver(t)}
	b := bustest.Start(t)
	up := fakeup.Start(t, script)
	dir := t.TempDir()
	gwFile := filepath.Join(dir, "gateway.yaml")
	yaml := fmt.Sprintf("upstreams:\n  - {name: openai, kind: openai, base_url: %q, api_key: up}\nkeys:\n  - {key_sha256: %s, tenant: acme, execute: true}\n",
		up.URL+"/v1", gateway.HashKey("client-key"))
	if err := os.WriteFile(gwFile, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	toolsFile := filepath.Join(dir, "tools.yaml")
	if err := os.WriteFile(toolsFile, []byte(otelTools), 0o600); err != nil {
		t.Fatal(err)
	}
	key, err := registry.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	weather := executor.ToolFunc(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
		ts.mu.Lock()
		ts.ran++
		ts.mu.Unlock()
		return json.RawMessage(`{"temperature_c":18}`), nil
	})
	ts.config = func(views, gwAddr string) Config {
		gw := Gateway{}
		if gwAddr != "" {
			gw = Gateway{Addr: gwAddr, ConfigFile: gwFile}
		}
		return Config{Bus: b, ViewsDir: views, ToolsFile: toolsFile, SigningKey: key,
			Projections: Projections{Trust: key.Trust()},
			Executor:    executor.Config{Tools: map[string]executor.Tool{"weather": weather}, Heartbeat: 100 * time.Millisecond},
			Gateway:     gw,
			Tracing:     telemetry.Config{Endpoint: ts.rcv.URL, BatchTimeout: 50 * time.Millisecond, Content: content}}
	}
	ts.addr = freeAddr(t)
	if ts.s, err = Start(ctx, ts.config(t.TempDir(), ts.addr)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ts.s.Stop)
	return ts
}

// post sends body to the gateway's Chat endpoint with client-key and
// header (name, value pairs) until it answers, and returns the answer.
func (ts *tracedStack) post(t *testing.T, ctx context.Context, body string, header ...string) string {
	for {
		req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+ts.addr+"/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer client-key")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			out, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("the gateway answered %d: %s", resp.StatusCode, out)
			}
			return string(out)
		}
		if ctx.Err() != nil {
			t.Fatalf("the gateway never answered: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitSpans waits until the receiver holds n spans of each name.
func (ts *tracedStack) waitSpans(t *testing.T, ctx context.Context, want map[string]int) {
	for {
		ok := true
		for name, n := range want {
			if len(ts.rcv.named(name)) < n {
				ok = false
			}
		}
		if ok {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("spans received: %v, want %v", spanNames(ts.rcv.Spans()), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTracesCrossTheLog runs serve's stack with --otlp-endpoint at an
// OTLP/HTTP receiver (the protocol's official protobuf types decode
// what the SDK's exporter sends): the gateway (a key that runs its calls
// on the server), the assembler and the executor on an embedded server,
// and a client that traces itself (its traceparent on the request). A
// streamed Chat answer with a weather call (a recording of DeepSeek's)
// makes two spans:
//
//   - "chat deepseek-reasoner", a child of the client's span, with the
//     GenAI attributes (operation chat, provider openai, the request's
//     model, the response id, the usage 339/83) and the time to the
//     first chunk (an event and an attribute);
//   - "execute_tool weather" (operation execute_tool, the tool's name,
//     the call's id), a child of the chat span, in its trace: the
//     executor knows it only from the traceparent the gateway's model
//     events carried in their NATS headers and the assembler relayed on
//     the CallCompleted. No arguments or result in it (content is off).
//
// Then the stack is served again from the same log with every view
// rebuilt from sequence 1 (a replay of every projection, the assembler
// emitting the call again, which the log drops as a duplicate): it emits
// no span, and the tool ran once.
func TestTracesCrossTheLog(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	recording := weatherRecording(t)
	ts := startTracedStack(t, ctx, func(n int, path string, body []byte) (fakeup.Answer, error) {
		return fakeup.Answer{File: recording}, nil
	})
	rcv, s, b := ts.rcv, ts.s, ts.config("", "").Bus
	durations := operationCount(t)
	const clientTrace, clientSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	body := `{"model":"deepseek-reasoner","stream":true,"messages":[{"role":"user","content":"weather in San Francisco?"}]}`
	ts.post(t, ctx, body, "traceparent", "00-"+clientTrace+"-"+clientSpan+"-01")
	ts.waitSpans(t, ctx, map[string]int{"execute_tool weather": 1, "chat deepseek-reasoner": 1})
	chats, execs := rcv.named("chat deepseek-reasoner"), rcv.named("execute_tool weather")
	if len(chats) != 1 || len(execs) != 1 {
		t.Fatalf("%d chat spans and %d execute_tool spans, want one each", len(chats), len(execs))
	}
	chat, exec := chats[0], execs[0]
	if got := hex.EncodeToString(chat.TraceId); got != clientTrace {
		t.Errorf("the chat span's trace is %s, want the client's %s", got, clientTrace)
	}
	if got := hex.EncodeToString(chat.ParentSpanId); got != clientSpan {
		t.Errorf("the chat span's parent is %s, want the client's span %s", got, clientSpan)
	}
	if chat.Kind != tracepb.Span_SPAN_KIND_CLIENT {
		t.Errorf("the chat span is %v, want a client span", chat.Kind)
	}
	ca := attrs(chat)
	for k, want := range map[string]string{
		"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "deepseek-reasoner",
		"gen_ai.response.id": "cca85624-4056-401f-b220-d77601d1f70d-1", "gen_ai.usage.input_tokens": "339", "gen_ai.usage.output_tokens": "83",
	} {
		if ca[k] != want {
			t.Errorf("chat span: %s = %q, want %q", k, ca[k], want)
		}
	}
	if _, ok := ca["gen_ai.response.time_to_first_chunk"]; !ok || len(chat.Events) != 1 || chat.Events[0].Name != "gen_ai.first_chunk" {
		t.Errorf("chat span: no time to first chunk (attributes %v, events %v)", ca, chat.Events)
	}
	if _, ok := ca["error.type"]; ok {
		t.Errorf("chat span: error.type %q on a good answer", ca["error.type"])
	}
	if string(exec.TraceId) != string(chat.TraceId) || string(exec.ParentSpanId) != string(chat.SpanId) {
		t.Errorf("execute_tool span: trace %x parent %x, want the chat span's trace %x and the chat span %x as parent",
			exec.TraceId, exec.ParentSpanId, chat.TraceId, chat.SpanId)
	}
	ea := attrs(exec)
	for k, want := range map[string]string{
		"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "weather", "gen_ai.tool.call.id": "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF",
	} {
		if ea[k] != want {
			t.Errorf("execute_tool span: %s = %q, want %q", k, ea[k], want)
		}
	}
	for _, k := range []string{"gen_ai.tool.call.arguments", "gen_ai.tool.call.result"} {
		if v, ok := ea[k]; ok {
			t.Errorf("execute_tool span: %s = %q without content opted in", k, v)
		}
	}
	if n := operationCount(t) - durations; n != 1 {
		t.Errorf("gen_ai_client_operation_duration_seconds{chat,openai,other,\"\"} counted %d requests, want 1", n)
	}
	if len(rcv.service) == 0 || rcv.service[0] != "toolstream" {
		t.Errorf("service.name %v, want toolstream", rcv.service)
	}
	// Everything is in the log and every span out: stop, and count.
	asm, ok := s.Runner(assembler.Name)
	if !ok {
		t.Fatal("no assembler")
	}
	if err := asm.WaitRelayed(ctx); err != nil {
		t.Fatal(err)
	}
	s.Stop() // flushes
	before := len(rcv.Spans())

	// The replay: every view rebuilt from sequence 1 by a stack with
	// tracing on; no gateway request.
	s2, err := Start(ctx, ts.config(t.TempDir(), ""))
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Stop()
	last, err := b.LastSeq(ctx, events.StreamModel)
	if err != nil {
		t.Fatal(err)
	}
	asm2, ok := s2.Runner(assembler.Name)
	if !ok {
		t.Fatal("no assembler in the replay")
	}
	if err := asm2.WaitFor(ctx, last); err != nil {
		t.Fatal(err)
	}
	if err := asm2.WaitRelayed(ctx); err != nil {
		t.Fatal(err)
	}
	s2.Stop() // flushes whatever the replay emitted
	if after := rcv.Spans(); len(after) != before {
		t.Errorf("the replay emitted %d spans: %v", len(after)-before, spanNames(after[before:]))
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.ran != 1 {
		t.Errorf("weather ran %d times, want once", ts.ran)
	}
}

func spanNames(spans []*tracepb.Span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

// operationCount is how many model requests the gateway's
// gen_ai_client_operation_duration_seconds histogram counted for chat to
// openai, model other (no price or pool names it), without error.
func operationCount(t *testing.T) uint64 {
	reg := prometheus.NewRegistry()
	reg.MustRegister(gateway.Collectors()...)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "gen_ai_client_operation_duration_seconds" {
			continue
		}
		for _, m := range mf.Metric {
			l := map[string]string{}
			for _, p := range m.Label {
				l[p.GetName()] = p.GetValue()
			}
			if l["gen_ai_operation_name"] == "chat" && l["gen_ai_provider_name"] == "openai" && l["gen_ai_request_model"] == "other" && l["error_type"] == "" {
				return m.GetHistogram().GetSampleCount()
			}
		}
	}
	return 0
}

// TestRunIsOneTrace: a run-mode request (Toolstream-Mode: run) is one
// trace: an invoke_agent span, its two rounds' chat spans its children
// (the first asks for the weather, the second answers), and the weather
// call's execute_tool span the child of the round that produced it. The
// run's next turn, another request, is another invoke_agent root in the
// same trace.
func TestRunIsOneTrace(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	recording := weatherRecording(t)
	ts := startTracedStackWith(t, ctx, func(n int, path string, body []byte) (fakeup.Answer, error) {
		if n == 1 {
			return fakeup.Answer{File: recording}, nil
		}
		return fakeup.Answer{Status: http.StatusOK, Body: strings.Replace(chatAnswer, "chatcmpl-cap", fmt.Sprintf("chatcmpl-%d", n), 1)}, nil
	}, true)
	ts.post(t, ctx, `{"model":"deepseek-reasoner","messages":[{"role":"user","content":"weather in San Francisco?"}]}`,
		gateway.HeaderMode, "run", gateway.HeaderRun, "trace-1")
	ts.waitSpans(t, ctx, map[string]int{"invoke_agent": 1, "chat deepseek-reasoner": 2, "execute_tool weather": 1})
	root := ts.rcv.named("invoke_agent")[0]
	if len(root.ParentSpanId) != 0 {
		t.Errorf("invoke_agent has a parent %x", root.ParentSpanId)
	}
	if a := attrs(root); a["gen_ai.operation.name"] != "invoke_agent" || a["toolstream.run"] == "" {
		t.Errorf("invoke_agent's attributes %v", a)
	}
	rounds := ts.rcv.named("chat deepseek-reasoner")
	for _, r := range rounds {
		if string(r.TraceId) != string(root.TraceId) || string(r.ParentSpanId) != string(root.SpanId) {
			t.Errorf("a round's span: trace %x parent %x, want invoke_agent's trace %x and it as parent", r.TraceId, r.ParentSpanId, root.TraceId)
		}
	}
	exec := ts.rcv.named("execute_tool weather")[0]
	var producer *tracepb.Span
	for _, r := range rounds {
		if attrs(r)["gen_ai.response.id"] == attrs(exec)["gen_ai.response.id"] {
			producer = r
		}
	}
	if producer == nil || string(exec.ParentSpanId) != string(producer.SpanId) || string(exec.TraceId) != string(root.TraceId) {
		t.Errorf("execute_tool's parent %x (response %s) is not the round that produced the call", exec.ParentSpanId, attrs(exec)["gen_ai.response.id"])
	}
	// Content is opted in here (--otlp-content): the call's arguments and
	// result are on its span.
	var args map[string]string
	if err := json.Unmarshal([]byte(attrs(exec)["gen_ai.tool.call.arguments"]), &args); err != nil || args["location"] != "San Francisco" {
		t.Errorf("execute_tool's arguments %q (%v), want the call's", attrs(exec)["gen_ai.tool.call.arguments"], err)
	}
	if got := attrs(exec)["gen_ai.tool.call.result"]; got != `{"temperature_c":18}` {
		t.Errorf("execute_tool's result %q", got)
	}
	// A new turn of the run is another request: its invoke_agent span is
	// in the run's trace too (the trace id is the run's).
	ts.post(t, ctx, `{"model":"deepseek-reasoner","messages":[{"role":"user","content":"weather in San Francisco?"},{"role":"assistant","content":"Sunny."},{"role":"user","content":"thanks"}]}`,
		gateway.HeaderMode, "run", gateway.HeaderRun, "trace-1")
	ts.waitSpans(t, ctx, map[string]int{"invoke_agent": 2})
	for _, r := range ts.rcv.named("invoke_agent") {
		if string(r.TraceId) != string(root.TraceId) || len(r.ParentSpanId) != 0 {
			t.Errorf("the run's requests: invoke_agent spans in traces %x and %x", root.TraceId, r.TraceId)
		}
	}
}

// TestFailedModelRequestSpan: an upstream that answers an error (400, not
// retried) makes a chat span with error.type "400" and an error status,
// and the operation histogram counts it under that error type.
func TestFailedModelRequestSpan(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ts := startTracedStack(t, ctx, func(n int, path string, body []byte) (fakeup.Answer, error) {
		return fakeup.Answer{Status: http.StatusBadRequest, Body: `{"error":{"message":"bad","type":"invalid_request_error"}}`}, nil
	})
	for {
		req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+ts.addr+"/v1/chat/completions", strings.NewReader(`{"model":"gpt-4o","messages":[]}`))
		req.Header.Set("Authorization", "Bearer client-key")
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("the gateway answered %d, want the upstream's 400", resp.StatusCode)
			}
			break
		}
		if ctx.Err() != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.waitSpans(t, ctx, map[string]int{"chat gpt-4o": 1})
	sp := ts.rcv.named("chat gpt-4o")[0]
	if a := attrs(sp); a["error.type"] != "400" || a["http.response.status_code"] != "400" || sp.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("the failed request's span: %v, status %v", a, sp.Status)
	}
	if _, ok := attrs(sp)["gen_ai.response.id"]; ok {
		t.Errorf("a failed request's span has a response id")
	}
}

// TestMemorySpans: with tracing on, a recall through the memory service
// is a search_memory span and a forget a delete_memory span, each a
// child of the traceparent its request carried in its NATS headers (a
// forget is a tombstone, applied even for a record the user never had);
// an observe without a record id is an update_memory span with
// error.type bad_request.
func TestMemorySpans(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ts := startTracedStack(t, ctx, func(n int, path string, body []byte) (fakeup.Answer, error) {
		return fakeup.Answer{Status: http.StatusOK, Body: chatAnswer}, nil
	})
	nc := ts.config("", "").Bus.Conn
	const parentTrace, parentSpan = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	ask := func(verb, op string) {
		m := nats.NewMsg(memory.ServicePrefix + "." + verb)
		m.Data = []byte(op)
		m.Header.Set("traceparent", "00-"+parentTrace+"-"+parentSpan+"-01")
		for {
			if _, err := nc.RequestMsgWithContext(ctx, m); err == nil || ctx.Err() != nil {
				return
			}
			time.Sleep(20 * time.Millisecond) // the service may not be up yet
		}
	}
	ask("recall", `{"tenant":"acme","user":"u1","query":"what is my favourite tea?","k":5}`)
	ask("forget", `{"tenant":"acme","user":"u1","id":"mem_never"}`)
	ask("observe", `{"tenant":"acme","user":"u1","kind":"preference","subject":"tea","value":"sencha"}`)
	ts.waitSpans(t, ctx, map[string]int{"search_memory": 1, "delete_memory": 1, "update_memory": 1})
	for _, name := range []string{"search_memory", "delete_memory", "update_memory"} {
		sp := ts.rcv.named(name)[0]
		if hex.EncodeToString(sp.TraceId) != parentTrace || hex.EncodeToString(sp.ParentSpanId) != parentSpan {
			t.Errorf("%s: trace %x parent %x, want the request's %s %s", name, sp.TraceId, sp.ParentSpanId, parentTrace, parentSpan)
		}
		a := attrs(sp)
		if a["gen_ai.operation.name"] != name || a["toolstream.tenant"] != "acme" {
			t.Errorf("%s: attributes %v", name, a)
		}
		if name == "search_memory" && a["toolstream.memory.results"] != "0" {
			t.Errorf("search_memory: results %q, want 0", a["toolstream.memory.results"])
		}
		if want := map[string]string{"update_memory": "bad_request"}[name]; a["error.type"] != want {
			t.Errorf("%s: error.type %q, want %q", name, a["error.type"], want)
		}
	}
}
