package registry

import (
	"errors"
	"fmt"
)

var (
	// ErrInvalidRegistry is the root of every error Parse and Load return for
	// a tools file they cannot use. Each problem is a *FieldError naming the
	// field (tools[2].retry.on[0]) that wraps it.
	ErrInvalidRegistry = errors.New("registry: invalid registry")

	// ErrNoRegistry is returned by Follower.Wait when the log holds no
	// registry yet and the context ends.
	ErrNoRegistry = errors.New("registry: no registry in the log")
)

// FieldError is one problem of a tools file: the field's path and what is
// wrong with it. It wraps ErrInvalidRegistry.
type FieldError struct {
	Path string // e.g. "tools[0].timeout"; "" for the document itself
	Msg  string
}

func (e *FieldError) Error() string {
	if e.Path == "" {
		return "registry: " + e.Msg
	}
	return fmt.Sprintf("registry: %s: %s", e.Path, e.Msg)
}

// Unwrap returns ErrInvalidRegistry.
func (e *FieldError) Unwrap() error { return ErrInvalidRegistry }
