package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolstream/toolstream/internal/mcp"
	"github.com/toolstream/toolstream/registry"
)

// TestImport: a whole MCP server (the Go SDK's, listing in pages of two)
// imported under a prefix: each tool a contract PREFIX.NAME with the
// server's schemas and mcp: {url, tool, headers}, the header written as
// its reference (the token it resolved to connect is nowhere in the
// file), every contract irreversible with approval required whatever the
// server hints (the hints in a comment), no grant; a tool whose name the
// registry cannot take is left out with a comment. The file parses as a
// registry.
func TestImport(t *testing.T) {
	t.Setenv("IMPORT_TOKEN", "imp0rt-secret")
	srv := sdk.NewServer(&sdk.Implementation{Name: "orders", Version: "2.1"}, &sdk.ServerOptions{PageSize: 2})
	yes, no := true, false
	handler := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{}, nil
	}
	srv.AddTool(&sdk.Tool{Name: "lookup", Description: "Find an order.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no},
		InputSchema:  map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string"}}, "required": []string{"id"}},
		OutputSchema: map[string]any{"type": "object", "properties": map[string]any{"status": map[string]any{"type": "string"}}}}, handler)
	srv.AddTool(&sdk.Tool{Name: "refund", Description: "Refund an order.", Annotations: &sdk.ToolAnnotations{DestructiveHint: &yes},
		InputSchema: map[string]any{"type": "object"}}, handler)
	srv.AddTool(&sdk.Tool{Name: "cancel", InputSchema: map[string]any{"type": "object"}}, handler)
	srv.AddTool(&sdk.Tool{Name: "bad name!", InputSchema: map[string]any{"type": "object"}}, handler)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{Stateless: true})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer imp0rt-secret" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	file, err := mcp.Import(ctx, mcp.ImportConfig{URL: ts.URL, Prefix: "orders", Headers: map[string]string{"Authorization": "Bearer ${env:IMPORT_TOKEN}"}})
	if err != nil {
		t.Fatal(err)
	}
	text := string(file)
	if strings.Contains(text, "imp0rt-secret") || !strings.Contains(text, "${env:IMPORT_TOKEN}") {
		t.Errorf("the file holds the token, or not its reference:\n%s", text)
	}
	if !strings.Contains(text, "# bad name! left out:") || !strings.Contains(text, "orders 2.1") || !strings.Contains(text, "read-only (side_effect: none)") {
		t.Errorf("the file does not say what it left out, the server, or the hints:\n%s", text)
	}
	reg, err := registry.Parse(file)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	var names []string
	for _, tool := range reg.Tools() {
		names = append(names, tool.Name)
		if tool.MCP == nil || tool.MCP.URL != ts.URL || tool.MCP.Tool != strings.TrimPrefix(tool.Name, "orders.") ||
			tool.MCP.Headers["Authorization"] != "Bearer ${env:IMPORT_TOKEN}" {
			t.Errorf("%s: mcp %+v", tool.Name, tool.MCP)
		}
		if tool.SideEffect != registry.SideEffectIrreversible || tool.Approval != registry.ApprovalRequired || tool.Idempotency != registry.IdempotencyNone {
			t.Errorf("%s: side effect %s, approval %s, idempotency %s; want the most careful contract", tool.Name, tool.SideEffect, tool.Approval, tool.Idempotency)
		}
	}
	if got := strings.Join(names, " "); got != "orders.cancel orders.lookup orders.refund" {
		t.Errorf("imported %s", got)
	}
	if lookup, _ := reg.Lookup("orders.lookup"); lookup == nil || lookup.OutputSchema == nil || lookup.Description != "Find an order." {
		t.Errorf("orders.lookup: %+v", lookup)
	}
	if len(reg.Grants("acme")) != 0 {
		t.Errorf("the import granted something")
	}
	if _, err := mcp.Import(ctx, mcp.ImportConfig{URL: ts.URL, Prefix: "orders"}); err == nil {
		t.Errorf("an import without the server's key succeeded")
	}
	if _, err := mcp.Import(ctx, mcp.ImportConfig{URL: ts.URL, Prefix: "bad prefix"}); err == nil {
		t.Errorf("a prefix with a blank was taken")
	}
}
