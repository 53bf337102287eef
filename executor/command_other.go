//go:build !linux

package executor

import (
	"os"
	"os/exec"
)

// group: outside Linux a program is not given a group of its own, and only
// the program itself is killed on cancel; what it starts may outlive it.
type group struct{ cmd *exec.Cmd }

func newGroup(cmd *exec.Cmd) *group { return &group{cmd: cmd} }

func (g *group) kill() error {
	if g.cmd.Process == nil {
		return os.ErrProcessDone
	}
	return g.cmd.Process.Kill()
}

func (g *group) killLast() {}

func waitExited(*exec.Cmd) {}
