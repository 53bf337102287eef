package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolstream/toolstream/registry"
)

// ImportConfig says which MCP server Import reads.
type ImportConfig struct {
	// URL is the server's Streamable HTTP endpoint.
	URL string
	// Prefix names the imported tools: PREFIX.NAME.
	Prefix string
	// Headers are sent with every request, as the contracts will send
	// them: a value may hold ${env:NAME} or ${file:PATH} references,
	// resolved here to connect and written into the contracts as they are.
	Headers map[string]string
	// HTTPClient; default http.DefaultClient.
	HTTPClient *http.Client
}

// Import lists every tool of an MCP server (following tools/list's
// cursor) and returns a tools file with one contract each, named
// PREFIX.NAME, implemented by mcp: {url, tool, headers}, for the operator
// to complete and add to the tools file: the schemas are the server's,
// and every contract starts as the most careful one —
// side_effect: irreversible, approval: required, idempotency: none — with
// the server's hints (readOnlyHint, destructiveHint, idempotentHint) in a
// comment: they are the server's word, and only the operator decides what
// runs. No grant is written. A tool whose name the registry cannot take,
// or whose input schema it cannot compile, is left out with a comment
// saying why.
func Import(ctx context.Context, cfg ImportConfig) ([]byte, error) {
	if err := validPrefix(cfg.Prefix); err != nil {
		return nil, err
	}
	h := http.Header{}
	for k, v := range cfg.Headers {
		val, err := registry.Expand(v, resolveRef)
		if err != nil {
			return nil, fmt.Errorf("mcp: header %s: %w", k, err)
		}
		h.Set(k, val)
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	c := *hc
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = headers{base: base, h: h}
	cl := sdk.NewClient(&sdk.Implementation{Name: "toolstream-import", Version: "1"}, nil)
	sess, err := cl.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: &c, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return nil, fmt.Errorf("mcp: connect to %s: %w", cfg.URL, err)
	}
	defer sess.Close()
	var tools []*sdk.Tool
	for cursor := ""; ; {
		res, err := sess.ListTools(ctx, &sdk.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, fmt.Errorf("mcp: tools/list of %s: %w", cfg.URL, err)
		}
		tools = append(tools, res.Tools...)
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	var b bytes.Buffer
	server := cfg.URL
	if ir := sess.InitializeResult(); ir != nil && ir.ServerInfo != nil {
		server = fmt.Sprintf("%s (%s %s)", cfg.URL, ir.ServerInfo.Name, ir.ServerInfo.Version)
	}
	fmt.Fprintf(&b, "# The tools of the MCP server %s, imported by toolstream tools import-mcp.\n", server)
	fmt.Fprintf(&b, "# Complete each contract before it is served: side_effect, approval, idempotency,\n")
	fmt.Fprintf(&b, "# timeout, permission (the tool's name by default), and grant it to tenants.\n")
	b.WriteString("tools:\n")
	hdrs := map[string]string{}
	for k, v := range cfg.Headers {
		hdrs[k] = v
	}
	for _, t := range tools {
		if err := contract(&b, cfg, hdrs, t); err != nil {
			fmt.Fprintf(&b, "  # %s left out: %v\n", t.Name, err)
		}
	}
	return b.Bytes(), nil
}

// contract writes one tool's contract, or returns why it cannot.
func contract(b *bytes.Buffer, cfg ImportConfig, hdrs map[string]string, t *sdk.Tool) error {
	name := cfg.Prefix + "." + t.Name
	in, err := json.Marshal(t.InputSchema)
	if err != nil || t.InputSchema == nil {
		in = []byte(`{"type":"object"}`)
	}
	var out []byte
	if t.OutputSchema != nil {
		if out, err = json.Marshal(t.OutputSchema); err != nil {
			out = nil
		}
	}
	spec := map[string]any{"url": cfg.URL, "tool": t.Name}
	if len(hdrs) > 0 {
		spec["headers"] = hdrs
	}
	impl, _ := json.Marshal(spec)
	desc := t.Description
	if desc == "" && t.Title != "" {
		desc = t.Title
	}
	var c bytes.Buffer
	fmt.Fprintf(&c, "  - name: %s\n", q(name))
	if desc != "" {
		fmt.Fprintf(&c, "    description: %s\n", q(desc))
	}
	fmt.Fprintf(&c, "    input_schema: %s\n", in)
	if out != nil {
		fmt.Fprintf(&c, "    output_schema: %s\n", out)
	}
	fmt.Fprintf(&c, "    # The server's hints: %s.\n", hints(t.Annotations))
	c.WriteString("    side_effect: irreversible\n    approval: required\n    idempotency: none\n    timeout: 30s\n")
	fmt.Fprintf(&c, "    mcp: %s\n", impl)
	// The contract must parse as the registry will parse it.
	if _, err := registry.Parse(append([]byte("tools:\n"), c.Bytes()...)); err != nil {
		msg := err.Error()
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i] + " …"
		}
		return errors.New(strings.TrimPrefix(msg, "registry: "))
	}
	b.Write(c.Bytes())
	return nil
}

func hints(a *sdk.ToolAnnotations) string {
	if a == nil {
		return "none"
	}
	var hs []string
	if a.ReadOnlyHint {
		hs = append(hs, "read-only (side_effect: none)")
	}
	if a.DestructiveHint != nil {
		if *a.DestructiveHint {
			hs = append(hs, "destructive")
		} else {
			hs = append(hs, "not destructive (side_effect: reversible)")
		}
	}
	if a.IdempotentHint {
		hs = append(hs, "idempotent (idempotency: required, if it de-duplicates by the key)")
	}
	if a.OpenWorldHint != nil && *a.OpenWorldHint {
		hs = append(hs, "open world")
	}
	if len(hs) == 0 {
		return "none"
	}
	return strings.Join(hs, ", ")
}

// q quotes a string for YAML (a JSON string is a YAML double-quoted one).
func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func validPrefix(p string) error {
	if p == "" {
		return errors.New("mcp: a prefix is required (the imported tools are PREFIX.NAME)")
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == ':') {
			return fmt.Errorf("mcp: prefix %q: a tool name is made of [A-Za-z0-9_.:-]", p)
		}
	}
	return nil
}

// resolveRef reads a reference as the executor does: an environment
// variable, or a file with one trailing newline dropped.
func resolveRef(r registry.Ref) (string, error) {
	switch r.Source {
	case registry.RefEnv:
		v, ok := os.LookupEnv(r.Name)
		if !ok {
			return "", fmt.Errorf("%s is not set", r)
		}
		return v, nil
	case registry.RefFile:
		f, err := os.Open(r.Name)
		if err != nil {
			return "", fmt.Errorf("%s cannot be read: %v", r, err)
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, 64<<10))
		if err != nil {
			return "", fmt.Errorf("%s cannot be read: %v", r, err)
		}
		return strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r"), nil
	}
	return "", fmt.Errorf("%s: unknown source", r)
}

// headers adds h to every request.
type headers struct {
	base http.RoundTripper
	h    http.Header
}

func (t headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range t.h {
		r.Header[k] = vs
	}
	return t.base.RoundTrip(r)
}
