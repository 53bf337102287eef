package executor

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"
)

// group is a program's process group. Its id is the program's pid, which
// stays the program's (a zombie's) until Wait reaps it: every kill happens
// before that, never after, so a kill never reaches a reused pid.
type group struct {
	mu   sync.Mutex
	cmd  *exec.Cmd
	done bool // killed for the last time; Wait may reap the program
}

// newGroup runs cmd in a process group of its own; cancelling cmd's
// context kills the whole group.
func newGroup(cmd *exec.Cmd) *group {
	g := &group{cmd: cmd}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = g.kill
	return g
}

// kill sends SIGKILL to every process of the group.
func (g *group) kill() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done || g.cmd.Process == nil {
		return os.ErrProcessDone
	}
	return syscall.Kill(-g.cmd.Process.Pid, syscall.SIGKILL)
}

// killLast kills the group once more (whatever the program left behind)
// and lets the program be reaped.
func (g *group) killLast() {
	g.kill()
	g.mu.Lock()
	g.done = true
	g.mu.Unlock()
}

// waitExited blocks until the program has exited, without reaping it
// (waitid with WNOWAIT), so its pid still names its group.
func waitExited(cmd *exec.Cmd) {
	const pPID = 1
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(cmd.Process.Pid),
			uintptr(unsafe.Pointer(&info[0])), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if errno != syscall.EINTR {
			return // exited, or cannot wait (ECHILD): Wait says which
		}
	}
}
