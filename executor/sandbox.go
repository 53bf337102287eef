package executor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/toolstream/toolstream/registry"
)

const (
	// probeTimeout bounds one check that the sandbox works here.
	probeTimeout = 10 * time.Second
	// probeRetry is how long a failed check stands before the next call
	// that needs the sandbox checks again (the operator may have fixed it).
	probeRetry = 30 * time.Second
)

// commandHost is what the command tools of one executor share: the
// directory their private directories live in, and the sandbox.
//
// Private directories: each invocation gets a fresh directory (HOME and
// TMPDIR inside it) under root, a directory of this executor's own made
// under Config.TempDir at the first invocation; Run removes root when it
// ends.
//
// The sandbox is bubblewrap (Config.BwrapPath): new user, mount, pid, net,
// ipc, uts and cgroup namespaces (the net namespace kept only for network:
// host), no capabilities, the root filesystem bound read-only, a private
// /dev (read-only) and /proc, root hidden under an empty read-only tmpfs
// except the invocation's own directory, which stays writable; a new
// session, and death with the executor. Limits are rlimits set by
// prlimit (Config.PrlimitPath) on the sandbox and so on every process in
// it: memory is RLIMIT_DATA (private writable memory: heap and anonymous
// mappings; unlike RLIMIT_AS it leaves runtimes that reserve large address
// ranges, such as Go's, able to start), cpu is RLIMIT_CPU (SIGXCPU at the
// limit, SIGKILL a second later). Before the first sandboxed run of each
// kind, the sandbox is tried with `true`; where it fails, tools that ask
// for it are refused (unavailable), never run unconfined.
type commandHost struct {
	tempDir, bwrap, prlimit string

	mu     sync.Mutex       // guards root and probes
	root   string           // "" until the first invocation
	probes map[string]probe // by probeKey
}

type probe struct {
	err error
	at  time.Time
}

func newCommandHost(cfg *Config) *commandHost {
	return &commandHost{tempDir: cfg.TempDir, bwrap: cfg.BwrapPath, prlimit: cfg.PrlimitPath, probes: map[string]probe{}}
}

// rootDir returns root, making it at the first call.
func (h *commandHost) rootDir() (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.root == "" {
		dir, err := os.MkdirTemp(h.tempDir, "toolstream-exec-")
		if err != nil {
			return "", err
		}
		h.root = dir
	}
	return h.root, nil
}

// privateDir makes a fresh directory for one invocation, with home and
// tmp inside, readable by its owner only.
func (h *commandHost) privateDir() (string, error) {
	root, err := h.rootDir()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(root, "call-")
	if err != nil {
		return "", err
	}
	for _, sub := range []string{"home", "tmp"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o700); err != nil {
			removeAll(dir)
			return "", err
		}
	}
	return dir, nil
}

// close removes root and everything left in it.
func (h *commandHost) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.root != "" {
		removeAll(h.root)
		h.root = ""
	}
}

// removeAll removes dir, also where a tool took its own write permission
// away from a directory it made.
func removeAll(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	os.RemoveAll(dir)
}

// confine returns the argv that runs argv in the sandbox s, with dir (a
// privateDir) as the only place it may write.
func (h *commandHost) confine(argv []string, dir string, s *registry.Sandbox) []string {
	var a []string
	if s.Memory > 0 || s.CPU > 0 {
		a = append(a, h.prlimit)
		if s.Memory > 0 {
			a = append(a, "--data="+strconv.FormatInt(s.Memory, 10))
		}
		if s.CPU > 0 {
			sec := int64(s.CPU / time.Second)
			a = append(a, fmt.Sprintf("--cpu=%d:%d", sec, sec+1))
		}
		a = append(a, "--")
	}
	a = append(a, h.bwrap, "--unshare-all")
	if s.Network == registry.NetworkHost {
		a = append(a, "--share-net")
	}
	a = append(a, "--cap-drop", "ALL", "--die-with-parent", "--new-session",
		"--ro-bind", "/", "/", "--dev", "/dev", "--remount-ro", "/dev", "--proc", "/proc",
		"--tmpfs", h.root, "--bind", dir, dir, "--remount-ro", h.root, "--")
	return append(a, argv...)
}

// probeKey names the kind of sandbox s is, as far as a check goes.
func probeKey(s *registry.Sandbox) string {
	return fmt.Sprintf("network=%s limits=%t", s.Network, s.Memory > 0 || s.CPU > 0)
}

// sandboxReady checks, once per kind of sandbox (and again after a
// failure, every probeRetry at most), that a sandbox like s works here by
// running `true` in it. It returns why it does not.
func (h *commandHost) sandboxReady(ctx context.Context, s *registry.Sandbox) error {
	key := probeKey(s)
	h.mu.Lock()
	p, ok := h.probes[key]
	h.mu.Unlock()
	if ok && (p.err == nil || time.Since(p.at) < probeRetry) {
		return p.err
	}
	err := h.try(ctx, s)
	if ctx.Err() != nil {
		return ctx.Err() // the call ended, not the check: decide nothing
	}
	h.mu.Lock()
	h.probes[key] = probe{err: err, at: time.Now()}
	h.mu.Unlock()
	return err
}

// try runs `true` in a sandbox like s.
func (h *commandHost) try(ctx context.Context, s *registry.Sandbox) error {
	for _, p := range []string{h.bwrap, h.prlimit} {
		if p == h.prlimit && s.Memory == 0 && s.CPU == 0 {
			continue
		}
		if _, err := lookPath(p, os.Getenv("PATH")); err != nil {
			return fmt.Errorf("this executor cannot sandbox: %v", err)
		}
	}
	dir, err := h.privateDir()
	if err != nil {
		return fmt.Errorf("this executor cannot sandbox: %v", err)
	}
	defer removeAll(dir)
	prog, err := lookPath("true", PathDefault)
	if err != nil {
		return fmt.Errorf("this executor cannot sandbox: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	env := []string{"PATH=" + PathDefault, "LANG=" + langDefault}
	r, err := runProgram(ctx, h.confine([]string{prog}, dir, s), env, nil, 1<<10)
	switch {
	case err != nil:
		return fmt.Errorf("this executor cannot sandbox: %v", err)
	case r.err != nil:
		var exit interface{ ExitCode() int }
		if errors.As(r.err, &exit) {
			return fmt.Errorf("this executor cannot sandbox: %s fails here (status %d: %s)", h.bwrap, exit.ExitCode(), tail(r.stderr, 512))
		}
		return fmt.Errorf("this executor cannot sandbox: %s: %v", h.bwrap, r.err)
	}
	return nil
}
