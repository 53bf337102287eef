//go:build unix

package stack

import "syscall"

// noFile raises the process's soft limit of open descriptors to its hard
// limit (Go's os package does so at start on most systems; this makes sure)
// and returns the soft limit in force, what the connection caps are a
// share of.
func noFile() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 1024
	}
	if r.Cur < r.Max {
		up := r
		up.Cur = r.Max
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &up) == nil {
			r = up
		}
	}
	return uint64(r.Cur)
}
