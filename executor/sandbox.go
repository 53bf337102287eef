package executor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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
// host), no capabilities, a minimal root read-only (confine: the system's
// programs and libraries, a few files of /etc, the program, a private
// /dev, /proc and /tmp, the paths the contract names, never a Hidden
// directory), the invocation's own directory writable and its working
// directory; a new session, and death with the executor. The tool's
// processes live in the sandbox's pid namespace, whose init is
// bubblewrap: when the tool exits, bubblewrap does, and the kernel kills
// whatever the tool left in the namespace. Limits are rlimits set by
// prlimit (Config.PrlimitPath) on the sandbox and so on every process in
// it: memory is RLIMIT_DATA (private writable memory: heap and anonymous
// mappings; unlike RLIMIT_AS it leaves runtimes that reserve large address
// ranges, such as Go's, able to start), cpu is RLIMIT_CPU (SIGXCPU at the
// limit, SIGKILL a second later). Before the first sandboxed run of each
// kind, the sandbox is tried with `true`; where it fails, tools that ask
// for it are refused (unavailable), never run unconfined.
type commandHost struct {
	tempDir, bwrap, prlimit string
	hidden                  []string // Config.Hidden, absolute, each also with its links resolved

	mu     sync.Mutex       // guards root and probes
	root   string           // "" until the first invocation
	probes map[string]probe // by probeKey
}

type probe struct {
	err error
	at  time.Time
}

func newCommandHost(cfg *Config) *commandHost {
	h := &commandHost{tempDir: cfg.TempDir, bwrap: cfg.BwrapPath, prlimit: cfg.PrlimitPath, probes: map[string]probe{}}
	for _, d := range cfg.Hidden {
		if abs, err := filepath.Abs(d); err == nil {
			h.hidden = append(h.hidden, abs)
		}
		if r := realPath(d); !slices.Contains(h.hidden, r) {
			h.hidden = append(h.hidden, r)
		}
	}
	return h
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

// The minimal root of a sandbox: what a program needs to start and run,
// read-only. Everything else of the host is absent unless the contract
// names it (sandbox.read, sandbox.write).
var (
	// systemDirs are the programs and libraries: bound where they are
	// directories on the host, made the same symlinks where they are
	// symlinks (/bin -> usr/bin).
	systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}
	// etcFiles are the files of /etc every program may read: the dynamic
	// linker's, Debian's alternatives (/usr/bin/awk points there), the
	// time zone, the TLS certificates (certs only: /etc/ssl/private holds
	// keys).
	etcFiles = []string{"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
		"/etc/localtime", "/etc/ssl/certs", "/etc/ssl/openssl.cnf", "/etc/ca-certificates", "/etc/pki/tls/certs", "/etc/pki/ca-trust/extracted"}
	// netFiles are what name resolution reads: only with network host.
	netFiles = []string{"/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/gai.conf", "/etc/host.conf", "/etc/services", "/etc/protocols"}
)

// confine returns the argv that runs argv (argv[0] an absolute path) in
// the sandbox s, with dir (a privateDir) as its working directory and the
// only place it may write besides s.Write. The root is a minimal one (see
// systemDirs, etcFiles, netFiles), with the program itself, a fresh /tmp,
// /dev and /proc, and the contract's paths; it is read-only. A contract
// path that does not exist here or reaches a hidden directory is an error,
// and nothing runs.
func (h *commandHost) confine(argv []string, dir string, s *registry.Sandbox) ([]string, error) {
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
	a = append(a, "--cap-drop", "ALL", "--die-with-parent", "--new-session")
	for _, d := range systemDirs {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
		case fi.Mode()&fs.ModeSymlink != 0:
			if target, err := os.Readlink(d); err == nil {
				a = append(a, "--symlink", target, d)
			}
		case fi.IsDir():
			a = append(a, "--ro-bind", d, d)
		}
	}
	etc := etcFiles
	if s.Network == registry.NetworkHost {
		etc = append(slices.Clip(etc), netFiles...)
	}
	for _, f := range etc {
		if h.hiddenIn(f) == "" {
			a = append(a, "--ro-bind-try", f, f) // a missing file is not needed here
		}
	}
	// A hidden directory inside what the root shows (a --data under /usr)
	// is covered: an empty tmpfs over a directory, /dev/null over a file.
	for _, hid := range h.hidden {
		if !underSystemDir(hid) {
			continue
		}
		if fi, err := os.Stat(hid); err == nil && fi.IsDir() {
			a = append(a, "--tmpfs", hid)
		} else if err == nil {
			a = append(a, "--ro-bind", "/dev/null", hid)
		}
	}
	a = append(a, "--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev", "--tmpfs", "/tmp",
		"--bind", dir, dir)
	if prog := argv[0]; !underSystemDir(prog) {
		if hid := h.hiddenIn(prog); hid != "" {
			return nil, fmt.Errorf("the program %s is in %s, which no sandboxed tool sees", prog, hid)
		}
		a = append(a, "--ro-bind", prog, prog)
	}
	// Parents before children (sorted), so a writable path inside a
	// read-only one stays writable.
	type bind struct {
		path     string
		writable bool
	}
	var binds []bind
	for _, p := range s.Read {
		binds = append(binds, bind{p, false})
	}
	for _, p := range s.Write {
		binds = append(binds, bind{p, true})
	}
	slices.SortFunc(binds, func(x, y bind) int { return strings.Compare(x.path, y.path) })
	for _, b := range binds {
		if hid := h.hiddenIn(b.path); hid != "" {
			return nil, fmt.Errorf("its sandbox names %s, which reaches %s: no sandboxed tool sees it", b.path, hid)
		}
		if _, err := os.Stat(b.path); err != nil {
			return nil, fmt.Errorf("its sandbox names %s: %v", b.path, err)
		}
		if b.writable {
			a = append(a, "--bind", b.path, b.path)
		} else {
			a = append(a, "--ro-bind", b.path, b.path)
		}
	}
	a = append(a, "--remount-ro", "/", "--chdir", filepath.Join(dir, "home"), "--")
	return append(a, argv...), nil
}

// underSystemDir reports whether p is inside one of systemDirs, which
// the sandbox shows whole.
func underSystemDir(p string) bool {
	for _, d := range systemDirs {
		if strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// hiddenIn returns the hidden directory p reaches (p is in it, or holds
// it), after symbolic links, or "".
func (h *commandHost) hiddenIn(p string) string {
	if len(h.hidden) == 0 {
		return ""
	}
	for _, q := range []string{filepath.Clean(p), realPath(p)} {
		for _, hid := range h.hidden {
			if within(q, hid) || within(hid, q) {
				return hid
			}
		}
	}
	return ""
}

// within reports whether p is dir or inside it (both clean and absolute).
func within(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// realPath returns p absolute with its symbolic links resolved, as far as
// they resolve.
func realPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
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
	argv, err := h.confine([]string{prog}, dir, &registry.Sandbox{Network: s.Network, Filesystem: s.Filesystem, Memory: s.Memory, CPU: s.CPU})
	if err != nil {
		return fmt.Errorf("this executor cannot sandbox: %v", err)
	}
	r, err := runProgram(ctx, argv, env, nil, 1<<10, 0)
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
