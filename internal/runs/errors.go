package runs

import "errors"

var (
	// ErrNotFound: no such run (or plan write) of the tenant.
	ErrNotFound = errors.New("runs: not found")
	// ErrStale: a write carried a version the run is no longer at. The
	// reply says the current version: read the run again.
	ErrStale = errors.New("runs: stale version")
	// ErrLeaseHeld: another driver holds the run's lease.
	ErrLeaseHeld = errors.New("runs: lease held by another driver")
	// ErrLeaseLost: the lease expired or was taken over; the driver must
	// start no new round.
	ErrLeaseLost = errors.New("runs: lease lost")
	// ErrInvalidConfig: a configuration that cannot work.
	ErrInvalidConfig = errors.New("runs: invalid config")
	// ErrInvalidRequest: a service request that is not one.
	ErrInvalidRequest = errors.New("runs: invalid request")
)
