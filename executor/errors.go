package executor

import "errors"

var (
	// ErrInvalidConfig is returned by New for a configuration it cannot use.
	ErrInvalidConfig = errors.New("executor: invalid config")

	// ErrNoConsumer is returned by Run when a shared durable consumer
	// (ts-executor, ts-executor-approvals) does not exist and the
	// executor's identity may not create it: `toolstream setup` makes it.
	ErrNoConsumer = errors.New("executor: durable consumer missing")

	// ErrInvalidKey is returned by Approve and Deny for a call key that is
	// not one of the tenant's idempotency keys (tenant/run/step/call):
	// approvals never cross tenants (docs/design.md invariant 7).
	ErrInvalidKey = errors.New("executor: invalid call key")

	// ErrAlreadyDecided is returned by Approve and Deny when a decision about
	// the call was already published (within the log's duplicate window);
	// the first decision stands.
	ErrAlreadyDecided = errors.New("executor: approval already decided")

	// errLeaseLost ends an execution whose lease another executor took over;
	// its result, if any, is dropped: the new owner decides the outcome.
	errLeaseLost = errors.New("executor: lease lost")

	// errConflict means the call's record changed under a compare-and-set:
	// read it again and decide again.
	errConflict = errors.New("executor: record changed")
)

// errHandBack gives the input back to the stream (Nak) without a warning:
// the executor is stopping, or the call must wait.
var errHandBack = errors.New("executor: handed back")

// errTenantBusy hands an input back (with a delay) because its tenant has
// too many calls waiting for a slot already.
var errTenantBusy = errors.New("executor: tenant busy")
