package projector

import "errors"

var (
	// ErrInvalidConfig is returned by New for a configuration it cannot use.
	ErrInvalidConfig = errors.New("projector: invalid config")

	// ErrNoTenant is returned by TenantKey, and by queries, for an empty or
	// invalid tenant: a query without a tenant is an error, never "all
	// tenants".
	ErrNoTenant = errors.New("projector: tenant required")

	// ErrClosed is returned by a Runner used after Close.
	ErrClosed = errors.New("projector: closed")

	// ErrDigestMismatch is returned by Verify when a rebuilt view differs
	// from the live one.
	ErrDigestMismatch = errors.New("projector: replay digest differs from live view")
)
