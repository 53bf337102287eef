package registry_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/registry"
)

const refundYAML = `
tools:
  - name: orders.refund
    version: 2
    description: Refund an order.
    input_schema: {type: object, properties: {order_id: {type: string}}, required: [order_id]}
    output_schema: {type: object}
    timeout: 10s
    retry: {max_attempts: 1, backoff: 1s, on: [provider_timeout]}
    idempotency: required        # required | none
    permission: orders.refund    # scope the tenant must be granted
    side_effect: irreversible    # none | reversible | irreversible
    approval: required           # none | required
    coerce: false
    http: {url: "http://127.0.0.1:8080/refund"}
  - name: weather.read
    input_schema:
      type: object
      properties:
        city: {type: string}
        days: {type: integer, minimum: 1, maximum: 14}
        metric: {type: boolean}
      required: [city]
      additionalProperties: false
    side_effect: none
    coerce: true
    command: ["/usr/local/bin/weather", "--json"]
grants:
  - tenant: acme
    permissions: [orders.refund, weather.read]
  - tenant: globex
    permissions: [weather.read]
`

func mustParse(t *testing.T, src string) *registry.Registry {
	t.Helper()
	r, err := registry.Parse([]byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return r
}

func TestParseTheIssueExample(t *testing.T) {
	r := mustParse(t, refundYAML)
	tool, ok := r.Lookup("orders.refund")
	if !ok {
		t.Fatal("orders.refund missing")
	}
	want := registry.Tool{Name: "orders.refund", Version: 2, Timeout: 10 * time.Second, Idempotency: "required",
		Permission: "orders.refund", SideEffect: "irreversible", Approval: "required"}
	if tool.Name != want.Name || tool.Version != want.Version || tool.Timeout != want.Timeout ||
		tool.Idempotency != want.Idempotency || tool.Permission != want.Permission ||
		tool.SideEffect != want.SideEffect || tool.Approval != want.Approval || tool.Coerce {
		t.Fatalf("contract = %+v", tool)
	}
	if tool.Retry.MaxAttempts != 1 || tool.Retry.Backoff != time.Second || len(tool.Retry.On) != 1 || tool.Retry.On[0] != events.ErrProviderTimeout {
		t.Fatalf("retry = %+v", tool.Retry)
	}
	if tool.HTTP == nil || tool.HTTP.URL != "http://127.0.0.1:8080/refund" || tool.Impl() != registry.ImplHTTP {
		t.Fatalf("http = %+v", tool.HTTP)
	}
	if string(tool.InputSchema) != `{"properties":{"order_id":{"type":"string"}},"required":["order_id"],"type":"object"}` {
		t.Fatalf("input schema = %s", tool.InputSchema)
	}
	if tool.AtMostOnce() {
		t.Fatal("an idempotent tool is not at-most-once")
	}
	w, _ := r.Lookup("weather.read")
	if w.Version != 1 || w.Timeout != registry.TimeoutDefault || w.Retry.MaxAttempts != 1 || w.Permission != "weather.read" ||
		w.Idempotency != "none" || w.Approval != "none" || w.Impl() != registry.ImplCommand || !w.Coerce {
		t.Fatalf("defaults = %+v", w)
	}
	if got := r.Grants("acme"); strings.Join(got, ",") != "orders.refund,weather.read" {
		t.Fatalf("grants = %v", got)
	}
}

func TestParseDefaults(t *testing.T) {
	r := mustParse(t, `tools: [{name: ping}]`)
	p, _ := r.Lookup("ping")
	if string(p.InputSchema) != `{"type":"object"}` || p.OutputSchema != nil || p.SideEffect != "reversible" ||
		p.Approval != "none" || p.Impl() != registry.ImplGo || !p.AtMostOnce() {
		t.Fatalf("defaults = %+v", p)
	}
	irr := mustParse(t, `tools: [{name: wire, side_effect: irreversible}]`)
	if w, _ := irr.Lookup("wire"); w.Approval != "required" {
		t.Fatalf("irreversible approval default = %q", w.Approval)
	}
}

func TestParseErrorsNameTheField(t *testing.T) {
	cases := []struct {
		name, src, path, msg string
	}{
		{"empty", ``, "", "empty tools file"},
		{"not yaml", "tools: [", "", "invalid YAML"},
		{"bad json", `{"tools": [}`, "", "invalid JSON"},
		{"unknown top", `tool: []`, "tool", "unknown field"},
		{"unknown tool field", `tools: [{name: a, timout: 1s}]`, "tools[0].timout", "unknown field"},
		{"no name", `tools: [{version: 1}]`, "tools[0].name", "required"},
		{"bad name", `tools: [{name: "a b"}]`, "tools[0].name", "[A-Za-z0-9_.:-]"},
		{"version zero", `tools: [{name: a, version: 0}]`, "tools[0].version", "out of range"},
		{"version text", `tools: [{name: a, version: two}]`, "tools[0].version", "want an integer"},
		{"duplicate", `tools: [{name: a}, {name: a, version: 1}]`, "tools[1]", "declared twice"},
		{"timeout", `tools: [{name: a, timeout: soon}]`, "tools[0].timeout", "not a duration"},
		{"timeout number", `tools: [{name: a, timeout: 10}]`, "tools[0].timeout", "want a duration"},
		{"timeout zero", `tools: [{name: a, timeout: 0s}]`, "tools[0].timeout", "out of range"},
		{"attempts", `tools: [{name: a, retry: {max_attempts: 99}}]`, "tools[0].retry.max_attempts", "out of range"},
		{"retry on", `tools: [{name: a, idempotency: required, retry: {on: [permission_denied]}}]`, "tools[0].retry.on[0]", "cannot be retried"},
		{"retry on unknown", `tools: [{name: a, retry: {on: [oops]}}]`, "tools[0].retry.on[0]", "cannot be retried"},
		{"retry repeats effect", `tools: [{name: a, side_effect: reversible, retry: {max_attempts: 3, on: [provider_timeout]}}]`, "tools[0].retry.on", "could repeat the side effect"},
		{"idempotency", `tools: [{name: a, idempotency: maybe}]`, "tools[0].idempotency", "not one of"},
		{"side effect", `tools: [{name: a, side_effect: some}]`, "tools[0].side_effect", "not one of"},
		{"irreversible without approval", `tools: [{name: a, side_effect: irreversible, approval: none}]`, "tools[0].approval", "waits for an approval"},
		{"coerce", `tools: [{name: a, coerce: "yes"}]`, "tools[0].coerce", "want true or false"},
		{"schema kind", `tools: [{name: a, input_schema: [1]}]`, "tools[0].input_schema", "want a JSON Schema"},
		{"schema invalid", `tools: [{name: a, input_schema: {type: objekt}}]`, "tools[0].input_schema", "not a valid JSON Schema"},
		{"schema remote ref", `tools: [{name: a, input_schema: {$ref: "http://example.com/s.json"}}]`, "tools[0].input_schema", "not a valid JSON Schema"},
		{"output schema", `tools: [{name: a, output_schema: {minimum: x}}]`, "tools[0].output_schema", "not a valid JSON Schema"},
		{"http url", `tools: [{name: a, http: {url: "ftp://x"}}]`, "tools[0].http.url", "not an http(s) URL"},
		{"http and command", `tools: [{name: a, http: {url: "http://x"}, command: [x]}]`, "tools[0]", "not both"},
		{"command empty", `tools: [{name: a, command: []}]`, "tools[0].command", "want the program"},
		{"mcp url", `tools: [{name: a, mcp: {url: "stdio:x", tool: t}}]`, "tools[0].mcp.url", "not an http(s) URL"},
		{"mcp and http", `tools: [{name: a, http: {url: "http://x"}, mcp: {url: "http://x/mcp"}}]`, "tools[0]", "not both"},
		{"mcp credentials in url", `tools: [{name: a, mcp: {url: "http://u:p@x/mcp"}}]`, "tools[0].mcp.url", "carries credentials"},
		{"mcp literal secret", `tools: [{name: a, mcp: {url: "http://x/mcp", headers: {Authorization: "Bearer abc"}}}]`, "tools[0].mcp.headers.Authorization", "carries a credential"},
		{"mcp unknown field", `tools: [{name: a, mcp: {url: "http://x/mcp", env: x}}]`, "tools[0].mcp.env", "unknown field"},
		{"mcp url and command", `tools: [{name: a, mcp: {url: "http://x/mcp", command: [x]}}]`, "tools[0].mcp", "not both"},
		{"mcp stdio headers", `tools: [{name: a, mcp: {command: [x], headers: {X-A: b}}}]`, "tools[0].mcp.headers", "a stdio server gets env"},
		{"mcp command empty", `tools: [{name: a, mcp: {command: []}}]`, "tools[0].mcp.command", "want the server's program"},
		{"mcp env", `tools: [{name: a, mcp: {url: "http://x/mcp"}, env: [A]}]`, "tools[0].env", "command tools only"},
		{"grant tenant", `grants: [{tenant: "a.b", permissions: [x]}]`, "grants[0].tenant", "not a tenant name"},
		{"grant system", `grants: [{tenant: _system, permissions: [x]}]`, "grants[0].tenant", "not a tenant name"},
		{"grant no perms", `grants: [{tenant: acme}]`, "grants[0].permissions", "required"},
		{"duplicate key", "tools:\n  - name: a\n    name: b\n", "", "duplicate key"},
		{"two documents", "tools: []\n---\ntools: []\n", "", "more than one YAML document"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := registry.Parse([]byte(c.src))
			if !errors.Is(err, registry.ErrInvalidRegistry) {
				t.Fatalf("err = %v, want ErrInvalidRegistry", err)
			}
			var fe *registry.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FieldError", err)
			}
			if c.path != "" && fe.Path != c.path || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("err = %v (path %q); want path %q and %q", err, fe.Path, c.path, c.msg)
			}
		})
	}
}

func TestParseReportsEveryProblem(t *testing.T) {
	_, err := registry.Parse([]byte(`tools: [{name: a, timeout: x, idempotency: y}, {name: "", coerce: 1}]`))
	var me interface{ Unwrap() []error }
	if !errors.As(err, &me) || len(me.Unwrap()) != 4 {
		t.Fatalf("err = %v, want 4 problems", err)
	}
}

func TestSpecIsCanonical(t *testing.T) {
	a := mustParse(t, refundYAML)
	// The same registry, other order, other layout, JSON.
	b := mustParse(t, `{"grants":[{"tenant":"globex","permissions":["weather.read"]},{"tenant":"acme","permissions":["weather.read","orders.refund","weather.read"]}],
	 "tools":[{"name":"weather.read","coerce":true,"side_effect":"none","command":["/usr/local/bin/weather","--json"],
	   "input_schema":{"additionalProperties":false,"required":["city"],"type":"object","properties":{"metric":{"type":"boolean"},"days":{"maximum":14,"minimum":1,"type":"integer"},"city":{"type":"string"}}}},
	  {"name":"orders.refund","version":2,"description":"Refund an order.","timeout":"10s","retry":{"max_attempts":1,"backoff":"1s","on":["provider_timeout"]},
	   "idempotency":"required","side_effect":"irreversible","approval":"required","http":{"url":"http://127.0.0.1:8080/refund"},
	   "input_schema":{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]},"output_schema":{"type":"object"}}]}`)
	if a.Digest() != b.Digest() || string(a.Spec()) != string(b.Spec()) {
		t.Fatalf("digests differ:\n%s\n%s", a.Spec(), b.Spec())
	}
	c := mustParse(t, string(a.Spec()))
	if c.Digest() != a.Digest() {
		t.Fatalf("Parse(Spec()) changed the digest:\n%s\n%s", a.Spec(), c.Spec())
	}
	d := mustParse(t, strings.Replace(refundYAML, "timeout: 10s", "timeout: 11s", 1))
	if d.Digest() == a.Digest() {
		t.Fatal("a different timeout has the same digest")
	}
}

func TestLookupVersions(t *testing.T) {
	r := mustParse(t, `tools: [{name: a, version: 1}, {name: a, version: 3, timeout: 3s}, {name: b}]`)
	if got, ok := r.Lookup("a"); !ok || got.Version != 3 {
		t.Fatalf("Lookup(a) = %+v", got)
	}
	if got, ok := r.Lookup("a@1"); !ok || got.Version != 1 || got.Ref() != "a@1" {
		t.Fatalf("Lookup(a@1) = %+v", got)
	}
	for _, name := range []string{"a@2", "a@x", "c", "", "@1"} {
		if _, ok := r.Lookup(name); ok {
			t.Fatalf("Lookup(%q) found a tool", name)
		}
	}
	if n := len(r.Tools()); n != 3 {
		t.Fatalf("Tools() = %d", n)
	}
}

func TestNilRegistryIsNoRegistry(t *testing.T) {
	var r *registry.Registry
	if _, ok := r.Lookup("x"); ok {
		t.Fatal("nil registry found a tool")
	}
	if !r.Allowed("acme", "anything") {
		t.Fatal("nil registry refused a permission")
	}
	args := []byte(`{"b": "12", "a": 1}`)
	out, coerced, reason, detail := r.Validate("acme", "anything", args)
	if string(out) != string(args) || coerced != nil || reason != "" || detail != "" {
		t.Fatalf("nil Validate = %s %v %q %q", out, coerced, reason, detail)
	}
	if r.Digest() != "" || r.Spec() != nil || r.Tools() != nil {
		t.Fatal("nil registry has content")
	}
}

// TestParseMCPTool: an mcp implementation keeps its url, tool (the
// contract's name by default) and header references, and survives the
// canonical spec the log carries.
func TestParseMCPTool(t *testing.T) {
	r, err := registry.Parse([]byte(`
tools:
  - name: orders.refund
    mcp: {url: "https://tools.example/mcp", tool: refund, headers: {Authorization: "Bearer ${env:MCP_TOKEN}"}}
  - name: lookup
    mcp: {url: "http://127.0.0.1:9/mcp"}
`))
	if err != nil {
		t.Fatal(err)
	}
	refund, _ := r.Lookup("orders.refund")
	lookup, _ := r.Lookup("lookup")
	if refund.Impl() != registry.ImplMCP || refund.MCP.URL != "https://tools.example/mcp" || refund.MCP.Tool != "refund" ||
		refund.MCP.Headers["Authorization"] != "Bearer ${env:MCP_TOKEN}" || lookup.MCP.Tool != "lookup" {
		t.Fatalf("refund %+v, lookup %+v", refund.MCP, lookup.MCP)
	}
	stdio, err := registry.Parse([]byte(`
tools:
  - name: files.read
    mcp: {command: [/usr/local/bin/files-mcp, --stdio], tool: read}
    env: {FILES_TOKEN: "${env:FILES_TOKEN}"}
    sandbox: {network: none}
`))
	if err != nil {
		t.Fatal(err)
	}
	if fr, _ := stdio.Lookup("files.read"); fr.Impl() != registry.ImplMCP || len(fr.MCP.Command) != 2 || fr.MCP.URL != "" || fr.Sandbox == nil || fr.Env["FILES_TOKEN"] == "" {
		t.Fatalf("a stdio server: %+v, sandbox %v, env %v", fr.MCP, fr.Sandbox, fr.Env)
	}
	again, err := registry.Parse(r.Spec())
	if err != nil || !again.Equal(r) {
		t.Fatalf("the spec does not parse back to the registry: %v\n%s", err, r.Spec())
	}
	if got, _ := again.Lookup("orders.refund"); got.MCP == nil || got.MCP.Tool != "refund" {
		t.Fatalf("parsed from the spec: %+v", got.MCP)
	}
}
