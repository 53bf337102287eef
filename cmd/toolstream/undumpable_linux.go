package main

import "golang.org/x/sys/unix"

// undumpable makes the process non-dumpable (see undumpable.go).
func undumpable() error { return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }
