package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/bus/bustest"
	"golang.org/x/sys/unix"
)

// helperEnv makes TestUndumpableHelper the process the attack looks into:
// "serve" runs `toolstream serve`, "idle" runs nothing (the control).
const helperEnv = "TOOLSTREAM_TEST_UNDUMPABLE_HELPER"

// secretEnv is in the helper's environment, as a NATS password or a tool's
// ${env:…} secret would be in serve's.
const secretEnv = "TOOLSTREAM_TEST_SECRET"

// TestServeEnvironIsUnreadableToItsUser is the attack: a process of the
// same user as a running `toolstream serve` (a command tool without a
// sandbox) reads /proc/<pid>/environ of serve. It must fail, and the same
// read of a process that did not make itself non-dumpable (the control)
// must succeed, so the test shows serve's prctl is what stops it.
//
// Root reads any process's /proc files (CAP_SYS_PTRACE), so when the test
// runs as root both the serving process and the attacker run as nobody
// (65534): the attack is between two processes of one unprivileged user,
// as it is in production.
func TestServeEnvironIsUnreadableToItsUser(t *testing.T) {
	t.Parallel()
	if os.Getenv(helperEnv) != "" {
		t.Skip("this process is a helper")
	}
	bin, cred := os.Args[0], (*syscall.Credential)(nil)
	if os.Geteuid() == 0 {
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
		bin = shareable(t, os.Args[0])
	}
	secret := fmt.Sprintf("s3cret-%d", time.Now().UnixNano())

	for _, tc := range []struct {
		mode     string
		readable bool
	}{{"idle", true}, {"serve", false}} {
		t.Run(tc.mode, func(t *testing.T) {
			pid, said := startHelper(t, bin, cred, tc.mode, secret)
			want := map[bool]string{true: "dumpable 1", false: "dumpable 0"}[tc.readable]
			if !strings.Contains(said, want+"\n") {
				t.Errorf("the helper (%s) did not say %q:\n%s", tc.mode, want, said)
			}
			attack := exec.Command("cat", fmt.Sprintf("/proc/%d/environ", pid))
			attack.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
			var stderr bytes.Buffer
			attack.Stderr = &stderr
			out, err := attack.Output()
			read := err == nil && bytes.Contains(out, []byte(secret))
			switch {
			case tc.readable && !read:
				t.Fatalf("the control: the attacker could not read the environment of a dumpable process of its user (%v, %s): the test proves nothing here", err, stderr.Bytes())
			case !tc.readable && read:
				t.Fatalf("a process of serve's user read serve's environment, secret included")
			case !tc.readable && err == nil:
				t.Fatalf("a process of serve's user read serve's environment (%d bytes)", len(out))
			}
			t.Logf("%s: cat /proc/%d/environ: err=%v %s", tc.mode, pid, err, strings.TrimSpace(stderr.String()))
			// The kernel marks a non-dumpable process's /proc files as
			// root's.
			fi, err := os.Stat(fmt.Sprintf("/proc/%d/environ", pid))
			if err != nil {
				t.Fatal(err)
			}
			if owner := fi.Sys().(*syscall.Stat_t).Uid; (owner == 0) == tc.readable {
				t.Errorf("/proc/%d/environ belongs to uid %d", pid, owner)
			}
		})
	}
}

// shareable copies the test binary where another user may run it: the
// test's temporary directories are private to root.
func shareable(t *testing.T, bin string) string {
	dir := t.TempDir()
	for d := dir; d != filepath.Clean(os.TempDir()) && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "toolstream.test")
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

// startHelper runs TestUndumpableHelper in mode as cred (nil: this user)
// with the secret in its environment, and returns its pid once it is
// ready, with what it wrote until then. The helper stops when the test
// ends.
func startHelper(t *testing.T, bin string, cred *syscall.Credential, mode, secret string) (pid int, said string) {
	t.Helper()
	cmd := exec.Command(bin, "-test.run=^TestUndumpableHelper$", "-test.v")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, secretEnv+"="+secret, "TMPDIR="+os.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	cmd.Dir = "/" // the package's directory may be private to this user
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var before, rest bytes.Buffer
	t.Cleanup(func() {
		stdin.Close() // the helper's signal to stop
		if err := cmd.Wait(); err != nil {
			t.Errorf("helper %s: %v\n%s%s", mode, err, rest.Bytes(), stderr.Bytes())
		}
	})
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "helper ready" {
				ready <- nil
				io.Copy(&rest, stdout)
				return
			}
			before.WriteString(sc.Text() + "\n")
		}
		ready <- fmt.Errorf("helper %s ended before it was ready", mode)
	}()
	select {
	case err := <-ready:
		if err != nil {
			cmd.Process.Kill()
			t.Fatalf("%v\n%s%s", err, before.Bytes(), stderr.Bytes())
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("helper %s: not ready in time", mode)
	}
	return cmd.Process.Pid, before.String()
}

// TestUndumpableHelper is the process the attack looks into, run by
// TestServeEnvironIsUnreadableToItsUser; on its own it skips. It says
// "helper ready" once serve is serving (or at once when idle), then runs
// until its stdin closes.
func TestUndumpableHelper(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("run by TestServeEnvironIsUnreadableToItsUser")
	}
	// A test binary inherits no prctl from its parent, but be sure the
	// control starts dumpable.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	if mode == "serve" {
		admin := bustest.Start(t)
		logs := newLineWatch("serving")
		root := newRoot(&bytes.Buffer{}, logs)
		root.SetArgs([]string{"serve", "--components", "responses", "--nats-url", admin.ClientURL(),
			"--data", filepath.Join(t.TempDir(), "serve"), "--creds", bustest.Creds(t, admin, bustest.Admin)})
		go func() { done <- root.ExecuteContext(ctx) }()
		select {
		case <-logs.seen:
		case err := <-done:
			t.Fatalf("serve: %v\n%s", err, logs.String())
		case <-time.After(time.Minute):
			t.Fatalf("serve is not serving\n%s", logs.String())
		}
	} else {
		close(done)
	}
	d, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("dumpable %d\n", d)
	fmt.Println("helper ready")
	io.Copy(io.Discard, os.Stdin)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// lineWatch is a log writer that closes seen at the first write holding
// want.
type lineWatch struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
}

func newLineWatch(want string) *lineWatch { return &lineWatch{want: want, seen: make(chan struct{})} }

func (w *lineWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.want != "" && bytes.Contains(p, []byte(w.want)) {
		close(w.seen)
		w.want = ""
	}
	return w.buf.Write(p)
}

func (w *lineWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
