package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/registry"
)

const (
	// stderrMax bounds the stderr a failed command reports.
	stderrMax = 4 << 10
	// waitDelay bounds the wait for a program's output to close after its
	// process group was killed (something that left the group may hold
	// it), or for it to exit after it was killed.
	waitDelay = 10 * time.Second
	// readChunk is what one read of a program's output asks for.
	readChunk = 32 << 10
	// PathDefault is a command tool's PATH unless its contract's env gives
	// one.
	PathDefault = "/usr/local/bin:/usr/bin:/bin"
	// langDefault is a command tool's LANG unless its contract gives one.
	langDefault = "C.UTF-8"
)

// commandTool runs the contract's program: the arguments JSON on stdin, the
// result JSON on stdout. Its environment is minimal: PATH, a private HOME
// and TMPDIR (a fresh directory per invocation, removed after it), LANG,
// the idempotency key in TOOLSTREAM_IDEMPOTENCY_KEY (and the tenant, tool
// and attempt in TOOLSTREAM_TENANT, TOOLSTREAM_TOOL, TOOLSTREAM_ATTEMPT),
// and the contract's env, its references resolved now; nothing else of the
// executor's environment. A tool with a sandbox runs in it, or not at all.
//
// A non-zero exit is a typed error: stdout {"error": {"type": …,
// "message": …}} names its own type, otherwise it is a tool_error carrying
// the end of stderr. A program that cannot be started, a secret that cannot
// be resolved and a sandbox that cannot be made are unavailable (nothing
// ran). Output past max bytes kills the program at once (tool_error). The
// program's process group is killed when it exits, on timeout and at the
// cap: nothing it started outlives the call.
type commandTool struct {
	argv    []string
	env     map[string]string
	sandbox *registry.Sandbox
	max     int
	host    *commandHost
}

var _ Tool = (*commandTool)(nil)

// Invoke runs the program; the secrets resolved for it are redacted from
// all it returns (redactor).
func (t *commandTool) Invoke(ctx context.Context, call Call) (json.RawMessage, error) {
	red := &redactor{}
	out, err := t.invoke(ctx, call, red)
	return red.outcome(call.Name, out, err)
}

// prepare makes what a run of the program needs: its private directory
// (the caller removes it), its environment and its argv, confined when the
// contract asks. Its errors are unavailable: nothing ran.
func (t *commandTool) prepare(ctx context.Context, call Call, red *redactor) (argv, env []string, dir string, err error) {
	dir, err = t.host.privateDir()
	if err != nil {
		return nil, nil, "", Errorf(events.ErrUnavailable, "cannot make a private directory for %s: %v; nothing was run", call.Name, err)
	}
	fail := func(e error) ([]string, []string, string, error) {
		removeAll(dir)
		return nil, nil, "", e
	}
	env, err = t.environ(call, dir, red)
	if err != nil {
		return fail(err)
	}
	prog, err := lookPath(t.argv[0], envValue(env, "PATH"))
	if err != nil {
		// Nothing ran: safe to report as unavailable, even for at-most-once tools.
		return fail(Errorf(events.ErrUnavailable, "cannot run %s: %v", t.argv[0], err))
	}
	argv = append([]string{prog}, t.argv[1:]...)
	if t.sandbox != nil {
		if err := t.host.sandboxReady(ctx, t.sandbox); err != nil {
			return fail(Errorf(events.ErrUnavailable, "%s asks for a sandbox (%s), and %v; it was not run — an operator must make the sandbox work here, or change the contract", call.Name, t.sandbox, err))
		}
		if argv[0], err = filepath.Abs(prog); err == nil {
			argv, err = t.host.confine(argv, dir, t.sandbox)
		}
		if err != nil {
			return fail(Errorf(events.ErrUnavailable, "%s cannot be sandboxed: %v; it was not run — an operator must change the contract", call.Name, err))
		}
	}
	return argv, env, dir, nil
}

func (t *commandTool) invoke(ctx context.Context, call Call, red *redactor) (json.RawMessage, error) {
	argv, env, dir, err := t.prepare(ctx, call, red)
	if err != nil {
		return nil, err
	}
	defer removeAll(dir)
	var memMax int64
	if t.sandbox != nil {
		memMax = t.sandbox.Memory
	}
	r, err := runProgram(ctx, argv, env, call.Args, t.max, memMax)
	if err != nil {
		return nil, Errorf(events.ErrUnavailable, "cannot run %s: %v", t.argv[0], err)
	}
	if r.over {
		return nil, Errorf(events.ErrToolError, "%s printed more than %d bytes, so it was stopped there; ask for less", t.argv[0], t.max)
	}
	if r.overMemory {
		return nil, Errorf(events.ErrToolError, "%s was stopped at its memory limit: its processes' resident memory passed it (sandbox: %s); ask for less, or an operator raises the limit", t.argv[0], t.sandbox)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var exit *exec.ExitError
	switch {
	case errors.As(r.err, &exit):
		if te := typedError(r.stdout); te != nil {
			return nil, te
		}
		return nil, Errorf(events.ErrToolError, "%s %s: %s%s", t.argv[0], t.how(r.state), red.tail(r.stderr, stderrMax, r.stderrCut), t.confinement(r.state))
	case r.err != nil:
		return nil, Errorf(events.ErrToolError, "%s: %v", t.argv[0], r.err)
	}
	out := bytes.TrimSpace(r.stdout)
	if len(out) == 0 {
		return json.RawMessage("null"), nil
	}
	if !json.Valid(out) {
		return nil, Errorf(events.ErrToolError, "%s printed something that is not JSON: %s", t.argv[0], red.tail(out, 256, false))
	}
	return out, nil
}

// environ is the program's whole environment, sorted: the minimal one,
// the contract's env with its references resolved, then what the executor
// sets itself. A reference that cannot be resolved is unavailable, named
// in the message; its value never is. What references resolve to is
// remembered in red.
func (t *commandTool) environ(call Call, dir string, red *redactor) ([]string, error) {
	vars := map[string]string{"PATH": PathDefault, "LANG": langDefault}
	for name, v := range t.env {
		val, err := red.resolve(name, v)
		if err != nil {
			return nil, Errorf(events.ErrUnavailable, "%s needs %s, and %v; it was not run — an operator must provide it", call.Name, name, err)
		}
		vars[name] = val
	}
	vars["HOME"] = filepath.Join(dir, "home")
	vars["TMPDIR"] = filepath.Join(dir, "tmp")
	vars["TOOLSTREAM_IDEMPOTENCY_KEY"] = call.Key
	vars["TOOLSTREAM_TENANT"] = call.Tenant
	vars["TOOLSTREAM_TOOL"] = call.Name
	vars["TOOLSTREAM_ATTEMPT"] = strconv.Itoa(call.Attempt)
	for k, v := range identity(call) {
		vars["TOOLSTREAM_"+k] = v
	}
	env := make([]string, 0, len(vars))
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	slices.Sort(env)
	return env, nil
}

// how says how the program ended: "exited with status 3", "was killed by
// signal killed".
func (t *commandTool) how(st *os.ProcessState) string {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "was killed by signal " + ws.Signal().String()
	}
	return fmt.Sprintf("exited with status %d", st.ExitCode())
}

// bubblewrap's exit statuses for a tool killed by SIGXCPU and by SIGKILL
// (Linux's numbers: bubblewrap runs on Linux only).
const (
	exitSIGXCPU = 128 + 24
	exitSIGKILL = 128 + 9
)

// confinement tells, for a sandboxed tool, the limits it ran under, and
// which one stopped it when its exit says so. bubblewrap exits with 128 +
// the signal that killed the tool: SIGXCPU is sent at the cpu limit,
// SIGKILL a second later (to a tool that ignores SIGXCPU, as Go programs
// do) or by the kernel for want of memory.
func (t *commandTool) confinement(st *os.ProcessState) string {
	s := t.sandbox
	switch {
	case s == nil:
		return ""
	case s.CPU > 0 && st.ExitCode() == exitSIGXCPU:
		return fmt.Sprintf(" (it used its cpu limit of %s and was stopped; sandbox: %s)", s.CPU, s)
	case s.CPU > 0 && st.ExitCode() == exitSIGKILL:
		return fmt.Sprintf(" (it was killed: at its cpu limit of %s if it ignored the SIGXCPU sent there, or for want of memory; sandbox: %s)", s.CPU, s)
	}
	return " (sandbox: " + s.String() + ")"
}

// envValue returns the value of name in env (NAME=value entries).
func envValue(env []string, name string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// lookPath finds a program as the tool's own PATH would, not the
// executor's: a name with a slash is taken as it is.
func lookPath(file, path string) (string, error) {
	if strings.Contains(file, "/") {
		if err := executable(file); err != nil {
			return "", err
		}
		return file, nil
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative PATH entry would depend on the executor's working directory
		}
		p := filepath.Join(dir, file)
		if executable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found in PATH %s", file, path)
}

func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", p)
	}
	return nil
}

// ran is how a program's run ended.
type ran struct {
	stdout []byte // at most max bytes
	stderr []byte // its last bytes
	// stderrCut: stderr is the end of more (it may begin in the middle of
	// a secret).
	stderrCut bool
	over      bool // stdout passed max: the program was killed there
	// overMemory: the resident memory of the program and its descendants
	// passed the sandbox's memory limit, and it was killed there.
	overMemory bool
	state      *os.ProcessState
	err        error // from Wait
}

// runProgram runs argv (argv[0] a path) with env, stdin on its standard
// input, in a process group (and, where it can, a cgroup) of its own, and
// reads its output itself: at most max bytes of stdout are kept, and at
// the first byte past them the group is killed. When the program exits
// (or ctx ends and it is killed) the whole group is killed, then the
// cgroup or the orphans reparented to the executor (command_linux.go),
// so nothing it started outlives the run, whether it left the group or
// not. It returns an error only when the program could not be started.
func runProgram(ctx context.Context, argv, env []string, stdin []byte, max int, memMax int64) (*ran, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	defer outR.Close()
	defer errR.Close()
	build := func() (*exec.Cmd, *group) {
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Env = env
		cmd.Stdin = bytes.NewReader(stdin)
		// Files, not writers: the program writes into the pipes itself, and no
		// copying goroutine of exec's waits for them to close.
		cmd.Stdout, cmd.Stderr = outW, errW
		cmd.WaitDelay = waitDelay // after a kill, how long Wait waits for the exit
		return cmd, newGroup(cmd)
	}
	cmd, g := build()
	err = g.start()
	if errors.Is(err, errCgroupStart) {
		cmd, g = build()
		err = g.start()
	}
	outW.Close()
	errW.Close()
	if err != nil {
		return nil, err
	}
	r := &ran{}
	var readers sync.WaitGroup
	readers.Add(2)
	go func() {
		defer readers.Done()
		r.stdout, r.over = readCapped(outR, max, func() { g.kill() })
	}()
	go func() {
		defer readers.Done()
		tb := &tailBuffer{max: stderrMax}
		io.Copy(tb, errR)
		r.stderr, r.stderrCut = tb.Bytes(), tb.cut
	}()
	stopWatch := func() {}
	if memMax > 0 {
		stopWatch = watchMemory(cmd.Process.Pid, memMax, func() {
			r.overMemory = true
			g.kill()
		})
	}
	waitExited(cmd)
	stopWatch()
	g.killLast() // whatever the program left behind, finished or not
	r.err = cmd.Wait()
	r.state = cmd.ProcessState
	g.release() // and whatever left the group
	// The group is gone, so its output is closed, unless something left the
	// group (setsid) and holds it: that is not waited for long.
	read := make(chan struct{})
	go func() { readers.Wait(); close(read) }()
	select {
	case <-read:
	case <-time.After(waitDelay):
		outR.Close()
		errR.Close()
		<-read
	}
	return r, nil
}

// readCapped reads r to its end, keeping at most limit bytes. At the
// first byte past limit it calls stop (which kills the writer) and reads
// on, discarding, until r ends: the buffer never holds more than limit
// bytes.
func readCapped(r io.Reader, limit int, stop func()) (out []byte, over bool) {
	chunk := make([]byte, readChunk)
	for {
		n, err := r.Read(chunk)
		if n > 0 && !over {
			if room := limit - len(out); n > room {
				n, over = room, true
				stop()
			}
			if len(out)+n > cap(out) { // grow by doubling, never past limit
				grown := make([]byte, len(out), min(max(2*cap(out), len(out)+n), limit))
				copy(grown, out)
				out = grown
			}
			out = append(out, chunk[:n]...)
		}
		if err != nil {
			return out, over
		}
	}
}

// tailBuffer keeps the last max bytes written.
type tailBuffer struct {
	buf []byte
	max int
	cut bool // bytes were dropped from the front
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	if len(b.buf) > 2*b.max {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.max:]...)
		b.cut = true
	}
	return len(p), nil
}

func (b *tailBuffer) Bytes() []byte { return b.buf }
