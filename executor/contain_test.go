package executor_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// Nothing a tool starts survives its call, however it detaches: a child
// in a session of its own (setsid) and a double-forked daemon, each
// writing its pid file and living on (sleep 300), in a tool that waits
// until the test has seen the daemon alive. After the call's outcome is
// in the log the daemon is gone — unsandboxed (in a cgroup of its own
// where the executor can make one, else as the executor's orphan: the
// executor is a child subreaper) and sandboxed (bubblewrap's pid
// namespace). Attacker: the tool, whose daemon would outlive the call
// with the executor's rights (unsandboxed) or the sandbox's. Victim: the
// host; the call itself succeeds.
func TestAttackDetachedChildrenDie(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("containment of a tool's processes is Linux's (cgroups, subreaper, pid namespaces)")
	}
	detach := map[string]string{
		"setsid":     `setsid sh -c 'echo $$ > "$0/pid"; exec sleep "$1"' "$DIR" "$NAP" &`,
		"doublefork": `( setsid sh -c 'echo $$ > "$0/pid"; exec sleep "$1"' "$DIR" "$NAP" & ) ; true`,
	}
	for _, mode := range []string{"unsandboxed", "subreaper", "sandboxed"} {
		for _, how := range []string{"setsid", "doublefork"} {
			t.Run(mode+"/"+how, func(t *testing.T) {
				sandbox := ""
				switch mode {
				case "sandboxed":
					needSandbox(t)
				case "subreaper":
					executor.WithoutCgroups(t)
				}
				dir := t.TempDir()
				if mode == "sandboxed" {
					sandbox = fmt.Sprintf("\n    sandbox: {write: [%s]}", dir)
				}
				// A unique sleep, to find the daemon among the host's
				// processes (in a pid namespace its pid file holds the
				// namespace's pid).
				nap := fmt.Sprintf("300.%09d", rand.IntN(1e9))
				script := detach[how] + `
while [ ! -e "$DIR/release" ]; do sleep 0.02; done
echo '{"ok": true}'`
				reg := parseRegistry(t, fmt.Sprintf(`
tools:
  - name: daemon
    side_effect: none
    command: [/bin/sh, -c, %q]
    env: {DIR: %q, NAP: %q}%s
grants:
  - tenant: acme
    permissions: [daemon]
`, script, dir, nap, sandbox))
				b := bustest.Start(t)
				startExec(t, b, reg, nil, nil)
				key := publishCall(t, b, callSpec{tenant: "acme", tool: "daemon", call: "c1"})
				var pid int
				waitFor(t, "the daemon", func() bool {
					_, err := os.Stat(filepath.Join(dir, "pid"))
					pid = findByArg(nap)
					return err == nil && pid > 0
				})
				t.Cleanup(func() { killIfSleeping(pid, nap) })
				if !alive(pid) {
					t.Fatalf("the daemon %d is not running during the call", pid)
				}
				if err := os.WriteFile(filepath.Join(dir, "release"), nil, 0o600); err != nil {
					t.Fatal(err)
				}
				if o := waitOutcome(t, b, "acme", key); o.ok == nil {
					t.Fatalf("daemon: %v", o)
				}
				deadline := time.Now().Add(5 * time.Second)
				for alive(pid) {
					if time.Now().After(deadline) {
						t.Fatalf("the tool's %s daemon %d is alive after the call returned", how, pid)
					}
					time.Sleep(5 * time.Millisecond)
				}
			})
		}
	}
}

// findByArg returns the host pid of the process one of whose arguments
// is arg, or 0.
func findByArg(arg string) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		for _, a := range bytes.Split(cmdline, []byte{0}) {
			if string(a) == arg {
				return pid
			}
		}
	}
	return 0
}

// killIfSleeping kills pid if it is still the daemon (a failed test
// leaves no sleep behind).
func killIfSleeping(pid int, arg string) {
	if pid > 0 && findByArg(arg) == pid {
		p, err := os.FindProcess(pid)
		if err == nil {
			p.Kill()
		}
	}
}
