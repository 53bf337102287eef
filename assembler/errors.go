package assembler

import "errors"

// ErrInvalidRegistry is returned (wrapping events.ErrBadInput) when a
// RegistryChanged event carries a registry that does not parse.
var ErrInvalidRegistry = errors.New("assembler: invalid registry")
