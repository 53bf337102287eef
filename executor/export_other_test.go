//go:build !linux

package executor

// WithoutCgroups: outside Linux there are neither cgroups nor a
// subreaper to choose between.
func WithoutCgroups(t interface{ Cleanup(func()) }) {}
