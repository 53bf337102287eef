package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/toolstream/toolstream/events"
)

// Tool is a tool implemented in Go and registered with the executor by name
// (Config.Tools). Its contract (timeout, retries, idempotency…) comes from
// the registry; a registry tool with none of http, command and mcp is looked up
// here, first as "name@version", then as "name".
//
// Invoke carries out one call and returns its JSON result. It must honour
// ctx (the contract's timeout and a lost lease cancel it); a result returned
// after ctx ended is dropped. A tool whose contract says idempotency:
// required must de-duplicate by Call.Key: it may be invoked again with the
// same key after a crash. Return a *ToolError for a typed failure; any other
// error is a tool_error. Invoke may be called concurrently.
type Tool interface {
	Invoke(ctx context.Context, call Call) (json.RawMessage, error)
}

// ToolFunc adapts a function to Tool.
type ToolFunc func(ctx context.Context, call Call) (json.RawMessage, error)

// Invoke calls f.
func (f ToolFunc) Invoke(ctx context.Context, call Call) (json.RawMessage, error) {
	return f(ctx, call)
}

// Immediate is a Tool that returns at once: its Invoke does no I/O and
// waits for nothing (no network, no lock held by a slow holder, no channel
// another goroutine fills), a computation over its Call and memory. The
// executor runs it on the goroutine that handles its call, with no
// goroutine, timer, channel or context of its own per call (for a no-op
// call those were about a tenth of the executor's CPU). What changes for
// the tool: ctx carries no deadline of the contract's timeout (Call.Deadline
// still says it) and ends only when the executor stops or the call's lease
// is lost; a result returned after the timeout is still dropped, the call
// failing with provider_timeout, exactly as for a Tool. A tool that may
// block must not be Immediate: while it runs, its call's handler does
// nothing else, and the executor cannot stop waiting for it.
type Immediate interface {
	Tool
	// Immediate marks the tool; the executor never calls it.
	Immediate()
}

// ImmediateFunc adapts a function that returns at once to Immediate.
type ImmediateFunc func(ctx context.Context, call Call) (json.RawMessage, error)

// Invoke calls f.
func (f ImmediateFunc) Invoke(ctx context.Context, call Call) (json.RawMessage, error) {
	return f(ctx, call)
}

// Immediate marks f as Immediate.
func (ImmediateFunc) Immediate() {}

var _ Immediate = ImmediateFunc(nil)

// Call is what a tool is asked to do. Every field is set by the executor.
type Call struct {
	Tenant   string
	Name     string
	Version  int
	Args     json.RawMessage // canonical JSON object, validated against the input schema
	Key      string          // idempotency key: tenant/run/step/call (see CallKey)
	Attempt  int             // invocations begun for this call, this one included
	Deadline time.Time       // by the executor's clock

	User, Session, Run, Step, Response, Item, CallID string

	// Object is the business object the call changes (the contract's
	// object rendered from Args), "" when it names none; ObjectVersion is
	// the object's version the change is made over (identity.go).
	Object        string
	ObjectVersion uint64
}

// ToolError is a typed failure a tool reports: the model gets Type and
// Message in CallFailed. Message should say what to change.
type ToolError struct {
	Type    events.ErrorType
	Message string
}

func (e *ToolError) Error() string { return fmt.Sprintf("%s: %s", e.Type, e.Message) }

// Errorf returns a *ToolError of type t.
func Errorf(t events.ErrorType, format string, args ...any) *ToolError {
	return &ToolError{Type: t, Message: fmt.Sprintf(format, args...)}
}

// toolErrorTypes are the types a tool may report itself. The others are the
// executor's own decisions.
var toolErrorTypes = map[events.ErrorType]bool{
	events.ErrBusinessRejected: true,
	events.ErrToolError:        true,
	events.ErrUnavailable:      true,
	events.ErrProviderTimeout:  true,
	events.ErrValidation:       true,
}
