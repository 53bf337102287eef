package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestMCPTool: a contract's mcp implementation calls the tool of an MCP
// server (the official Go SDK's Streamable HTTP server here; the
// TypeScript SDK's in internal/mcp's tests) through the executor: the
// arguments arrive as the call's, the idempotency key in _meta and in the
// Idempotency-Key header of every request of the call, the contract's
// header with its reference resolved; a structured result is the call's
// result, a text one {"content": [...]}, an error result a tool_error
// with its text, a tool the server does not list a tool_error naming it,
// a server that is down unavailable. The secret the header carried is in
// no event.
func TestMCPTool(t *testing.T) {
	t.Setenv("MCP_TOKEN", "s3cret-token")
	var mu sync.Mutex
	keys := map[string]int{}        // _meta idempotency key → calls
	headerKeys := map[string]bool{} // Idempotency-Key headers seen
	srv := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "refund", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			key, _ := req.Params.Meta[executor.MetaIdempotencyKey].(string)
			mu.Lock()
			keys[key]++
			mu.Unlock()
			var args struct {
				OrderID string `json:"order_id"`
			}
			json.Unmarshal(req.Params.Arguments, &args)
			switch args.OrderID {
			case "refunded":
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "order already refunded; pick another order"}}}, nil
			case "text":
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
			}
			return &mcp.CallToolResult{StructuredContent: map[string]any{"refunded": args.OrderID, "key": key},
				Content: []mcp.Content{&mcp.TextContent{Text: "refunded " + args.OrderID}}}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret-token" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		mu.Lock()
		headerKeys[r.Header.Get("Idempotency-Key")] = true
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()

	b := bustest.Start(t)
	reg := parseRegistry(t, fmt.Sprintf(`
tools:
  - name: orders.refund
    idempotency: required
    input_schema: {type: object, properties: {order_id: {type: string}}, required: [order_id]}
    mcp: {url: %q, tool: refund, headers: {Authorization: "Bearer ${env:MCP_TOKEN}"}}
  - name: orders.missing
    mcp: {url: %[1]q, tool: nosuch, headers: {Authorization: "Bearer ${env:MCP_TOKEN}"}}
  - name: down
    side_effect: none
    mcp: {url: "http://127.0.0.1:1/mcp", tool: x}
grants:
  - tenant: acme
    permissions: ["*"]
`, ts.URL+"/mcp"))
	startExec(t, b, reg, nil, nil)
	cases := []struct {
		tool, order string
		want        events.ErrorType
		result      string // a success's result, with KEY for the call's key
		message     string // a failure's message contains it
	}{
		{"orders.refund", "o1", "", `{"key":"KEY","refunded":"o1"}`, ""},
		{"orders.refund", "text", "", `{"content":[{"type":"text","text":"done"}]}`, ""},
		{"orders.refund", "refunded", events.ErrToolError, "", "order already refunded; pick another order"},
		{"orders.missing", "x", events.ErrToolError, "", "nosuch"},
		{"down", "x", events.ErrUnavailable, "", "cannot reach the MCP server"},
	}
	for i, c := range cases {
		key := publishCall(t, b, callSpec{tenant: "acme", tool: c.tool, call: fmt.Sprint("m", i), args: fmt.Sprintf(`{"order_id":%q}`, c.order)})
		o := waitOutcome(t, b, "acme", key)
		switch {
		case c.want == "":
			want := strings.ReplaceAll(c.result, "KEY", key)
			if o.ok == nil || string(o.ok.Result) != want {
				t.Errorf("%s %s: %v, want succeeded %s", c.tool, c.order, o, want)
			}
		case o.err == nil || o.err.Error != c.want || !strings.Contains(o.err.Message, c.message):
			t.Errorf("%s %s: %v, want %s containing %q", c.tool, c.order, o, c.want, c.message)
		}
		if c.tool == "orders.refund" {
			mu.Lock()
			n, sawHeader := keys[key], headerKeys[key]
			mu.Unlock()
			if n != 1 || !sawHeader {
				t.Errorf("%s %s: the server saw the key %s %d times in _meta (header: %v), want once", c.tool, c.order, key, n, sawHeader)
			}
		}
	}
	for _, filter := range []string{"ts.result.acme.>", "ts.exec.acme.>"} {
		for _, ev := range all(t, b, filter) {
			data, _ := json.Marshal(ev)
			if strings.Contains(string(data), "s3cret-token") {
				t.Errorf("the secret is in a %s event: %s", ev.Kind, data)
			}
		}
	}
}
