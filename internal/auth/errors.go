package auth

import "errors"

var (
	// ErrNoMaterial: the directory holds no security material yet.
	ErrNoMaterial = errors.New("auth: no security material")
	// ErrMaterial: the material is incomplete, unreadable or does not
	// verify (a JWT not signed by the key it should be).
	ErrMaterial = errors.New("auth: bad security material")
	// ErrInsecure: a file or directory of the material can be read by
	// others than its owner; nothing is loaded from it.
	ErrInsecure = errors.New("auth: security material readable by others")
	// ErrUnknownRole: an identity names no role, or a tenant where its role
	// takes none.
	ErrUnknownRole = errors.New("auth: unknown role")
)
