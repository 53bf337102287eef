//go:build unix

package main

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// flock takes f's exclusive lock without waiting: errDataInUse when
// another open file holds it (in this process or another).
func flock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return errDataInUse
		}
		return err
	}
}

func funlock(f *os.File) { unix.Flock(int(f.Fd()), unix.LOCK_UN) }

// ownerOnlyUmask makes every file and directory the process creates
// owner-only (umask 077): Pebble's and the server's files in --data
// included, which are created with modes of their own.
func ownerOnlyUmask() { unix.Umask(0o077) }
