package projector

import "errors"

var (
	// ErrInvalidConfig is returned by New for a configuration it cannot use.
	ErrInvalidConfig = errors.New("projector: invalid config")

	// ErrNoTenant is returned by TenantKey, and by queries, for an empty or
	// invalid tenant: a query without a tenant is an error, never "all
	// tenants".
	ErrNoTenant = errors.New("projector: tenant required")

	// ErrNoConsumer is returned by Runner.Run when the runner's durable
	// consumer does not exist and its identity may not create it (a
	// processor's role): `toolstream setup` makes it (*NoConsumerError).
	ErrNoConsumer = errors.New("projector: durable consumer missing")

	// ErrClosed is returned by a Runner used after Close.
	ErrClosed = errors.New("projector: closed")

	// ErrNotReplay is returned by NewReplayer for a directory that holds
	// something other than a replay of the projection: resuming a live
	// view as a replay would drop its outbox.
	ErrNotReplay = errors.New("projector: not a replay of this projection")

	// ErrPastLog is returned by a replay asked to reach a sequence past the
	// end of the log.
	ErrPastLog = errors.New("projector: past the end of the log")

	// ErrReplayAhead is returned by Replayer.To for a sequence below the
	// replay's checkpoint: a view is not rebuilt backwards.
	ErrReplayAhead = errors.New("projector: replay is past the sequence asked for")

	// ErrFault is wrapped by a *FaultError: a projection's own code
	// panicked on one message, which the runner rejected as bad input
	// (fault.go).
	ErrFault = errors.New("projector: the projection failed on this message")

	// ErrDigestMismatch is returned by Verify when a rebuilt view differs
	// from the live one.
	ErrDigestMismatch = errors.New("projector: replay digest differs from live view")
)
