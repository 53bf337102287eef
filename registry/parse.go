package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/toolstream/toolstream/events"
	"go.yaml.in/yaml/v3"
)

// errorsMax bounds the problems one Parse reports.
const errorsMax = 20

// FileBytesMax bounds a tools file: Load, the Watcher and Parse refuse a
// larger one before parsing it.
const FileBytesMax = 1 << 20

// depthMax bounds the nesting of a tools file (YAML or JSON), schemas
// included.
const depthMax = 64

// Load reads and parses the tools file at path. See Parse.
func Load(path string) (*Registry, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("registry: load: %w", err)
	}
	return Parse(data)
}

// readFile reads a tools file of at most FileBytesMax bytes; a larger one
// is a *FieldError, found before it is read.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > FileBytesMax {
		return nil, tooLarge(fi.Size())
	}
	data, err := io.ReadAll(io.LimitReader(f, FileBytesMax+1))
	if err != nil {
		return nil, err
	}
	if len(data) > FileBytesMax {
		return nil, tooLarge(int64(len(data)))
	}
	return data, nil
}

func tooLarge(n int64) error {
	return &FieldError{Msg: fmt.Sprintf("the tools file is %d bytes, more than %d", n, FileBytesMax)}
}

// Parse builds a registry from a tools file: YAML, or JSON when the first
// non-blank byte is '{'. The field names are fixed (see the package doc).
// Omitted fields take defaults: version 1, timeout 30s, retry
// {max_attempts: 1}, idempotency none, permission = the tool's name,
// side_effect reversible, approval required for irreversible tools and none
// otherwise, input_schema {"type":"object"}.
//
// Every problem found (up to 20) is reported as a *FieldError naming the
// field; the returned error wraps ErrInvalidRegistry.
//
// Parsing has a budget: a file larger than FileBytesMax, nested deeper than
// 64 levels, or using YAML anchors and aliases (&a, *a: a few hundred
// bytes of them expand to gigabytes) is refused before any of it is built.
func Parse(data []byte) (*Registry, error) {
	if len(data) > FileBytesMax {
		return nil, tooLarge(int64(len(data)))
	}
	doc, err := decodeDoc(data)
	if err != nil {
		return nil, &FieldError{Msg: err.Error()}
	}
	return fromDoc(doc)
}

// parseSpec builds a registry from the spec of a RegistryChanged: the log
// carries canonical JSON only (Registry.Spec), never YAML, so anything else
// is refused.
func parseSpec(spec []byte) (*Registry, error) {
	if len(spec) == 0 || spec[0] != '{' {
		return nil, &FieldError{Msg: "the spec is not canonical JSON (a JSON object, as Registry.Spec writes it)"}
	}
	doc, err := decodeJSON(spec)
	if err != nil {
		return nil, &FieldError{Msg: err.Error()}
	}
	r, err := fromDoc(doc)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(r.Spec(), spec) {
		return nil, &FieldError{Msg: "the spec is not canonical JSON (it is not byte for byte as Registry.Spec writes it)"}
	}
	return r, nil
}

func fromDoc(doc any) (*Registry, error) {
	d := &decoder{}
	spec := d.file(doc)
	if len(d.errs) > 0 {
		return nil, joinErrs(d.errs)
	}
	return build(spec)
}

// decodeDoc turns the file into JSON-shaped values: map[string]any, []any,
// string, json.Number, bool and nil.
func decodeDoc(data []byte) (any, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, errors.New("empty tools file")
	}
	if trimmed[0] == '{' {
		return decodeJSON(trimmed)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var n yaml.Node
	if err := dec.Decode(&n); err != nil {
		return nil, fmt.Errorf("invalid YAML: %v", err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, errors.New("more than one YAML document")
	}
	return fromYAML(&n, "", 0)
}

// decodeJSON decodes one JSON document (numbers as json.Number) nested at
// most depthMax levels, whose numbers numberOK accepts.
func decodeJSON(data []byte) (any, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if _, err := checkValue(v, depthMax); err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	return v, nil
}

func fromYAML(n *yaml.Node, path string, depth int) (any, error) {
	if depth > depthMax {
		return nil, fmt.Errorf("%s: nested too deeply", orTop(path))
	}
	if n.Anchor != "" {
		return nil, fmt.Errorf("%s (line %d): YAML anchors (&%s) and aliases are not supported: write the value out", orTop(path), n.Line, n.Anchor)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return nil, errors.New("empty YAML document")
		}
		return fromYAML(n.Content[0], path, depth+1)
	case yaml.AliasNode:
		// Never expanded: a few hundred bytes of nested aliases stand for
		// gigabytes (a "billion laughs").
		return nil, fmt.Errorf("%s (line %d): YAML aliases (*%s) are not supported: write the value out", orTop(path), n.Line, n.Value)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" {
				return nil, fmt.Errorf("%s (line %d): keys must be plain strings", orTop(path), k.Line)
			}
			child, err := fromYAML(v, path+"."+k.Value, depth+1)
			if err != nil {
				return nil, err
			}
			if _, dup := m[k.Value]; dup {
				return nil, fmt.Errorf("%s (line %d): duplicate key %q", orTop(path), k.Line, k.Value)
			}
			m[k.Value] = child
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			child, err := fromYAML(c, fmt.Sprintf("%s[%d]", path, i), depth+1)
			if err != nil {
				return nil, err
			}
			s = append(s, child)
		}
		return s, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, fmt.Errorf("%s (line %d): %v", orTop(path), n.Line, err)
			}
			return b, nil
		case "!!int":
			var i int64
			if err := n.Decode(&i); err != nil {
				return nil, fmt.Errorf("%s (line %d): %v", orTop(path), n.Line, err)
			}
			return json.Number(strconv.FormatInt(i, 10)), nil
		case "!!float":
			var f float64
			if err := n.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, fmt.Errorf("%s (line %d): %q is not a finite number", orTop(path), n.Line, n.Value)
			}
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
		default: // !!str, !!timestamp, !!binary: keep the text
			return n.Value, nil
		}
	}
	return nil, fmt.Errorf("%s (line %d): unsupported YAML node", orTop(path), n.Line)
}

func orTop(path string) string {
	if path == "" {
		return "(top level)"
	}
	return strings.TrimPrefix(path, ".")
}

// spec is the canonical form of a tools file. Its JSON encoding (Spec) is
// what Digest hashes and what RegistryChanged carries; Parse accepts it.
type spec struct {
	Tools  []specTool  `json:"tools"`
	Grants []specGrant `json:"grants"`
}

type specTool struct {
	Name         string            `json:"name"`
	Version      int               `json:"version"`
	Description  string            `json:"description,omitempty"`
	InputSchema  json.RawMessage   `json:"input_schema"`
	OutputSchema json.RawMessage   `json:"output_schema,omitempty"`
	Timeout      string            `json:"timeout"`
	Retry        specRetry         `json:"retry"`
	Idempotency  string            `json:"idempotency"`
	Permission   string            `json:"permission"`
	SideEffect   string            `json:"side_effect"`
	Approval     string            `json:"approval"`
	Coerce       bool              `json:"coerce"`
	LenientJSON  bool              `json:"lenient_json,omitempty"` // omitempty: registries without it keep their bytes
	FreshFor     string            `json:"fresh_for,omitempty"`    // omitempty: as lenient_json
	HTTP         *specHTTP         `json:"http,omitempty"`
	Command      []string          `json:"command,omitempty"`
	MCP          *specMCP          `json:"mcp,omitempty"`
	Env          map[string]string `json:"env,omitempty"`
	Sandbox      *specSandbox      `json:"sandbox,omitempty"`
	Object       string            `json:"object,omitempty"`    // omitempty: as lenient_json
	Authorize    *specAuthorize    `json:"authorize,omitempty"` // omitempty: as lenient_json

	timeout, backoff, freshFor time.Duration
	path                       string
}

type specRetry struct {
	MaxAttempts int                `json:"max_attempts"`
	Backoff     string             `json:"backoff"`
	On          []events.ErrorType `json:"on"`
}

type specHTTP struct {
	URL             string            `json:"url"`
	Headers         map[string]string `json:"headers,omitempty"`
	FollowRedirects string            `json:"follow_redirects,omitempty"` // "" is RedirectsNone
}

type specMCP struct {
	URL     string            `json:"url,omitempty"`
	Command []string          `json:"command,omitempty"`
	Tool    string            `json:"tool"`
	Headers map[string]string `json:"headers,omitempty"`
}

type specAuthorize struct {
	HTTP    string            `json:"http"`
	Headers map[string]string `json:"headers,omitempty"`
}

type specGrant struct {
	Tenant      string   `json:"tenant"`
	Permissions []string `json:"permissions"`
}

// retryable are the error types a contract may retry on. The others are
// decisions (validation, permission, approval) or, for outcome_unknown, the
// very thing at-most-once forbids repeating.
var retryable = []events.ErrorType{events.ErrProviderTimeout, events.ErrToolError, events.ErrUnavailable, events.ErrBusinessRejected}

// decoder reads the JSON-shaped document into a spec, collecting problems.
type decoder struct{ errs []error }

func (d *decoder) fail(path, format string, args ...any) {
	if len(d.errs) < errorsMax {
		d.errs = append(d.errs, &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
}

func (d *decoder) object(path string, v any, keys ...string) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		d.fail(path, "want a mapping, got %s", typeName(v))
		return nil
	}
	var unknown []string
	for k := range m {
		if !slices.Contains(keys, k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		d.fail(join(path, k), "unknown field (known: %s)", strings.Join(keys, ", "))
	}
	return m
}

func (d *decoder) list(path string, v any) []any {
	if v == nil {
		return nil
	}
	l, ok := v.([]any)
	if !ok {
		d.fail(path, "want a list, got %s", typeName(v))
	}
	return l
}

func (d *decoder) str(path string, v any, def string) string {
	if v == nil {
		return def
	}
	s, ok := v.(string)
	if !ok {
		d.fail(path, "want a string, got %s", typeName(v))
	}
	return s
}

func (d *decoder) enum(path string, v any, def string, allowed ...string) string {
	s := d.str(path, v, def)
	if !slices.Contains(allowed, s) {
		d.fail(path, "%q is not one of %s", s, strings.Join(allowed, ", "))
	}
	return s
}

func (d *decoder) integer(path string, v any, def, lo, hi int) int {
	if v == nil {
		return def
	}
	n, ok := v.(json.Number)
	i, err := n.Int64()
	if !ok || err != nil {
		d.fail(path, "want an integer, got %s", typeName(v))
		return def
	}
	if i < int64(lo) || i > int64(hi) {
		d.fail(path, "%d is out of range [%d, %d]", i, lo, hi)
		return def
	}
	return int(i)
}

func (d *decoder) boolean(path string, v any) bool {
	if v == nil {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		d.fail(path, "want true or false, got %s", typeName(v))
	}
	return b
}

func (d *decoder) duration(path string, v any, def, lo, hi time.Duration) time.Duration {
	if v == nil {
		return def
	}
	s, ok := v.(string)
	if !ok {
		d.fail(path, `want a duration such as "10s", got %s`, typeName(v))
		return def
	}
	dur, err := time.ParseDuration(s)
	if err != nil {
		d.fail(path, `%q is not a duration such as "10s" or "1m30s"`, s)
		return def
	}
	if dur < lo || dur > hi {
		d.fail(path, "%s is out of range [%s, %s]", dur, lo, hi)
		return def
	}
	return dur
}

func (d *decoder) schema(path string, v any, def string) json.RawMessage {
	if v == nil {
		if def == "" {
			return nil
		}
		return json.RawMessage(def)
	}
	switch v.(type) {
	case map[string]any, bool:
	default:
		d.fail(path, "want a JSON Schema (a mapping), got %s", typeName(v))
		return nil
	}
	b, err := canonicalJSON(v)
	if err != nil {
		d.fail(path, "%v", err)
	}
	return b
}

func (d *decoder) file(doc any) *spec {
	m := d.object("", doc, "tools", "grants")
	if m == nil {
		return nil
	}
	s := &spec{Tools: []specTool{}, Grants: []specGrant{}}
	for i, t := range d.list("tools", m["tools"]) {
		s.Tools = append(s.Tools, d.tool(fmt.Sprintf("tools[%d]", i), t))
	}
	byTenant := map[string][]string{}
	for i, g := range d.list("grants", m["grants"]) {
		path := fmt.Sprintf("grants[%d]", i)
		gm := d.object(path, g, "tenant", "permissions")
		if gm == nil {
			continue
		}
		tenant := d.str(join(path, "tenant"), gm["tenant"], "")
		if err := events.ValidTenant(tenant); err != nil || tenant == events.SystemTenant {
			d.fail(join(path, "tenant"), "%q is not a tenant name (1 to 64 of [A-Za-z0-9_-], not starting with '_')", tenant)
		}
		perms := d.list(join(path, "permissions"), gm["permissions"])
		if perms == nil {
			d.fail(join(path, "permissions"), "required: the permissions granted to %s", tenant)
		}
		for j, p := range perms {
			pp := fmt.Sprintf("%s.permissions[%d]", path, j)
			ps := d.str(pp, p, "")
			if ps == "" {
				d.fail(pp, "empty permission")
			}
			byTenant[tenant] = append(byTenant[tenant], ps)
		}
		if _, ok := byTenant[tenant]; !ok {
			byTenant[tenant] = nil
		}
	}
	for tenant, perms := range byTenant {
		slices.Sort(perms)
		s.Grants = append(s.Grants, specGrant{Tenant: tenant, Permissions: slices.Compact(perms)})
	}
	sort.Slice(s.Grants, func(i, j int) bool { return s.Grants[i].Tenant < s.Grants[j].Tenant })
	for i := range s.Grants {
		if s.Grants[i].Permissions == nil {
			s.Grants[i].Permissions = []string{}
		}
	}
	return s
}

func (d *decoder) tool(path string, v any) specTool {
	m := d.object(path, v, "name", "version", "description", "input_schema", "output_schema", "timeout",
		"retry", "idempotency", "permission", "side_effect", "approval", "coerce", "http", "command", "mcp", "env", "sandbox",
		"lenient_json", "fresh_for", "object", "authorize")
	t := specTool{path: path}
	if m == nil {
		return t
	}
	t.Name = d.str(join(path, "name"), m["name"], "")
	if err := validName(t.Name); err != "" {
		d.fail(join(path, "name"), "%s", err)
	}
	t.Version = d.integer(join(path, "version"), m["version"], 1, 1, math.MaxInt32)
	t.Description = d.str(join(path, "description"), m["description"], "")
	t.InputSchema = d.schema(join(path, "input_schema"), m["input_schema"], `{"type":"object"}`)
	t.OutputSchema = d.schema(join(path, "output_schema"), m["output_schema"], "")
	t.timeout = d.duration(join(path, "timeout"), m["timeout"], TimeoutDefault, time.Millisecond, TimeoutMax)
	t.Timeout = t.timeout.String()

	t.Retry = specRetry{MaxAttempts: 1, Backoff: "0s", On: []events.ErrorType{}}
	if rv := m["retry"]; rv != nil {
		rp := join(path, "retry")
		rm := d.object(rp, rv, "max_attempts", "backoff", "on")
		if rm != nil {
			t.Retry.MaxAttempts = d.integer(join(rp, "max_attempts"), rm["max_attempts"], 1, 1, AttemptsMax)
			t.backoff = d.duration(join(rp, "backoff"), rm["backoff"], 0, 0, BackoffMax)
			t.Retry.Backoff = t.backoff.String()
			for i, e := range d.list(join(rp, "on"), rm["on"]) {
				ep := fmt.Sprintf("%s.on[%d]", rp, i)
				et := events.ErrorType(d.str(ep, e, ""))
				if !slices.Contains(retryable, et) {
					d.fail(ep, "%q cannot be retried (retryable: %s)", et, joinTypes(retryable))
					continue
				}
				if !slices.Contains(t.Retry.On, et) {
					t.Retry.On = append(t.Retry.On, et)
				}
			}
			slices.Sort(t.Retry.On)
		}
	}
	t.Idempotency = d.enum(join(path, "idempotency"), m["idempotency"], IdempotencyNone, IdempotencyRequired, IdempotencyNone)
	t.Permission = d.str(join(path, "permission"), m["permission"], t.Name)
	if t.Permission == "" && m["permission"] != nil {
		d.fail(join(path, "permission"), "empty permission (omit it to use the tool's name)")
	}
	t.SideEffect = d.enum(join(path, "side_effect"), m["side_effect"], SideEffectReversible, SideEffectNone, SideEffectReversible, SideEffectIrreversible)
	defApproval := ApprovalNone
	if t.SideEffect == SideEffectIrreversible {
		defApproval = ApprovalRequired
	}
	t.Approval = d.enum(join(path, "approval"), m["approval"], defApproval, ApprovalNone, ApprovalRequired)
	if t.SideEffect == SideEffectIrreversible && t.Approval != ApprovalRequired {
		d.fail(join(path, "approval"), "an irreversible tool waits for an approval (docs/design.md invariant 5): set approval: required, or side_effect: reversible")
	}
	t.Coerce = d.boolean(join(path, "coerce"), m["coerce"])
	t.LenientJSON = d.boolean(join(path, "lenient_json"), m["lenient_json"])
	if m["fresh_for"] != nil {
		t.freshFor = d.duration(join(path, "fresh_for"), m["fresh_for"], 0, time.Second, FreshForMax)
		t.FreshFor = t.freshFor.String()
	}
	atMostOnce := t.Idempotency != IdempotencyRequired && t.SideEffect != SideEffectNone
	if atMostOnce && t.Retry.MaxAttempts > 1 {
		for _, et := range t.Retry.On {
			if et == events.ErrProviderTimeout || et == events.ErrToolError {
				d.fail(join(path, "retry.on"), "retrying %s could repeat the side effect of a tool without idempotency: declare idempotency: required, or retry only on unavailable or business_rejected", et)
			}
		}
	}
	if hv := m["http"]; hv != nil {
		hp := join(path, "http")
		hm := d.object(hp, hv, "url", "headers", "follow_redirects")
		if hm != nil {
			h := &specHTTP{URL: d.str(join(hp, "url"), hm["url"], "")}
			if u, err := url.Parse(h.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				d.fail(join(hp, "url"), "%q is not an http(s) URL", h.URL)
			}
			d.urlCredentials(join(hp, "url"), h.URL)
			if hh := hm["headers"]; hh != nil {
				h.Headers = d.headers(join(hp, "headers"), hh)
			}
			if d.enum(join(hp, "follow_redirects"), hm["follow_redirects"], RedirectsNone, RedirectsNone, RedirectsSameOrigin) == RedirectsSameOrigin {
				h.FollowRedirects = RedirectsSameOrigin
			}
			t.HTTP = h
		}
	}
	if cv := m["command"]; cv != nil {
		cp := join(path, "command")
		for i, a := range d.list(cp, cv) {
			t.Command = append(t.Command, d.str(fmt.Sprintf("%s[%d]", cp, i), a, ""))
		}
		if len(t.Command) == 0 || t.Command[0] == "" {
			d.fail(cp, "want the program and its arguments, e.g. [\"/usr/local/bin/refund\", \"--json\"]")
		}
	}
	if mv := m["mcp"]; mv != nil {
		mp := join(path, "mcp")
		mm := d.object(mp, mv, "url", "command", "tool", "headers")
		if mm != nil {
			s := &specMCP{URL: d.str(join(mp, "url"), mm["url"], ""), Tool: d.str(join(mp, "tool"), mm["tool"], t.Name)}
			if cv := mm["command"]; cv != nil {
				cp := join(mp, "command")
				for i, a := range d.list(cp, cv) {
					s.Command = append(s.Command, d.str(fmt.Sprintf("%s[%d]", cp, i), a, ""))
				}
				if len(s.Command) == 0 || s.Command[0] == "" {
					d.fail(cp, "want the server's program and its arguments, e.g. [\"/usr/local/bin/orders-mcp\", \"--stdio\"]")
				}
			}
			switch {
			case mm["command"] != nil && mm["url"] != nil:
				d.fail(mp, "give url (Streamable HTTP) or command (stdio), not both")
			case mm["command"] != nil:
				if mm["headers"] != nil {
					d.fail(join(mp, "headers"), "headers apply to a url; a stdio server gets env")
				}
			default:
				if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					d.fail(join(mp, "url"), "%q is not an http(s) URL (the server's Streamable HTTP endpoint, e.g. https://host/mcp; or give command: a stdio server)", s.URL)
				}
				d.urlCredentials(join(mp, "url"), s.URL)
			}
			if s.Tool == "" {
				d.fail(join(mp, "tool"), "empty tool (omit it to call the server's tool of this tool's name)")
			}
			if hh := mm["headers"]; hh != nil {
				s.Headers = d.headers(join(mp, "headers"), hh)
			}
			t.MCP = s
		}
	}
	if n := btoi(t.HTTP != nil) + btoi(t.Command != nil) + btoi(t.MCP != nil); n > 1 {
		d.fail(path, "give one of http, command and mcp, not both (or all three)")
	}
	d.confinement(path, m, &t)
	if ov := m["object"]; ov != nil {
		t.Object = d.str(join(path, "object"), ov, "")
		if _, err := parseObject(t.Object); err != nil {
			d.fail(join(path, "object"), "%v", err)
		} else if t.SideEffect == SideEffectNone {
			d.fail(join(path, "object"), "object names what a call changes, and a tool with side_effect: none changes nothing: drop object, or set side_effect")
		}
	}
	if av := m["authorize"]; av != nil {
		ap := join(path, "authorize")
		am := d.object(ap, av, "http", "headers")
		if am != nil {
			a := &specAuthorize{HTTP: d.str(join(ap, "http"), am["http"], "")}
			if u, err := url.Parse(a.HTTP); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				d.fail(join(ap, "http"), "%q is not an http(s) URL (the service that answers whether the user may act on the object)", a.HTTP)
			}
			d.urlCredentials(join(ap, "http"), a.HTTP)
			if hh := am["headers"]; hh != nil {
				a.Headers = d.headers(join(ap, "headers"), hh)
			}
			t.Authorize = a
		}
	}
	return t
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// validName returns what is wrong with a tool name, or "".
func validName(name string) string {
	if name == "" {
		return "required: the tool's name"
	}
	if len(name) > NameBytesMax {
		return fmt.Sprintf("longer than %d bytes", NameBytesMax)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == ':') {
			return fmt.Sprintf("%q: a name is made of [A-Za-z0-9_.:-]", name)
		}
	}
	return ""
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func joinTypes(ts []events.ErrorType) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return fmt.Sprintf("%T", v)
}

// canonicalJSON encodes v with sorted object keys and without HTML escaping.
func canonicalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
