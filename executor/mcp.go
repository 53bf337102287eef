package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/registry"
)

// MetaIdempotencyKey is the _meta key under which an mcp tool's call
// carries its idempotency key (tenant/run/step/call): a server that
// de-duplicates reads it there (or in the Idempotency-Key header of every
// HTTP request of the call). Toolstream's own MCP server reads it too: a
// call made again with the same key is the same call.
const MetaIdempotencyKey = "dev.toolstream/idempotency-key"

// mcpTool calls one tool of an MCP server over the Streamable HTTP
// transport with the official Go SDK: a session per invocation (connect —
// server/discover or initialize, as the server speaks —, tools/call,
// close), so nothing is held between calls and a server's restart costs
// nothing. Every HTTP request carries the contract's headers (references
// resolved now; one that cannot be resolved is unavailable and nothing is
// sent), Idempotency-Key, Toolstream-Tenant and Toolstream-Attempt; the
// call's _meta carries MetaIdempotencyKey.
//
// The answer: a result with structuredContent is that value; one without
// is {"content": [...]}, the content blocks as MCP wrote them. A result
// with isError is a tool_error whose message is its text. A server that
// cannot be reached is unavailable (nothing was sent); a JSON-RPC error
// (an unknown tool: -32602) is a tool_error naming it; a result larger
// than max bytes is a tool_error.
type mcpTool struct {
	client *http.Client
	spec   *registry.MCPSpec
	max    int
	// A stdio server's, as a command tool's.
	env     map[string]string
	sandbox *registry.Sandbox
	host    *commandHost
}

var _ Tool = (*mcpTool)(nil)

// Invoke makes the call; the secrets resolved for it are redacted from all
// it returns.
func (t *mcpTool) Invoke(ctx context.Context, call Call) (json.RawMessage, error) {
	red := &redactor{}
	out, err := t.invoke(ctx, call, red)
	return red.outcome(call.Name, out, err)
}

// headerTransport adds headers to every request of a session.
type headerTransport struct {
	base http.RoundTripper
	h    http.Header
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range t.h {
		r.Header[k] = vs
	}
	return t.base.RoundTrip(r)
}

func (t *mcpTool) invoke(ctx context.Context, call Call, red *redactor) (json.RawMessage, error) {
	if len(t.spec.Command) > 0 {
		return t.invokeStdio(ctx, call, red)
	}
	h := http.Header{}
	for k, v := range t.spec.Headers {
		val, err := red.resolve(k, v)
		if err != nil {
			return nil, Errorf(events.ErrUnavailable, "%s needs the header %s, and %v; nothing was sent — an operator must provide it", call.Name, k, err)
		}
		h.Set(k, val)
	}
	h.Set("Idempotency-Key", call.Key)
	h.Set("Toolstream-Tenant", call.Tenant)
	h.Set("Toolstream-Attempt", strconv.Itoa(call.Attempt))
	identityHeaders(h, call)
	hc := *t.client
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc.Transport = &headerTransport{base: base, h: h}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	transport := &mcp.StreamableClientTransport{Endpoint: t.spec.URL, HTTPClient: &hc, MaxRetries: -1, DisableStandaloneSSE: true}
	c := mcp.NewClient(&mcp.Implementation{Name: "toolstream", Version: "1"}, nil)
	sess, err := c.Connect(ctx, transport, nil)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return nil, Errorf(events.ErrUnavailable, "cannot reach the MCP server %s: %v; try again later", t.spec.URL, op.Err)
		}
		// The connection was made and the handshake failed: nothing was
		// called yet.
		return nil, Errorf(events.ErrUnavailable, "the MCP server %s did not take a session: %s; nothing was called", t.spec.URL, red.String(err.Error()))
	}
	defer sess.Close()
	return t.call(ctx, sess, call)
}

// call makes the call on an open session and reads its answer.
func (t *mcpTool) call(ctx context.Context, sess *mcp.ClientSession, call Call) (json.RawMessage, error) {
	where := t.where()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{
		Meta:      mcp.Meta{MetaIdempotencyKey: call.Key},
		Name:      t.spec.Tool,
		Arguments: json.RawMessage(call.Args),
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			if je.Code == jsonrpc.CodeInvalidParams {
				return nil, Errorf(events.ErrToolError, "%s refused the call of %s (JSON-RPC %d): %s; is the contract's mcp.tool a tool the server lists?", where, t.spec.Tool, je.Code, je.Message)
			}
			return nil, Errorf(events.ErrToolError, "%s answered the call of %s with JSON-RPC error %d: %s", where, t.spec.Tool, je.Code, je.Message)
		}
		return nil, Errorf(events.ErrToolError, "calling %s on %s failed: %v", t.spec.Tool, where, err)
	}
	if res.IsError {
		msg := contentText(res.Content)
		if msg == "" {
			msg = "(no text)"
		}
		if len(msg) > 2048 {
			msg = msg[:2048] + "…"
		}
		return nil, Errorf(events.ErrToolError, "%s (%s) answered with an error: %s", t.spec.Tool, where, msg)
	}
	var out []byte
	if res.StructuredContent != nil {
		out, err = json.Marshal(res.StructuredContent)
	} else {
		out, err = json.Marshal(struct {
			Content []mcp.Content `json:"content"`
		}{nonNil(res.Content)})
	}
	if err != nil {
		return nil, Errorf(events.ErrToolError, "the answer of %s (%s) cannot be kept as JSON: %v", t.spec.Tool, where, err)
	}
	if len(out) > t.max {
		return nil, Errorf(events.ErrToolError, "the answer of %s (%s) exceeds %d bytes; ask for less", t.spec.Tool, where, t.max)
	}
	return bytes.TrimSpace(out), nil
}

// where names the server in messages.
func (t *mcpTool) where() string {
	if len(t.spec.Command) > 0 {
		return "the stdio MCP server " + t.spec.Command[0]
	}
	return "the MCP server " + t.spec.URL
}

// invokeStdio runs the contract's stdio server as a command tool runs its
// program — a private HOME and TMPDIR, the minimal environment and the
// contract's env, in the sandbox when the contract asks, its whole
// process group killed at the end — and makes the call over its stdin and
// stdout: one server process per invocation.
func (t *mcpTool) invokeStdio(ctx context.Context, call Call, red *redactor) (json.RawMessage, error) {
	ct := &commandTool{argv: t.spec.Command, env: t.env, sandbox: t.sandbox, max: t.max, host: t.host}
	argv, env, dir, err := ct.prepare(ctx, call, red)
	if err != nil {
		return nil, err
	}
	defer removeAll(dir)
	var out json.RawMessage
	var callErr error
	stderr, connErr, start := runSession(ctx, argv, env, func(r io.ReadCloser, w io.WriteCloser) error {
		c := mcp.NewClient(&mcp.Implementation{Name: "toolstream", Version: "1"}, nil)
		sess, err := c.Connect(ctx, &mcp.IOTransport{Reader: r, Writer: w, MaxLineLength: t.max + 64<<10}, nil)
		if err != nil {
			r.Close()
			w.Close()
			return err
		}
		defer sess.Close()
		out, callErr = t.call(ctx, sess, call)
		return nil
	})
	if start != nil {
		return nil, Errorf(events.ErrUnavailable, "cannot run %s: %v", t.spec.Command[0], start)
	}
	if connErr != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, Errorf(events.ErrUnavailable, "%s did not take a session: %s; nothing was called (its stderr: %s)", t.where(), red.String(connErr.Error()), red.tail(stderr, 512, true))
	}
	return out, callErr
}

func nonNil(c []mcp.Content) []mcp.Content {
	if c == nil {
		return []mcp.Content{}
	}
	return c
}

// contentText joins the text blocks of an MCP result.
func contentText(cs []mcp.Content) string {
	var parts []string
	for _, c := range cs {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// String is for the executor's log lines.
func (t *mcpTool) String() string { return fmt.Sprintf("mcp %s %s", t.where(), t.spec.Tool) }
