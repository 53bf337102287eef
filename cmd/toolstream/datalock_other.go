//go:build !unix

package main

import "os"

// flock does not lock where there is no flock: --data is not guarded.
func flock(*os.File) error { return nil }

func funlock(*os.File) {}

// ownerOnlyUmask is a no-op where there is no umask.
func ownerOnlyUmask() {}
