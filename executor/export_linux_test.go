package executor

import "golang.org/x/sys/unix"

// WithoutCgroups makes the executors of the test contain their tools
// without cgroups (as a child subreaper), as where none can be made. At
// the end of the test the process is no subreaper any more, so the
// orphan reaping does not take the children other tests start (child
// executors) for tools' orphans.
func WithoutCgroups(t interface{ Cleanup(func()) }) {
	cgroupsOff.Store(true)
	t.Cleanup(func() {
		cgroupsOff.Store(false)
		subreaperMu.Lock()
		defer subreaperMu.Unlock()
		unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
		subreaperOn.Store(false)
	})
}
