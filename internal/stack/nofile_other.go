//go:build !unix

package stack

// noFile is the descriptor limit the connection caps are a share of where
// there is no RLIMIT_NOFILE.
func noFile() uint64 { return 8192 }
