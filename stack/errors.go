package stack

import "errors"

// ErrUnknown is a projection or component name the stack does not know.
var ErrUnknown = errors.New("unknown projection")
