package gateway

import "errors"

// ErrConfig is returned for a gateway configuration that cannot be used:
// unreadable YAML, an upstream without a name, kind or base URL, an
// unknown kind, two upstreams of one name, a key without a tenant or whose
// hash is not 64 hex digits, an ${env:NAME} that is not set.
var ErrConfig = errors.New("gateway: invalid config")

// ErrUnauthorized is the error of a request whose key is missing or
// unknown.
var ErrUnauthorized = errors.New("gateway: unknown API key")

// ErrBadRequest is the error of a request the gateway cannot route or
// read: not JSON, an unknown upstream or API, a malformed envelope header,
// a starting_after that is not a number.
var ErrBadRequest = errors.New("gateway: bad request")

// ErrNotFound is returned for a stream the log does not hold (for the
// caller's tenant).
var ErrNotFound = errors.New("gateway: no such stream")

// ErrUpstream wraps a failure to reach the upstream or read its answer.
var ErrUpstream = errors.New("gateway: upstream failed")

// Errors of a request its key's policy refuses (keys.go); each is
// answered in the provider's shape, and nothing goes upstream.
var (
	// ErrKeyExpired: the key's expires time has passed (401).
	ErrKeyExpired = errors.New("gateway: the API key expired")
	// ErrModelNotAllowed: the model is not in the key's models (403).
	ErrModelNotAllowed = errors.New("gateway: the API key may not use this model")
	// ErrBudgetExceeded: a budget of the key is spent for its window (429,
	// insufficient_quota, Retry-After until the window ends).
	ErrBudgetExceeded = errors.New("gateway: the API key's budget is spent")
	// ErrRateLimited: the key is over its rpm or tpm (429 with
	// Retry-After).
	ErrRateLimited = errors.New("gateway: the API key is over its rate limit")
)
