package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// mcpStdioMain is a stdio MCP server of the official Go SDK with two
// tools: echo appends the _meta idempotency key to FILE (unless FILE is
// "-") and answers what it saw — the key in _meta and in its environment,
// its HOME, its pid (2 or less in bubblewrap's pid namespace) and the
// variable MCP_TEST_SECRET; die exits mid-call.
func mcpStdioMain(file string) int {
	srv := mcp.NewServer(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			key, _ := req.Params.Meta[executor.MetaIdempotencyKey].(string)
			if file != "-" {
				if err := appendKey(file, key, false); err != nil {
					return nil, err
				}
			}
			return &mcp.CallToolResult{StructuredContent: map[string]any{
				"key": key, "env_key": os.Getenv("TOOLSTREAM_IDEMPOTENCY_KEY"), "home": os.Getenv("HOME"),
				"pid": os.Getpid(), "secret_len": len(os.Getenv("MCP_TEST_SECRET")), "args": json.RawMessage(req.Params.Arguments),
			}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "die", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			os.Exit(3)
			return nil, nil
		})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestMCPStdioTool: a contract's mcp: {command} runs a stdio MCP server
// (the Go SDK's) per invocation as a command tool runs its program: the
// call's key reaches it in _meta and in TOOLSTREAM_IDEMPOTENCY_KEY, it
// gets the contract's env (its reference resolved) and a private HOME,
// and once per call; a server that dies mid-call is a tool_error; a
// program that does not exist is unavailable; with a sandbox it runs in
// bubblewrap (its own pid namespace), or not at all.
func TestMCPStdioTool(t *testing.T) {
	t.Setenv("MCP_SECRET_SRC", "stdio-s3cret")
	file := t.TempDir() + "/keys"
	b := bustest.Start(t)
	reg := parseRegistry(t, fmt.Sprintf(`
tools:
  - name: stdio.echo
    side_effect: none
    mcp: {command: [%q, tsmcp, %q], tool: echo}
    env: {MCP_TEST_SECRET: "${env:MCP_SECRET_SRC}"}
  - name: stdio.die
    side_effect: none
    mcp: {command: [%[1]q, tsmcp, "-"], tool: die}
  - name: stdio.missing
    side_effect: none
    mcp: {command: [/nonexistent/mcp-server], tool: x}
grants:
  - tenant: acme
    permissions: ["*"]
`, os.Args[0], file))
	startExec(t, b, reg, nil, nil)

	key := publishCall(t, b, callSpec{tenant: "acme", tool: "stdio.echo", call: "s1", args: `{"q":1}`})
	o := waitOutcome(t, b, "acme", key)
	var got struct {
		Key, Home string
		EnvKey    string `json:"env_key"`
		SecretLen int    `json:"secret_len"`
		Args      map[string]int
	}
	if o.ok != nil {
		json.Unmarshal(o.ok.Result, &got)
	}
	if o.ok == nil || got.Key != key || got.EnvKey != key || got.SecretLen != len("stdio-s3cret") || got.Args["q"] != 1 || got.Home == "" || got.Home == os.Getenv("HOME") {
		t.Errorf("stdio.echo: %v (%+v)", o, got)
	}
	data, _ := os.ReadFile(file)
	if string(data) != key+"\n" {
		t.Errorf("the server ran %q, want the key once", data)
	}
	if o := callAcme(t, b, "stdio.die", "s2"); !o.failedWith(events.ErrToolError, "stdio MCP server") {
		t.Errorf("stdio.die: %v, want a tool_error naming the stdio server", o)
	}
	if o := callAcme(t, b, "stdio.missing", "s3"); !o.failedWith(events.ErrUnavailable, "/nonexistent/mcp-server") {
		t.Errorf("stdio.missing: %v, want unavailable", o)
	}
	for _, ev := range all(t, b, "ts.result.acme.>") {
		data, _ := json.Marshal(ev)
		if strings.Contains(string(data), "stdio-s3cret") {
			t.Errorf("the secret is in a %s event", ev.Kind)
		}
	}
}

// TestMCPStdioToolSandboxed: with sandbox: {network: none} the stdio
// server runs in bubblewrap: its pid is its namespace's (2 or less).
func TestMCPStdioToolSandboxed(t *testing.T) {
	needSandbox(t)
	b := bustest.Start(t)
	reg := parseRegistry(t, fmt.Sprintf(`
tools:
  - name: stdio.boxed
    side_effect: none
    mcp: {command: [%q, tsmcp, "-"], tool: echo}
    sandbox: {network: none}
grants:
  - tenant: acme
    permissions: ["*"]
`, os.Args[0]))
	startExec(t, b, reg, nil, nil)
	o := callAcme(t, b, "stdio.boxed", "b1")
	var got struct{ Pid int }
	if o.ok != nil {
		json.Unmarshal(o.ok.Result, &got)
	}
	if o.ok == nil || got.Pid == 0 || got.Pid > 2 {
		t.Errorf("stdio.boxed: %v, want a result from pid 1 or 2 of a pid namespace", o)
	}
}
