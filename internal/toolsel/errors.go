package toolsel

import "errors"

// ErrUnknownFormat: a format that is not one of Formats.
var ErrUnknownFormat = errors.New("toolsel: unknown format")
