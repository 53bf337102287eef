package registry

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/toolstream/toolstream/events"
)

// Idempotency levels (the contract's idempotency field).
const (
	// IdempotencyRequired: the tool de-duplicates by the idempotency key it
	// receives, so the executor may invoke it again with the same key after
	// a crash.
	IdempotencyRequired = "required"
	// IdempotencyNone: the tool does not de-duplicate. If it has a side
	// effect, the executor invokes it at most once per call.
	IdempotencyNone = "none"
)

// Side-effect levels (the contract's side_effect field).
const (
	SideEffectNone         = "none"
	SideEffectReversible   = "reversible"
	SideEffectIrreversible = "irreversible"
)

// Approval levels (the contract's approval field).
const (
	ApprovalNone     = "none"
	ApprovalRequired = "required"
)

// Implementations a contract can name.
const (
	ImplHTTP    = "http"    // POST the arguments to HTTP.URL
	ImplCommand = "command" // run Command, arguments on stdin
	ImplMCP     = "mcp"     // call MCP.Tool on the MCP server at MCP.URL (Streamable HTTP)
	ImplGo      = "go"      // none of http, command and mcp: a Go Tool registered with the executor
)

// Bounds of a contract. Parse refuses values outside them.
const (
	// TimeoutDefault is a contract's timeout when the file gives none.
	TimeoutDefault = 30 * time.Second
	// TimeoutMax bounds a contract's timeout.
	TimeoutMax = 24 * time.Hour
	// FreshForMax bounds a contract's fresh_for.
	FreshForMax = 365 * 24 * time.Hour
	// AttemptsMax bounds retry.max_attempts.
	AttemptsMax = 10
	// BackoffMax bounds retry.backoff.
	BackoffMax = time.Hour
	// NameBytesMax bounds a tool name.
	NameBytesMax = 128
)

// Tool is one tool's contract. A Tool returned by a Registry is shared and
// must not be modified.
type Tool struct {
	Name         string
	Version      int // ≥ 1
	Description  string
	InputSchema  json.RawMessage // canonical JSON; {"type":"object"} when the file gives none
	OutputSchema json.RawMessage // canonical JSON; nil when the file gives none
	Timeout      time.Duration   // per attempt
	Retry        RetryPolicy
	Idempotency  string // IdempotencyRequired | IdempotencyNone
	Permission   string // scope a tenant must be granted; the tool's name by default
	SideEffect   string // SideEffectNone | SideEffectReversible | SideEffectIrreversible
	Approval     string // ApprovalNone | ApprovalRequired
	Coerce       bool   // allow "12" → 12 where the input schema wants a number
	HTTP         *HTTPSpec
	Command      []string
	// MCP is an MCP server's tool implementing this one; nil for others.
	MCP *MCPSpec
	// Env are the variables a command tool gets besides its minimal
	// environment (PATH, HOME, TMPDIR, LANG, TOOLSTREAM_*): name → value,
	// where a value may hold references the executor resolves each call
	// (see Ref, Expand). PATH and LANG given here replace the defaults.
	Env map[string]string
	// Sandbox confines a command tool; nil: it runs unconfined.
	Sandbox *Sandbox
	// LenientJSON: the tool's calls whose arguments are almost JSON
	// (single quotes, trailing commas, unquoted keys, Python literals, a
	// code fence) are repaired, said so and still validated, whatever
	// the tenant (the assembler's LenientTenants opt in per tenant).
	LenientJSON bool
	// FreshFor is how long a result of the tool holds (fresh_for: 10m); 0
	// is for ever. The verifier calls a claim resting only on results
	// older than that stale.
	FreshFor time.Duration
	// Object is the business object a call changes, a template over the
	// call's top-level arguments ("order:{order_id}"; see ObjectKey). ""
	// when the tool changes none. The executor serialises changes of one
	// object (per tenant) and keeps its version.
	Object string
	// Authorize asks a service whether the call's user may act on the
	// call's object before the call runs; nil: no such check.
	Authorize *AuthorizeSpec

	object    *objectTemplate
	input     *jsonschema.Schema
	anyObject bool               // input accepts every object (anyObjectSchema): Validate does not ask it
	output    *jsonschema.Schema // nil: any result
}

// RetryPolicy says when a failed attempt is tried again. MaxAttempts counts
// every attempt, the first included: 1 means no retry.
type RetryPolicy struct {
	MaxAttempts int
	Backoff     time.Duration // wait between attempts
	On          []events.ErrorType
}

// Redirect policies of an http tool (http.follow_redirects).
const (
	// RedirectsNone: a redirect is not followed; the call fails.
	RedirectsNone = "none"
	// RedirectsSameOrigin: a redirect to the same scheme, host and port is
	// followed; any other is not, and the call fails.
	RedirectsSameOrigin = "same_origin"
)

// HTTPSpec is an http implementation: the arguments are POSTed as JSON to
// URL with Headers added. A header value may hold references the executor
// resolves each call (see Ref, Expand).
type HTTPSpec struct {
	URL             string
	Headers         map[string]string
	FollowRedirects string // RedirectsNone | RedirectsSameOrigin
}

// MCPSpec is an mcp implementation: the tool named Tool of the MCP server
// whose Streamable HTTP endpoint is URL, called with Headers added, or of
// the stdio server the executor runs as Command (with the tool's Env and
// Sandbox, as a command tool). A header value may hold references the
// executor resolves each call (see Ref, Expand).
type MCPSpec struct {
	URL     string
	Command []string // a stdio server: the program and its arguments; URL is then ""
	Tool    string
	Headers map[string]string
}

// AuthorizeSpec is an authorisation check (authorize.http): the executor
// POSTs who asks (tenant, user, run, step), the tool, the object and the
// arguments as JSON to URL with Headers added, before the call runs; an
// answer {"allow": true} lets it run, anything else refuses it. A header
// value may hold references the executor resolves each call (see Ref,
// Expand).
type AuthorizeSpec struct {
	URL     string
	Headers map[string]string
}

// Ref is the tool's versioned name, "name@version": Lookup accepts it.
func (t *Tool) Ref() string { return t.Name + "@" + strconv.Itoa(t.Version) }

// Impl names the tool's implementation: ImplHTTP, ImplCommand, ImplMCP or
// ImplGo.
func (t *Tool) Impl() string {
	switch {
	case t.HTTP != nil:
		return ImplHTTP
	case t.MCP != nil:
		return ImplMCP
	case len(t.Command) > 0:
		return ImplCommand
	}
	return ImplGo
}

// AtMostOnce reports whether the executor must never invoke the tool twice
// for one call: it has a side effect and does not de-duplicate by key
// (docs/design.md invariant 5).
func (t *Tool) AtMostOnce() bool {
	return t.Idempotency != IdempotencyRequired && t.SideEffect != SideEffectNone
}

// RetryOn reports whether an attempt that failed with et may be retried.
// It does not count attempts; see RetryPolicy.MaxAttempts.
func (t *Tool) RetryOn(et events.ErrorType) bool { return slices.Contains(t.Retry.On, et) }

// ValidateResult checks a tool's JSON result against the output schema. It
// returns "" when the result is acceptable (or there is no output schema),
// otherwise a detail saying which field is wrong.
func (t *Tool) ValidateResult(result []byte) string {
	if t.output == nil {
		return ""
	}
	v, err := readJSON(result) // jsonvalue.go
	if err != nil {
		return fmt.Sprintf("the result is not JSON: %v", err)
	}
	if _, err := checkValue(v, 0); err != nil { // numbers.go
		return "the result is not JSON the output schema can check: " + err.Error()
	}
	if err := t.output.Validate(v); err != nil {
		return "the result does not match the output schema: " + schemaDetail(err)
	}
	return ""
}
