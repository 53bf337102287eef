package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/agent/agenttest"
	"github.com/toolstream/toolstream/internal/jstest"
	"github.com/toolstream/toolstream/internal/mcp"
	"github.com/toolstream/toolstream/registry"
)

const (
	keyA   = "key-of-acme"                // tenant acme
	keyB   = "key-of-globex"              // tenant globex
	keyBob = "key-of-acme-without-a-user" // tenant acme, the user from Toolstream-User
)

// toolsYAML: agenttest's tools (weather, refund waiting for approval,
// slow) with an output schema on weather, a dotted name, a tool only
// globex is granted, and two tools of an MCP server built with the
// TypeScript SDK (TSURL; a closed port when node is not there).
const toolsYAML = `
tools:
  - name: weather
    description: Current weather for a location.
    input_schema: {type: object, properties: {location: {type: string}}, required: [location], additionalProperties: false}
    output_schema: {type: object, properties: {location: {type: string}, temperature_c: {type: number}}, required: [location]}
    side_effect: none
  - name: refund
    description: Refund an order.
    input_schema: {type: object, properties: {order_id: {type: string}}, required: [order_id]}
    idempotency: required
    side_effect: irreversible
    approval: required
  - name: slow
    description: A tool that takes its time.
    input_schema: {type: object, properties: {n: {type: integer}}}
  - name: weather.forecast
    description: Tomorrow's weather.
  - name: payroll
    description: Globex's payroll.
  - name: ts.echo
    description: Echo, by an MCP server.
    input_schema: {type: object, properties: {text: {type: string}}, required: [text]}
    side_effect: none
    mcp: {url: "TSURL", tool: echo, headers: {Authorization: "Bearer ${env:TS_TOKEN}"}}
  - name: ts.fail
    side_effect: none
    mcp: {url: "TSURL", tool: fail, headers: {Authorization: "Bearer ${env:TS_TOKEN}"}}
grants:
  - tenant: acme
    permissions: [weather, refund, slow, weather.forecast, ts.echo, ts.fail]
  - tenant: globex
    permissions: [payroll]
`

type testServer struct {
	p   *agenttest.Pipeline
	c   *client.Client
	url string // .../mcp
	// told is closed once the server has sent a client a progress
	// notification saying a call waits for an approval.
	told     chan struct{}
	tellOnce sync.Once
}

// sniffer passes a response on and notes a progress notification about an
// approval in it.
type sniffer struct {
	http.ResponseWriter
	ts *testServer
}

func (s sniffer) Write(b []byte) (int, error) {
	if strings.Contains(string(b), "notifications/progress") && strings.Contains(string(b), "approve") {
		s.ts.tellOnce.Do(func() { close(s.ts.told) })
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.NewResponseController reach the connection (read
// deadlines).
func (s sniffer) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (s sniffer) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// start runs the pipeline, the registry of toolsYAML and an MCP server
// over it (pages of two tools, short waits), its Config changed by mut.
func start(t *testing.T, tsURL string, mut ...func(*mcp.Config)) *testServer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p := agenttest.Start(t)
	if tsURL == "" {
		tsURL = "http://127.0.0.1:1/mcp"
	}
	reg, err := registry.Parse([]byte(strings.ReplaceAll(toolsYAML, "TSURL", tsURL)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := registry.Publish(ctx, registry.PublishConfig{JS: p.B.JS, Key: p.Key, Source: "mcp_test"}, reg); err != nil {
		t.Fatal(err)
	}
	if err := p.Follower.Wait(ctx, reg.Digest()); err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(ctx, client.WithConn(p.B.Conn), client.WithKeys(p.B.Keys), client.WithMsgIDKey(p.B.MsgIDKey()))
	if err != nil {
		t.Fatal(err)
	}
	cfg := mcp.Config{
		Keys:     map[string]mcp.Key{mcp.HashKey(keyA): {Tenant: "acme", User: "alice"}, mcp.HashKey(keyB): {Tenant: "globex"}, mcp.HashKey(keyBob): {Tenant: "acme"}},
		Registry: p.Follower.Current, Client: c, PageSize: 2, ProgressEvery: 200 * time.Millisecond, Poll: 50 * time.Millisecond,
	}
	for _, m := range mut {
		m(&cfg)
	}
	s, err := mcp.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{p: p, c: c, told: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.ServeHTTP(sniffer{w, ts}, r) }))
	t.Cleanup(srv.Close)
	ts.url = srv.URL + mcp.Path
	return ts
}

// approveAll approves every call of acme that asks, once the server told
// a client that a call waits for it, until the test ends.
func (ts *testServer) approveAll(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		for a, err := range ts.c.Approvals(ctx, "acme", client.Follow()) {
			if err != nil {
				continue
			}
			select {
			case <-ts.told:
			case <-ctx.Done():
				return
			}
			ts.c.Approve(ctx, "acme", a.Key, client.By("mcp_test"))
		}
	}()
}

// bearer adds a key to every request of a Go SDK client.
type bearer struct{ key string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return http.DefaultTransport.RoundTrip(r)
}

func connect(t *testing.T, url, key string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "go-test", Version: "1"}, opts)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{key}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func text(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TestGoClientListsAndCalls: the official Go SDK as the client (2026-07-28,
// server/discover): tools/list in pages of two has acme's six tools, by
// their wire names, the dotted one titled with its own name, weather with
// its output schema; a call runs through the log (the executor's weather
// ran once) and answers its result as structuredContent and text; a call
// whose arguments miss a field is an error result saying which; a tool
// acme is not granted is -32602; a refund waits for its approval with
// progress notifications, then answers.
func TestGoClientListsAndCalls(t *testing.T) {
	ts := start(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var mu sync.Mutex
	var progress []string
	cs := connect(t, ts.url, keyA, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		progress = append(progress, r.Params.Message)
		mu.Unlock()
	}})
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Errorf("the Go SDK negotiated %s, want 2026-07-28", v)
	}
	var names []string
	pages := 0
	var weather *sdk.Tool
	for cursor := ""; ; {
		res, err := cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
			if tool.Name == "weather" {
				weather = tool
			}
			if tool.Name == "weather__forecast" && tool.Title != "weather.forecast" {
				t.Errorf("weather__forecast's title %q, want weather.forecast", tool.Title)
			}
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	want := "refund slow ts__echo ts__fail weather weather__forecast"
	if got := strings.Join(names, " "); got != want || pages != 3 {
		t.Errorf("tools/list: %s in %d pages, want %s in 3", got, pages, want)
	}
	if weather == nil || weather.OutputSchema == nil || !weather.Annotations.ReadOnlyHint {
		t.Errorf("weather as listed: %+v", weather)
	}

	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "weather", Arguments: map[string]any{"location": "Paris"}})
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := json.Marshal(res.StructuredContent)
	if res.IsError || string(sc) != `{"location":"Paris","temperature_c":18}` || text(res) != string(sc) {
		t.Errorf("weather: isError %v, structured %s, text %q", res.IsError, sc, text(res))
	}
	if n := ts.p.Invoked["weather"].Load(); n != 1 {
		t.Errorf("weather ran %d times, want 1", n)
	}

	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "weather", Arguments: map[string]any{"city": "Paris"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), "rejected") || !strings.Contains(text(res), "location") {
		t.Errorf("weather without a location: isError %v, %q; want an error result naming location", res.IsError, text(res))
	}

	_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "payroll", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "-32602") && !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("payroll (globex's): %v, want -32602 unknown tool", err)
	}

	ts.approveAll(t)
	params := &sdk.CallToolParams{Name: "refund", Arguments: map[string]any{"order_id": "A1"}}
	params.SetProgressToken("refund-1")
	res, err = cs.CallTool(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !strings.Contains(text(res), "refunded") || ts.p.Invoked["refund"].Load() != 1 {
		t.Errorf("refund: isError %v, %q, ran %d times", res.IsError, text(res), ts.p.Invoked["refund"].Load())
	}
	// The SDK hands notifications to the handler on a goroutine of their
	// own: the one the server sent before its answer may land after it.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		said := strings.Join(progress, "\n")
		mu.Unlock()
		if strings.Contains(said, "approve") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no progress notification said the call waits for an approval: %q", said)
		}
	}
}

// runNode runs client.mjs's scenarios.
func runNode(t *testing.T, ts *testServer, scenarios ...string) map[string]json.RawMessage {
	t.Helper()
	script, err := filepath.Abs("testdata/client.mjs")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out := jstest.Node(ctx, t, []string{"MCP_URL=" + ts.url, "KEY_A=" + keyA, "KEY_B=" + keyB}, append([]string{script}, scenarios...)...)
	var res map[string]json.RawMessage
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return res
}

// needMCPSDK skips (or fails, under TOOLSTREAM_REQUIRE_NODE=1) without
// node and the MCP TypeScript SDK in testdata/js.
func needMCPSDK(t *testing.T) string {
	t.Helper()
	dir := jstest.Dir(t)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		if os.Getenv("TOOLSTREAM_REQUIRE_NODE") == "1" {
			t.Fatal("@modelcontextprotocol/sdk is not installed (npm ci --prefix testdata/js), and TOOLSTREAM_REQUIRE_NODE=1")
		}
		t.Skip("skipped: @modelcontextprotocol/sdk is not installed (npm ci --prefix testdata/js); set TOOLSTREAM_REQUIRE_NODE=1 to make this a failure")
	}
	return dir
}

type tsResult struct {
	Content []struct {
		Type, Text string
	}
	StructuredContent json.RawMessage
	IsError           bool
}

func (r tsResult) text() string {
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

// TestTypeScriptClient: the official TypeScript SDK (2025-11-25,
// initialize) as the client: tools/list follows the cursor through three
// pages; weather answers structuredContent (which the SDK checks against
// the output schema) and text; wrong arguments are an error result
// naming the field; globex's tool is McpError -32602 to acme; a refund
// waits for its approval with progress notifications, then answers; no
// key gets 401 (the SDK's error carries it); globex's key lists its one
// tool and gets McpError -32602 for acme's weather, which never runs for it.
func TestTypeScriptClient(t *testing.T) {
	needMCPSDK(t)
	ts := start(t, "")
	ts.approveAll(t)
	res := runNode(t, ts, "list", "call", "invalid", "unknown", "approval", "noKey", "otherTenant")

	var list struct {
		Pages           int
		ProtocolVersion string
		Tools           []struct {
			Name, Title  string
			InputSchema  map[string]any
			OutputSchema map[string]any
		}
	}
	json.Unmarshal(res["list"], &list)
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema["type"] != "object" {
			t.Errorf("%s's input schema %v", tool.Name, tool.InputSchema)
		}
	}
	if got := strings.Join(names, " "); got != "refund slow ts__echo ts__fail weather weather__forecast" || list.Pages != 3 {
		t.Errorf("list: %s in %d pages", got, list.Pages)
	}
	if list.ProtocolVersion != "2025-11-25" {
		t.Errorf("the TypeScript SDK negotiated %q, want 2025-11-25", list.ProtocolVersion)
	}

	var call tsResult
	json.Unmarshal(res["call"], &call)
	if call.IsError || string(call.StructuredContent) != `{"location":"Paris","temperature_c":18}` {
		t.Errorf("call: %s", res["call"])
	}
	var invalid tsResult
	json.Unmarshal(res["invalid"], &invalid)
	if !invalid.IsError || !strings.Contains(invalid.text(), "location") {
		t.Errorf("invalid: %s", res["invalid"])
	}
	var unknown struct {
		Name    string
		Code    int
		Message string
	}
	json.Unmarshal(res["unknown"], &unknown)
	if unknown.Code != -32602 || unknown.Name != "McpError" {
		t.Errorf("unknown: %s, want McpError -32602", res["unknown"])
	}
	var approval struct {
		Result   tsResult
		Progress []struct{ Message string }
	}
	json.Unmarshal(res["approval"], &approval)
	said := ""
	for _, p := range approval.Progress {
		said += p.Message + "\n"
	}
	if approval.Result.IsError || !strings.Contains(approval.Result.text(), "refunded") || !strings.Contains(said, "approve") {
		t.Errorf("approval: %s", res["approval"])
	}
	if !strings.Contains(string(res["noKey"]), "401") {
		t.Errorf("no key: %s, want a 401", res["noKey"])
	}
	// globex's key with the same SDK: its one tool, and acme's weather is
	// an unknown tool.
	var other struct {
		Tools []struct{ Name string }
		Call  struct {
			Name string
			Code int
		}
	}
	json.Unmarshal(res["otherTenant"], &other)
	if len(other.Tools) != 1 || other.Tools[0].Name != "payroll" || other.Call.Name != "McpError" || other.Call.Code != -32602 {
		t.Errorf("globex's key: %s, want payroll only and McpError -32602 for weather", res["otherTenant"])
	}
	if n := ts.p.Invoked["weather"].Load(); n != 1 {
		t.Errorf("weather ran %d times, want once (acme's call; never globex's)", n)
	}
}

// TestTypeScriptServerBehindATool: a tool whose contract says mcp: {url}
// of a server built with the TypeScript SDK, called by the TypeScript
// client through Toolstream's server: the call goes client → Toolstream →
// the log → the executor → the TS server and back. The TS server sees
// the idempotency key in _meta and the Idempotency-Key header; calling
// again with the client's same key answers the same outcome and the TS
// server runs it once; the TS server's error result comes back an error
// result with its text. Imported whole (tools import-mcp), its two tools
// are contracts the registry takes.
func TestTypeScriptServerBehindATool(t *testing.T) {
	dir := needMCPSDK(t)
	t.Setenv("TS_TOKEN", "ts-secret")
	script, _ := filepath.Abs("testdata/server.mjs")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TS_TOKEN=ts-secret")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cancel()
	lines := bufio.NewScanner(stdout)
	var first struct{ Port int }
	if !lines.Scan() || json.Unmarshal(lines.Bytes(), &first) != nil || first.Port == 0 {
		t.Fatalf("the TS server did not say its port: %q", lines.Text())
	}
	var mu sync.Mutex
	var calls []map[string]any
	go func() {
		for lines.Scan() {
			var m map[string]any
			json.Unmarshal(lines.Bytes(), &m)
			mu.Lock()
			calls = append(calls, m)
			mu.Unlock()
		}
		io.Copy(io.Discard, stdout)
	}()
	tsURL := fmt.Sprintf("http://127.0.0.1:%d/mcp", first.Port)
	// The whole TS server imported under a prefix: its tools (zod's
	// draft-07 schemas) are contracts the registry takes.
	file, err := mcp.Import(ctx, mcp.ImportConfig{URL: tsURL, Prefix: "ts", Headers: map[string]string{"Authorization": "Bearer ${env:TS_TOKEN}"}})
	if err != nil {
		t.Fatal(err)
	}
	if reg, err := registry.Parse(file); err != nil || len(reg.Tools()) != 2 || reg.Tools()[0].Name != "ts.echo" || reg.Tools()[1].MCP.Tool != "fail" {
		t.Errorf("the TS server imported: %v\n%s", err, file)
	}
	ts := start(t, tsURL)
	res := runNode(t, ts, "proxied")
	var proxied struct{ First, Again, Failed tsResult }
	json.Unmarshal(res["proxied"], &proxied)
	var echo struct{ Echo, Key string }
	json.Unmarshal(proxied.First.StructuredContent, &echo)
	if proxied.First.IsError || echo.Echo != "hello" || !strings.HasPrefix(echo.Key, "acme/") {
		t.Errorf("first: %s", res["proxied"])
	}
	if string(proxied.Again.StructuredContent) != string(proxied.First.StructuredContent) {
		t.Errorf("again with the same key: %s, want the first's %s", proxied.Again.StructuredContent, proxied.First.StructuredContent)
	}
	if !proxied.Failed.IsError || !strings.Contains(proxied.Failed.text(), "the order is locked") {
		t.Errorf("failed: %+v", proxied.Failed)
	}
	mu.Lock()
	defer mu.Unlock()
	echoes := 0
	for _, c := range calls {
		if c["tool"] == "echo" {
			echoes++
			if c["key"] != echo.Key || c["header"] != echo.Key {
				t.Errorf("the TS server saw %v, want the key %s in _meta and the header", c, echo.Key)
			}
		}
	}
	if echoes != 1 {
		t.Errorf("the TS server ran echo %d times for one key, want once: %v", echoes, calls)
	}
}
