package executor_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// needSandbox skips the test where bubblewrap cannot sandbox, or fails it
// when TOOLSTREAM_REQUIRE_SANDBOX=1 (CI installs bubblewrap and sets it).
func needSandbox(t *testing.T) {
	t.Helper()
	bwrap, err := exec.LookPath("bwrap")
	if err == nil {
		var out []byte
		out, err = exec.Command(bwrap, "--unshare-all", "--ro-bind", "/", "/", "true").CombinedOutput()
		if err != nil {
			err = fmt.Errorf("%v: %s", err, out)
		}
	}
	if err != nil {
		if os.Getenv("TOOLSTREAM_REQUIRE_SANDBOX") == "1" {
			t.Fatalf("bubblewrap cannot sandbox here (%v), and TOOLSTREAM_REQUIRE_SANDBOX=1", err)
		}
		t.Skipf("bubblewrap cannot sandbox here (%v); install it (apt-get install -y bubblewrap) to run this test", err)
	}
}

// A sandboxed tool with network: none cannot open a connection; with
// network: host it can (so the refusal is the sandbox's doing).
func TestSandboxNoNetwork(t *testing.T) {
	needSandbox(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	addr := ln.Addr().String()
	reg := parseRegistry(t, attackRegistry(t,
		"net.none", "connect", addr, "{network: none}",
		"net.host", "connect", addr, "{network: host}"))
	b := bustest.Start(t)
	startExec(t, b, reg, nil, nil)
	o := callAcme(t, b, "net.none", "c1")
	if !o.failedWith(events.ErrToolError, "cannot connect") {
		t.Fatalf("network none: %v", o)
	}
	if n := accepted.Load(); n != 0 {
		t.Fatalf("a tool without network connected %d times", n)
	}
	if o := callAcme(t, b, "net.host", "c2"); o.ok == nil {
		t.Fatalf("network host: %v", o)
	}
	waitFor(t, "the connection of the tool with network", func() bool { return accepted.Load() == 1 })
}

// A sandboxed tool writes its own TMPDIR and nothing else; unsandboxed,
// the same tool writes where it likes (so the refusal is the sandbox's
// doing).
func TestSandboxReadonlyFS(t *testing.T) {
	needSandbox(t)
	dir := t.TempDir()
	confined, free := filepath.Join(dir, "confined"), filepath.Join(dir, "free")
	reg := parseRegistry(t, attackRegistry(t,
		"write.confined", "write", confined, "{filesystem: readonly}",
		"write.free", "write", free, ""))
	b := bustest.Start(t)
	startExec(t, b, reg, nil, nil)
	o := callAcme(t, b, "write.confined", "c1")
	// The directory is not even there: the sandbox shows no host path
	// its contract does not name.
	if !o.failedWith(events.ErrToolError, "cannot write outside", "no such file or directory", "sandbox: network none, filesystem readonly") {
		t.Fatalf("readonly: %v", o)
	}
	if _, err := os.Stat(confined); !os.IsNotExist(err) {
		t.Fatalf("a sandboxed tool wrote outside its directory: %v", err)
	}
	if o := callAcme(t, b, "write.free", "c2"); o.ok == nil {
		t.Fatalf("unsandboxed: %v", o)
	}
	if _, err := os.Stat(free); err != nil {
		t.Fatalf("the unsandboxed tool did not write: %v", err)
	}
}

// A sandboxed tool cannot allocate past its memory limit, and can below
// it.
func TestSandboxMemoryLimit(t *testing.T) {
	needSandbox(t)
	reg := parseRegistry(t, attackRegistry(t,
		"alloc.big", "alloc", "1024", "{memory: 256MiB}",
		"alloc.small", "alloc", "16", "{memory: 256MiB}"))
	b := bustest.Start(t)
	startExec(t, b, reg, nil, nil)
	o := callAcme(t, b, "alloc.big", "c1")
	if !o.failedWith(events.ErrToolError, "memory 256MiB") {
		t.Fatalf("1 GiB under 256 MiB: %v", o)
	}
	if o := callAcme(t, b, "alloc.small", "c2"); o.ok == nil || string(o.ok.Result) != `{"allocated_mib":16}` {
		t.Fatalf("16 MiB under 256 MiB: %v", o)
	}
}

// A sandboxed tool that maps its memory where RLIMIT_DATA does not see it
// (writable over a reservation) is still stopped at its memory limit: the
// executor watches its resident memory. Unwatched, it allocated the whole
// GiB under a limit of 256 MiB in three runs of four (prlimit --data alone).
func TestSandboxMemoryLimitHoldsAgainstMappingTricks(t *testing.T) {
	needSandbox(t)
	reg := parseRegistry(t, attackRegistry(t, "reserve.big", "reserve", "1024", "{memory: 256MiB}"))
	b := bustest.Start(t)
	startExec(t, b, reg, nil, nil)
	for _, call := range []string{"c1", "c2", "c3"} {
		// Stopped by the watch, or dead of the limit in its runtime's next
		// allocation (the range counts once mapped): never a success.
		if o := callAcme(t, b, "reserve.big", call); !o.failedWith(events.ErrToolError, "memory 256MiB") {
			t.Fatalf("%s: 1 GiB mapped over a reservation under 256 MiB: %v", call, o)
		}
	}
}

// A sandboxed tool is stopped at its CPU limit, and the message says so.
func TestSandboxCPULimit(t *testing.T) {
	needSandbox(t)
	reg := parseRegistry(t, `
tools:
  - name: spin
    side_effect: none
    command: [/bin/sh, -c, "while :; do :; done"]
    sandbox: {cpu: 1s}
grants:
  - tenant: acme
    permissions: [spin]
`)
	b := bustest.Start(t)
	startExec(t, b, reg, nil, nil)
	o := callAcme(t, b, "spin", "c1")
	if !o.failedWith(events.ErrToolError, "used its cpu limit of 1s and was stopped") {
		t.Fatalf("spin: %v", o)
	}
}

// Where the sandbox cannot be made (no bubblewrap, or one that fails), a
// tool that asks for it is refused, never run unconfined.
func TestSandboxRefusedWhereUnavailable(t *testing.T) {
	effect := filepath.Join(t.TempDir(), "effect")
	reg := parseRegistry(t, attackRegistry(t, "confined", "write", effect, "{network: none}"))
	b := bustest.Start(t)
	for i, bwrap := range []string{filepath.Join(t.TempDir(), "no-bwrap"), "/bin/false"} {
		_, stop := startExec(t, b, reg, nil, func(c *executor.Config) { c.BwrapPath = bwrap })
		if o := callAcme(t, b, "confined", fmt.Sprint("c", i)); !o.failedWith(events.ErrUnavailable, "cannot sandbox", bwrap) {
			t.Fatalf("bwrap %s: %v", bwrap, o)
		}
		stop()
	}
	if _, err := os.Stat(effect); !os.IsNotExist(err) {
		t.Fatalf("a tool that asks for a sandbox ran without one: %v", err)
	}
}
