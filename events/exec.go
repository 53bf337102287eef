package events

import "time"

// Execution events: what executors did with completed calls. They live on
// ExecSubject / ResultSubject and carry the call's identity in the envelope.

const (
	KindExecutionStarted  Kind = "exec.started"
	KindCallSucceeded     Kind = "exec.succeeded"
	KindCallFailed        Kind = "exec.failed"
	KindApprovalRequested Kind = "exec.approval_requested"
	KindApprovalGranted   Kind = "exec.approval_granted"
	KindApprovalDenied    Kind = "exec.approval_denied"
	KindRegistryChanged   Kind = "exec.registry_changed"
)

// ExecutionStarted records an attempt taken under a lease.
type ExecutionStarted struct {
	Name     string `msgpack:"n"`
	Version  int    `msgpack:"ver,omitempty"`
	Attempt  int    `msgpack:"at"`
	Executor string `msgpack:"ex"`
	Key      string `msgpack:"k"` // idempotency key tenant/run/step/call
}

// CallSucceeded carries a tool's result: the structured result, a bounded
// model-facing summary and, for large results, a reference to the raw bytes.
type CallSucceeded struct {
	Name    string `msgpack:"n"`
	Version int    `msgpack:"ver,omitempty"`
	Key     string `msgpack:"k"`
	Result  []byte `msgpack:"res,omitempty"` // JSON; empty when only RawRef holds it
	Summary string `msgpack:"sum"`
	RawRef  string `msgpack:"ref,omitempty"` // object store name of the raw result
	// Excerpt is, for a result kept only in the object store (RawRef),
	// what the verifier reads of it: the result's values in document
	// order (keys sorted) as JSON, each at the pointer it has in the whole
	// result, up to the inline bound. A value that does not fit is left
	// out, and in an array so is every element after it; Cuts gives each
	// array so shortened its length in the whole result. It is sealed
	// with the event, as the raw result is.
	Excerpt  []byte     `msgpack:"xc,omitempty"`
	Cuts     []ArrayCut `msgpack:"cut,omitempty"`
	Attempts int        `msgpack:"na"`
	// FreshFor is how long the result holds (the contract's fresh_for);
	// 0 is for ever. The verifier calls a claim resting only on results
	// past it stale.
	FreshFor time.Duration `msgpack:"ff,omitempty"`
}

// ArrayCut is an array an excerpt shortened: its RFC 6901 pointer, its
// length in the whole result and the elements the excerpt kept.
type ArrayCut struct {
	Pointer string `msgpack:"p" json:"pointer"`
	Len     int    `msgpack:"n" json:"len"`
	Kept    int    `msgpack:"k" json:"kept"`
}

// CallFailed carries a typed error the model can act on.
type CallFailed struct {
	Name     string    `msgpack:"n"`
	Version  int       `msgpack:"ver,omitempty"`
	Key      string    `msgpack:"k"`
	Error    ErrorType `msgpack:"e"`
	Message  string    `msgpack:"m"`
	Attempts int       `msgpack:"na"`
}

// ApprovalRequested says an irreversible call waits for a person.
type ApprovalRequested struct {
	Name      string `msgpack:"n"`
	Arguments []byte `msgpack:"a"`
	Key       string `msgpack:"k"`
}

// ApprovalGranted lets a waiting call run.
type ApprovalGranted struct {
	By     string `msgpack:"by,omitempty"`
	Reason string `msgpack:"r,omitempty"`
}

// ApprovalDenied ends a waiting call with approval_denied.
type ApprovalDenied struct {
	By     string `msgpack:"by,omitempty"`
	Reason string `msgpack:"r,omitempty"`
}

// RegistryChanged records a new tool registry (contracts and grants) taking
// effect. Spec is the registry as canonical JSON; Digest is its SHA-256
// (hex).
//
// A change takes effect only when the operator signed it (docs/design.md
// invariant 10): Sig is an ed25519 signature by the key KeyID over the
// digest, IssuedAt, KeyID, Source and Spec (package registry says how), and
// IssuedAt orders changes, so re-publishing an older signed change never
// rolls the registry back. Events written before signing have none of the
// three fields and are rejected as unsigned.
type RegistryChanged struct {
	Digest   string `msgpack:"dg"`
	Source   string `msgpack:"src,omitempty"`
	Spec     []byte `msgpack:"sp"`
	IssuedAt int64  `msgpack:"ia,omitempty"`  // Unix nanoseconds, set by the signer
	KeyID    string `msgpack:"kid,omitempty"` // the signing key's id (registry.KeyID)
	Sig      []byte `msgpack:"sig,omitempty"` // ed25519 signature
}

func (*ExecutionStarted) Kind() Kind  { return KindExecutionStarted }
func (*CallSucceeded) Kind() Kind     { return KindCallSucceeded }
func (*CallFailed) Kind() Kind        { return KindCallFailed }
func (*ApprovalRequested) Kind() Kind { return KindApprovalRequested }
func (*ApprovalGranted) Kind() Kind   { return KindApprovalGranted }
func (*ApprovalDenied) Kind() Kind    { return KindApprovalDenied }
func (*RegistryChanged) Kind() Kind   { return KindRegistryChanged }
