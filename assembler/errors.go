package assembler

import "errors"

// ErrInvalidRegistry is returned (wrapping events.ErrBadInput, so the
// projector records the event as rejected) when Config.AcceptRegistry
// refuses a RegistryChanged event: not signed by a trusted key, stale, or
// not a registry. The refusal's own error, with its typed reason, is
// wrapped too.
var ErrInvalidRegistry = errors.New("assembler: registry change rejected")

// ErrInvalidQuota is returned for quotas that cannot be enforced (a quota
// for an empty tenant name).
var ErrInvalidQuota = errors.New("assembler: invalid quota")
