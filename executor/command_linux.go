package executor

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Nothing a command tool starts outlives its call, however it detaches
// (its own process group, setsid, a double fork). Three walls, the first
// that this machine allows:
//
//   - cgroup v2: each program runs in a cgroup of its own, made under the
//     executor's (where the executor may write there), entered at clone
//     (CLONE_INTO_CGROUP: no process of the tool runs outside it). At the
//     end of the run cgroup.kill kills every process in it, which no
//     setsid or fork escapes; the cgroup is removed once empty.
//   - Otherwise the executor is a child subreaper (PR_SET_CHILD_SUBREAPER):
//     what a tool's processes leave behind is reparented to the executor,
//     not to init. At the end of a run the executor kills and reaps every
//     child of its own that is not a program it runs (nor in the process
//     group of one that still runs): the tool's orphans, however they
//     detached. NB: this takes every child process of the executor's
//     process that the executor did not start for an orphan; serve starts
//     none, a program embedding the executor must not rely on starting
//     children of its own. Orphans of a tool still running that left its
//     group (setsid) are killed at the end of another tool's run, not
//     later than their own.
//   - Always, the program's process group is killed when it exits, on
//     timeout and at the output cap; and a sandboxed tool's processes are
//     in bubblewrap's pid namespace, which ends with the tool.
//
// group is a program's process group (and cgroup). Its id is the
// program's pid, which stays the program's (a zombie's) until Wait reaps
// it: every kill happens before that, never after, so a kill never
// reaches a reused pid.
type group struct {
	mu   sync.Mutex
	cmd  *exec.Cmd
	cg   *cgroup // nil: no cgroup (subreaper)
	done bool    // killed for the last time; Wait may reap the program
}

// newGroup runs cmd in a process group of its own (and a cgroup where it
// can); cancelling cmd's context kills the whole group.
func newGroup(cmd *exec.Cmd) *group {
	g := &group{cmd: cmd}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if cg := newCgroup(); cg != nil {
		g.cg = cg
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, cg.fd
	}
	cmd.Cancel = g.kill
	return g
}

// start starts cmd. A program that could not be started in its cgroup
// is errCgroupStart (nothing of it ran): runProgram starts it again
// without, and no more cgroups are made.
func (g *group) start() error {
	if g.cg == nil {
		subreaper()
	}
	// running is held from the start until the program is in it, so an
	// orphan scan never takes it for an orphan.
	running.mu.Lock()
	err := g.cmd.Start()
	if err == nil {
		running.pids[g.cmd.Process.Pid] = true
	}
	running.mu.Unlock()
	if err != nil && g.cg != nil {
		g.cg.remove()
		cgroupsOff.Store(true)
		return fmt.Errorf("%w: %v", errCgroupStart, err)
	}
	return err
}

var errCgroupStart = errors.New("cannot start the program in a cgroup")

// kill sends SIGKILL to every process of the group, and of the cgroup.
func (g *group) kill() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done || g.cmd.Process == nil {
		return os.ErrProcessDone
	}
	if g.cg != nil {
		g.cg.kill()
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

// release, after the program was reaped, ends what it left: the cgroup's
// processes (then the cgroup), or the orphans reparented to the executor.
func (g *group) release() {
	if g.cmd.Process != nil {
		running.remove(g.cmd.Process.Pid)
	}
	if g.cg != nil {
		g.cg.end()
		if !subreaperOn.Load() {
			return
		}
		// The executor became a subreaper before (cgroups failed): what
		// the cgroup's kill left is reparented to it, to be reaped.
	}
	reapOrphans()
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

// cgroupsOff, once set, makes no more cgroups: one could not be made or
// entered here.
var cgroupsOff atomic.Bool

// cgroupParent is the directory of the executor's own cgroup v2, where
// the programs' cgroups are made; "" where there is none it may write.
var cgroupParent = sync.OnceValue(func() string {
	dir := ownCgroup()
	if dir == "" {
		return ""
	}
	probe := filepath.Join(dir, fmt.Sprintf("toolstream-%d-probe", os.Getpid()))
	if err := os.Mkdir(probe, 0o700); err != nil {
		return ""
	}
	_, err := os.Stat(filepath.Join(probe, "cgroup.procs"))
	os.Remove(probe)
	if err != nil {
		return ""
	}
	endStale(dir)
	return dir
})

// endStale ends the cgroups an executor that is gone (crashed, killed)
// left in dir: what still runs in them is killed, and they are removed.
// A cgroup's name holds its executor's pid (toolstream-PID-N); one whose
// pid is alive is left alone.
func endStale(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "toolstream-")
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid == os.Getpid() {
			continue
		}
		if _, err := os.Stat("/proc/" + pidText); err == nil {
			continue
		}
		c := &cgroup{dir: filepath.Join(dir, e.Name()), fd: -1}
		c.end()
	}
}

// ownCgroup returns the directory of this process's cgroup v2: its path
// in /proc/self/cgroup ("0::/path") under the cgroup2 mount of
// /proc/self/mountinfo. "" when either is missing.
func ownCgroup() string {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	var path string
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			path = p
		}
	}
	if path == "" {
		return ""
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional…] - fstype source superoptions
		fields := strings.Fields(sc.Text())
		for i, fld := range fields {
			if fld == "-" && i+1 < len(fields) && fields[i+1] == "cgroup2" && len(fields) > 4 && fields[3] == "/" {
				return filepath.Join(fields[4], path)
			}
		}
	}
	return ""
}

// cgroup is one program's cgroup.
type cgroup struct {
	dir string
	fd  int // open on dir, for CLONE_INTO_CGROUP
}

var cgroupSeq atomic.Int64

// newCgroup makes a cgroup for one program, or returns nil where cgroups
// are not available (the executor is then a subreaper).
func newCgroup() *cgroup {
	parent := cgroupParent()
	if parent == "" || cgroupsOff.Load() {
		return nil
	}
	dir := filepath.Join(parent, fmt.Sprintf("toolstream-%d-%d", os.Getpid(), cgroupSeq.Add(1)))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil
	}
	fd, err := unix.Open(dir, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		os.Remove(dir)
		return nil
	}
	return &cgroup{dir: dir, fd: fd}
}

// kill kills every process in the cgroup: cgroup.kill where the kernel
// has it (5.14), else each process it lists, frozen first so none forks
// meanwhile.
func (c *cgroup) kill() {
	if os.WriteFile(filepath.Join(c.dir, "cgroup.kill"), []byte("1"), 0) == nil {
		return
	}
	os.WriteFile(filepath.Join(c.dir, "cgroup.freeze"), []byte("1"), 0)
	for range 100 {
		data, err := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
		if err != nil || len(bytes.TrimSpace(data)) == 0 {
			break
		}
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
	os.WriteFile(filepath.Join(c.dir, "cgroup.freeze"), []byte("0"), 0)
}

// end kills what is left in the cgroup, waits (up to waitDelay) until it
// is empty and removes it.
func (c *cgroup) end() {
	c.kill()
	deadline := time.Now().Add(waitDelay)
	for {
		data, err := os.ReadFile(filepath.Join(c.dir, "cgroup.events"))
		if err != nil || bytes.Contains(data, []byte("populated 0")) || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	c.remove()
}

func (c *cgroup) remove() {
	if c.fd >= 0 {
		unix.Close(c.fd)
	}
	os.Remove(c.dir)
}

// subreaper makes the executor's process a child subreaper (once: it
// stays one).
func subreaper() {
	if subreaperOn.Load() {
		return
	}
	subreaperMu.Lock()
	defer subreaperMu.Unlock()
	if !subreaperOn.Load() && unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil {
		subreaperOn.Store(true)
	}
}

var (
	subreaperMu sync.Mutex
	subreaperOn atomic.Bool
)

// running are the programs the executor runs (their pids, which are
// their process groups' ids), from their start until they are reaped.
var running = &pidSet{pids: map[int]bool{}}

type pidSet struct {
	mu   sync.Mutex
	pids map[int]bool
}

func (s *pidSet) remove(pid int) { s.mu.Lock(); delete(s.pids, pid); s.mu.Unlock() }

// orphansRoundsMax bounds the rounds of reapOrphans: each kills the
// orphans there are, whose own children are reparented for the next.
const orphansRoundsMax = 100

// reapMu makes one reapOrphans run at a time.
var reapMu sync.Mutex

// reapOrphans kills and reaps the executor's children that are not
// programs it runs (nor in the process group of one): orphans of its
// tools, reparented to it as subreaper. Their children are reparented in
// turn when they die, so it goes round until it finds none.
func reapOrphans() {
	reapMu.Lock()
	defer reapMu.Unlock()
	self := os.Getpid()
	for range orphansRoundsMax {
		running.mu.Lock()
		var orphans []int
		for _, p := range children(self) {
			if !running.pids[p.pid] && !running.pids[p.pgid] {
				orphans = append(orphans, p.pid)
			}
		}
		running.mu.Unlock()
		if len(orphans) == 0 {
			return
		}
		for _, pid := range orphans {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		for _, pid := range orphans {
			var ws syscall.WaitStatus
			for {
				_, err := syscall.Wait4(pid, &ws, 0, nil)
				if err != syscall.EINTR {
					break
				}
			}
		}
	}
}

type proc struct{ pid, pgid int }

// children lists the processes whose parent is pid, from /proc.
func children(pid int) []proc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []proc
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …: comm may hold spaces and ')'.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgid, _ := strconv.Atoi(f[2])
		if ppid == pid {
			out = append(out, proc{pid: p, pgid: pgid})
		}
	}
	return out
}
