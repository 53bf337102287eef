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
