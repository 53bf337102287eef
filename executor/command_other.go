//go:build !linux

package executor

import (
	"errors"
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

func (g *group) start() error { return g.cmd.Start() }

func (g *group) killLast() {}

func (g *group) release() {}

var errCgroupStart = errors.New("cannot start the program in a cgroup")

func waitExited(*exec.Cmd) {}
