package registry

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// PermissionAll, granted to a tenant, allows every permission.
const PermissionAll = "*"

// Registry is a parsed tools file: the tools' contracts and the tenants'
// grants. It is immutable once built and safe for concurrent use.
//
// A nil *Registry means "no registry": Lookup finds nothing, Allowed allows
// everything and Validate accepts any tool with its arguments unchanged.
type Registry struct {
	tools  map[string][]*Tool // by name, versions ascending
	wire   map[string]string  // a name's WireName, where it differs, to the name
	grants map[string][]string
	spec   []byte
	digest string

	fanOut map[*Tool]int // the most subschemas each input schema applies to one value (schemacost.go)

	// Set by FromEvent and Accept from the signed change that carried the
	// registry; zero for a registry parsed from a file.
	issuedAt int64
	keyID    string
}

// build compiles the schemas of a decoded spec.
func build(s *spec) (*Registry, error) {
	sort.SliceStable(s.Tools, func(i, j int) bool {
		a, b := s.Tools[i], s.Tools[j]
		return a.Name < b.Name || a.Name == b.Name && a.Version < b.Version
	})
	r := &Registry{tools: map[string][]*Tool{}, wire: map[string]string{}, grants: map[string][]string{}, fanOut: map[*Tool]int{}}
	var errs []error
	fail := func(path, format string, args ...any) {
		if len(errs) < errorsMax {
			errs = append(errs, &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
		}
	}
	for i := range s.Tools {
		st := &s.Tools[i]
		vs := r.tools[st.Name]
		if len(vs) > 0 && vs[len(vs)-1].Version == st.Version {
			fail(st.path, "tool %s version %d is declared twice", st.Name, st.Version)
			continue
		}
		t := &Tool{
			Name: st.Name, Version: st.Version, Description: st.Description,
			InputSchema: st.InputSchema, OutputSchema: st.OutputSchema,
			Timeout:     st.timeout,
			Retry:       RetryPolicy{MaxAttempts: st.Retry.MaxAttempts, Backoff: st.backoff, On: st.Retry.On},
			Idempotency: st.Idempotency, Permission: st.Permission, SideEffect: st.SideEffect,
			Approval: st.Approval, Coerce: st.Coerce, Command: st.Command,
			Env: st.Env, Sandbox: st.Sandbox.sandbox(),
		}
		t.LenientJSON = st.LenientJSON
		if st.Object != "" {
			t.Object = st.Object
			t.object, _ = parseObject(st.Object) // checked by the decoder
			if t.object != nil {
				if err := t.object.checkSchema(st.InputSchema); err != nil {
					fail(st.path+".object", "%v", err)
				}
			}
		}
		if st.Authorize != nil {
			t.Authorize = &AuthorizeSpec{URL: st.Authorize.HTTP, Headers: st.Authorize.Headers}
		}
		t.FreshFor = st.freshFor
		if st.HTTP != nil {
			t.HTTP = &HTTPSpec{URL: st.HTTP.URL, Headers: st.HTTP.Headers, FollowRedirects: RedirectsNone}
			if st.HTTP.FollowRedirects != "" {
				t.HTTP.FollowRedirects = st.HTTP.FollowRedirects
			}
		}
		if st.MCP != nil {
			t.MCP = &MCPSpec{URL: st.MCP.URL, Command: st.MCP.Command, Tool: st.MCP.Tool, Headers: st.MCP.Headers}
		}
		var err error
		if t.input, err = compileSchema(t.Ref(), "input_schema", st.InputSchema); err != nil {
			fail(st.path+".input_schema", "%v", err)
		} else if r.fanOut[t], err = schemaFanOut(t.input); err != nil {
			fail(st.path+".input_schema", "%v", err)
		}
		t.anyObject = anyObjectSchema(st.InputSchema)
		if st.OutputSchema != nil {
			if t.output, err = compileSchema(t.Ref(), "output_schema", st.OutputSchema); err != nil {
				fail(st.path+".output_schema", "%v", err)
			} else if _, err = schemaFanOut(t.output); err != nil {
				fail(st.path+".output_schema", "%v", err)
			}
		}
		r.tools[st.Name] = append(vs, t)
		if len(vs) == 0 {
			if w := WireName(st.Name); w != st.Name {
				r.wire[w] = st.Name
			}
		}
	}
	// Two names one wire name would make a provider's call ambiguous.
	for w, n := range r.wire {
		if _, real := r.tools[w]; real {
			fail("tools", "tools %s and %s are one name to a provider's API (%s): rename one", n, w, w)
		}
	}
	seen := map[string]string{}
	for _, n := range sortedNames(r.tools) {
		w := WireName(n)
		if other, ok := seen[w]; ok && other != n {
			fail("tools", "tools %s and %s are one name to a provider's API (%s): rename one", other, n, w)
		}
		seen[w] = n
	}
	for _, g := range s.Grants {
		r.grants[g.Tenant] = g.Permissions
	}
	if len(errs) > 0 {
		return nil, joinErrs(errs)
	}
	b, err := canonicalJSON(s)
	if err != nil {
		return nil, fmt.Errorf("registry: canonical spec: %w", err)
	}
	r.spec = b
	sum := sha256.Sum256(b)
	r.digest = hex.EncodeToString(sum[:])
	return r, nil
}

// anyObjectSchema reports whether a canonical input schema accepts every
// JSON object: the default {"type":"object"}, {} or true. Validate has
// checked that the arguments are one object before it asks the schema,
// so for these it need not ask.
func anyObjectSchema(canonical []byte) bool {
	switch string(canonical) {
	case `{"type":"object"}`, `{}`, `true`:
		return true
	}
	return false
}

// compileSchema compiles a contract's schema as JSON Schema draft 2020-12
// (unless it names another draft in $schema). Schemas are self-contained:
// a $ref to a file or a URL is not followed.
func compileSchema(ref, field string, raw []byte) (s *jsonschema.Schema, err error) {
	defer func() { // the schema library is third-party: a tools file must never take the process down
		if p := recover(); p != nil {
			s, err = nil, fmt.Errorf("not a JSON Schema this registry can compile: %v", p)
		}
	}()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	if n, _ := checkValue(doc, 0); n > SchemaValuesMax {
		return nil, fmt.Errorf("%d JSON values, more than %d: split the schema or simplify it", n, SchemaValuesMax)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(jsonschema.SchemeURLLoader{}) // nothing outside the file
	loc := "file:///toolstream/" + ref + "/" + field + ".json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	s, err = c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("not a valid JSON Schema: %v", strings.ReplaceAll(err.Error(), loc, field))
	}
	return s, nil
}

// Digest is the SHA-256 (hex) of the canonical spec: two files that declare
// the same tools and grants, in any order or layout, share it. "" for nil.
func (r *Registry) Digest() string {
	if r == nil {
		return ""
	}
	return r.digest
}

// Spec returns the canonical JSON form of the registry (sorted tools and
// grants, defaults filled in). Parse(Spec()) rebuilds an equal registry.
// The caller must not modify it. nil for a nil registry.
func (r *Registry) Spec() []byte {
	if r == nil {
		return nil
	}
	return r.spec
}

// IssuedAt is when the operator signed the change that carried r (Unix
// nanoseconds): later changes supersede it, earlier ones are stale. 0 for a
// registry parsed from a file, and for nil.
func (r *Registry) IssuedAt() int64 {
	if r == nil {
		return 0
	}
	return r.issuedAt
}

// KeyID names the key that signed the change that carried r; "" for a
// registry parsed from a file, and for nil.
func (r *Registry) KeyID() string {
	if r == nil {
		return ""
	}
	return r.keyID
}

// Lookup returns a tool's contract. name is "name" (the highest version) or
// "name@version" (exactly that version); name may also be the tool's
// WireName, the name a provider's API carried (weather__get for
// weather.get).
func (r *Registry) Lookup(name string) (*Tool, bool) {
	if r == nil {
		return nil, false
	}
	base, ver, pinned := strings.Cut(name, "@")
	vs := r.tools[base]
	if len(vs) == 0 {
		if n, ok := r.wire[base]; ok {
			vs = r.tools[n]
		}
	}
	if len(vs) == 0 {
		return nil, false
	}
	if !pinned {
		return vs[len(vs)-1], true
	}
	v, err := strconv.Atoi(ver)
	if err != nil {
		return nil, false
	}
	for _, t := range vs {
		if t.Version == v {
			return t, true
		}
	}
	return nil, false
}

// WireName is the name a provider's API carries for the tool named name.
// OpenAI's, Anthropic's and Gemini's function names are made of
// [A-Za-z0-9_-]; a registry name may also hold '.' and ':', written as "__"
// and "_-" (weather.get is weather__get, crm:lookup is crm_-lookup). The
// mapping is stable, and Lookup maps a wire name back: Parse refuses a
// registry in which two names share one wire name. Other names are their
// own wire name.
func WireName(name string) string {
	if !strings.ContainsAny(name, ".:") {
		return name
	}
	return wireReplacer.Replace(name)
}

var wireReplacer = strings.NewReplacer(".", "__", ":", "_-")

func sortedNames(m map[string][]*Tool) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Tools returns every contract, sorted by name and version.
func (r *Registry) Tools() []*Tool {
	if r == nil {
		return nil
	}
	var out []*Tool
	for _, vs := range r.tools {
		out = append(out, vs...)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Name < out[j].Name || out[i].Name == out[j].Name && out[i].Version < out[j].Version
	})
	return out
}

// Grants returns the permissions granted to tenant, sorted. A tenant
// without grants has none; "" is never a tenant.
func (r *Registry) Grants(tenant string) []string {
	if r == nil {
		return nil
	}
	return slices.Clone(r.grants[tenant])
}

// Allowed reports whether tenant holds permission (or PermissionAll). An
// empty tenant holds nothing. A nil registry allows everything.
func (r *Registry) Allowed(tenant, permission string) bool {
	if r == nil {
		return true
	}
	if tenant == "" {
		return false
	}
	perms := r.grants[tenant]
	_, ok := slices.BinarySearch(perms, permission)
	if !ok {
		_, ok = slices.BinarySearch(perms, PermissionAll)
	}
	return ok
}

// Equal reports whether two registries declare the same contracts and
// grants.
func (r *Registry) Equal(o *Registry) bool { return r.Digest() == o.Digest() }

func joinErrs(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	return &multiError{errs}
}

// multiError lists several problems; errors.Is/As see each of them.
type multiError struct{ errs []error }

func (m *multiError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "registry: %d problems:", len(m.errs))
	for _, e := range m.errs {
		b.WriteString("\n  ")
		b.WriteString(strings.TrimPrefix(e.Error(), "registry: "))
	}
	return b.String()
}

func (m *multiError) Unwrap() []error { return m.errs }
