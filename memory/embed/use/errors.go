package use

import "errors"

// ErrDamaged: the shipped model file cannot be read (a build that
// changed it by hand, or a damaged binary). Nothing else fails.
var ErrDamaged = errors.New("use: the shipped model is damaged")
