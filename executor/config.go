package executor

import (
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/telemetry"
	"github.com/toolstream/toolstream/registry"
)

// Config configures an Executor. Zero values take the defaults given.
type Config struct {
	// Keys opens sealed calls and seals the outcomes (the user's data in
	// them); nil: the clear.
	Keys events.Keyring
	// MsgIDKey tags the message ids of the executor's outcomes and
	// execution events (events.OwnedMsgID), so that no other role writing
	// their streams (the driver, the verifier, the assembler, ...) can
	// claim one ahead and have the real one dropped as its duplicate. Every
	// executor of a log must be given the same key: serve's is its bus's
	// (bus.Bus.MsgIDKey: the installation's, or the executor creds').
	// nil: the plain ids (tests, a log of its own).
	MsgIDKey []byte
	// JS locates the log; Stream is the stream of calls and approvals,
	// events.StreamCalls by default.
	JS     jetstream.JetStream
	Stream string
	// Registry returns the registry in effect; it is called for every call,
	// so a new registry (registry.Watcher, registry.Follower) takes effect
	// without a restart. nil, or a func returning nil, means no registry: Go
	// tools in Tools run under DefaultContract and anything else is an
	// unknown tool.
	Registry func() *registry.Registry
	// Tools are the Go tools, by "name" or "name@version".
	Tools map[string]Tool
	// ExecutorID names this executor in leases and ExecutionStarted; default
	// host-pid. A random suffix is added per New, so a restarted process
	// never mistakes its predecessor's lease for its own.
	ExecutorID string

	// Durable is the shared consumer of completed calls; default
	// "ts-executor". Every executor process of a deployment uses the same one
	// (competing consumers).
	Durable string
	// ApprovalDurable is the shared consumer of approval decisions; default
	// Durable + "-approvals".
	ApprovalDurable string
	// Bucket is the key-value bucket of call records; default "ts_exec".
	Bucket string
	// ObjectBucket is the object store of large raw results; default
	// "ts_results".
	ObjectBucket string
	// Replicas of the bucket and the object store; default 1.
	Replicas int
	// RecordTTL, when set, lets the bucket forget a call's record that long
	// after its last change, bounding the bucket. A duplicate of a forgotten
	// call would run again, and a call waiting for approval longer than
	// RecordTTL is lost, so it must exceed both the log's redelivery horizon
	// and the longest approval wait. 0 (the default) keeps records forever.
	RecordTTL time.Duration

	// Heartbeat is how often a held lease is renewed and an unacknowledged
	// input is marked in progress; default 1s.
	Heartbeat time.Duration
	// LeaseTTL is how long a lease lasts without renewal; default 4 ×
	// Heartbeat, and it must be 3 to 5 × Heartbeat. It is also the
	// consumers' AckWait, so a crashed executor's calls are redelivered when
	// their leases run out.
	LeaseTTL time.Duration
	// MaxParallelPerTenant bounds the calls of one tenant invoked at once;
	// default 8.
	MaxParallelPerTenant int
	// InFlightMax bounds the completed calls one executor holds at once
	// (waiting for dependencies, a tenant slot, or running); default 256.
	// Approval decisions have InFlightMax/8 (at least 1) more of their own.
	InFlightMax int
	// TakeoversMax bounds how often a call's lease is taken over from a
	// crashed executor; past it the call fails (outcome_unknown when an
	// invocation had begun, unavailable otherwise). Default 10.
	TakeoversMax int
	// DependencyWaitMax bounds how long a call waits for the calls it
	// depends on; default 10m.
	DependencyWaitMax time.Duration
	// DrainTimeout bounds how long Run waits, after its context ends, for
	// running invocations to finish; default 10s. Calls still waiting are
	// handed back at once, to wait as a busy input does (handback.go: a
	// few milliseconds on its first delivery).
	DrainTimeout time.Duration

	// BreakerFailures consecutive failures of a tool for a tenant open its
	// circuit; default 5. BreakerCoolDown is how long it stays open; default
	// 30s.
	BreakerFailures int
	BreakerCoolDown time.Duration

	// ResultInlineMax is the largest result kept inline in CallSucceeded;
	// larger ones go to the object store by reference. Default 64 KiB.
	ResultInlineMax int
	// ResultBytesMax bounds a result a tool may return; default 16 MiB.
	ResultBytesMax int
	// SummaryMax bounds the model-facing summary; default 2 KiB.
	SummaryMax int

	// HTTPClient runs http and mcp tools; default a client without a global timeout
	// (the contract's timeout applies per call). Its CheckRedirect is
	// replaced per tool by the contract's follow_redirects.
	HTTPClient *http.Client

	// TempDir is where command tools get their private HOME and TMPDIR: a
	// directory of the executor's own is made in it, with a fresh one per
	// invocation inside, removed after the invocation. Default
	// os.TempDir().
	TempDir string
	// BwrapPath is the bubblewrap program that sandboxes command tools
	// whose contract asks for a sandbox; default "bwrap" found in PATH.
	// Where it is missing or fails, those tools are refused, never run
	// unconfined.
	BwrapPath string
	// PrlimitPath is util-linux's prlimit, which sets a sandbox's memory and
	// cpu limits; default "prlimit" found in PATH.
	PrlimitPath string
	// Hidden are directories and files a sandboxed tool never sees,
	// whatever its contract names: serve gives its --data (the operator's
	// seed, the registry's signing key, the console's key, the log, the
	// views) and the .creds, TLS key and signing key files it was given. A
	// tool whose sandbox.read or sandbox.write reaches one of them (names
	// it, a path inside it, or a directory holding it, after symbolic
	// links) is refused (unavailable), never run.
	Hidden []string
	// Logger; nil discards.
	Logger *slog.Logger
	// Clock gives the time of leases, the circuit breaker and event times;
	// default time.Now. Timeouts of invocations use the runtime's timers.
	Clock func() time.Time
	// Hooks for tests; nil in production.
	Hooks *Hooks
	// Telemetry traces each attempt ("execute_tool {name}", otel.go), a
	// child of the model request whose trace context the call carries; nil
	// traces nothing.
	Telemetry *telemetry.Telemetry
}

// Hooks let tests observe and disturb an executor at exact points. Each
// runs on the goroutine handling the call.
type Hooks struct {
	// BeforeInvoke runs after the lease is re-checked, just before the tool
	// is invoked.
	BeforeInvoke func(call Call)
	// AfterInvoke runs when the tool has returned, before its outcome is
	// recorded.
	AfterInvoke func(call Call)
	// BeforePublish runs when a call's outcome is decided (and, for a
	// record in the bucket, written there), just before it is published.
	BeforePublish func(key string)
	// BeforeAck runs when a call's outcome is recorded and published, just
	// before its input is acknowledged.
	BeforeAck func(key string)
	// SkipHeartbeat, when it returns true, skips a lease renewal (and the
	// input's in-progress mark) of the call: a paused executor.
	SkipHeartbeat func(key string) bool
}

// The buckets an executor keeps by default: its call records (key-value)
// and its raw results (object store). Only the admin identity creates them
// (package auth names them in its roles).
const (
	BucketDefault       = "ts_exec"
	ObjectBucketDefault = "ts_results"
)

func (c *Config) setDefaults() error {
	if c.Stream == "" {
		c.Stream = events.StreamCalls
	}
	if c.JS == nil {
		return fmt.Errorf("%w: JS is required", ErrInvalidConfig)
	}
	if c.ExecutorID == "" {
		host, _ := os.Hostname()
		c.ExecutorID = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	if c.Durable == "" {
		c.Durable = "ts-executor"
	}
	if c.ApprovalDurable == "" {
		c.ApprovalDurable = c.Durable + "-approvals"
	}
	if c.Bucket == "" {
		c.Bucket = BucketDefault
	}
	if c.ObjectBucket == "" {
		c.ObjectBucket = ObjectBucketDefault
	}
	if c.Replicas <= 0 {
		c.Replicas = 1
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = time.Second
	}
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = 4 * c.Heartbeat
	}
	if c.LeaseTTL < 3*c.Heartbeat || c.LeaseTTL > 5*c.Heartbeat {
		return fmt.Errorf("%w: LeaseTTL %s must be 3 to 5 × Heartbeat %s", ErrInvalidConfig, c.LeaseTTL, c.Heartbeat)
	}
	if c.MaxParallelPerTenant <= 0 {
		c.MaxParallelPerTenant = 8
	}
	if c.InFlightMax <= 0 {
		c.InFlightMax = 256
	}
	if c.TakeoversMax <= 0 {
		c.TakeoversMax = 10
	}
	if c.DependencyWaitMax <= 0 {
		c.DependencyWaitMax = 10 * time.Minute
	}
	if c.DrainTimeout <= 0 {
		c.DrainTimeout = 10 * time.Second
	}
	if c.BreakerFailures <= 0 {
		c.BreakerFailures = 5
	}
	if c.BreakerCoolDown <= 0 {
		c.BreakerCoolDown = 30 * time.Second
	}
	if c.ResultInlineMax <= 0 {
		c.ResultInlineMax = 64 << 10
	}
	if c.ResultBytesMax <= 0 {
		c.ResultBytesMax = 16 << 20
	}
	if c.SummaryMax <= 0 {
		c.SummaryMax = 2 << 10
	}
	if c.SummaryMax < 256 {
		return fmt.Errorf("%w: SummaryMax %d is below 256", ErrInvalidConfig, c.SummaryMax)
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	if c.TempDir == "" {
		c.TempDir = os.TempDir()
	}
	if c.BwrapPath == "" {
		c.BwrapPath = lookPathOr("bwrap")
	}
	if c.PrlimitPath == "" {
		c.PrlimitPath = lookPathOr("prlimit")
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.Registry == nil {
		c.Registry = func() *registry.Registry { return nil }
	}
	return nil
}

// lookPathOr returns where PATH finds name, or name itself (a sandbox check
// then says it is missing).
func lookPathOr(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return name
}

// DefaultContract is the contract of a Go tool when there is no registry:
// no schema, 30s timeout, no retry, and, since nothing says it is safe to
// repeat, at most one invocation per call.
func DefaultContract(name string) *registry.Tool {
	return &registry.Tool{
		Name: name, Version: 1, Timeout: registry.TimeoutDefault,
		Retry:       registry.RetryPolicy{MaxAttempts: 1},
		Idempotency: registry.IdempotencyNone, Permission: name,
		SideEffect: registry.SideEffectReversible, Approval: registry.ApprovalNone,
	}
}
