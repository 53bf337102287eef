package executor_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// child is an executor process (this test binary, see childMain).
type child struct {
	cmd  *exec.Cmd
	done chan error
}

func startChild(t testing.TB, b *bus.Bus, tools, id string, heartbeatMS, parallel int, env ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), env...), "TS_EXEC_CHILD=1", "TS_NATS_URL="+b.ClientURL(),
		"TS_NATS_CREDS="+bustest.Creds(t, b, bustest.Admin), "TS_TOOLS="+tools,
		"TS_ID="+id, fmt.Sprint("TS_HEARTBEAT_MS=", heartbeatMS), fmt.Sprint("TS_PARALLEL=", parallel))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, done: make(chan error, 1)}
	go func() { c.done <- cmd.Wait() }()
	return c
}

// kill SIGKILLs the child and reaps it.
func (c *child) kill(t testing.TB) {
	t.Helper()
	c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.done
}

// stop asks the child to drain and waits for it.
func (c *child) stop(t testing.TB) {
	t.Helper()
	c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-c.done:
		if err != nil {
			t.Errorf("child exit: %v", err)
		}
	case <-time.After(waitMax):
		c.kill(t)
		t.Error("child did not stop on SIGTERM")
	}
}

// toolProcesses counts running command tools writing to dir.
func toolProcesses(dir string) int {
	n := 0
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), "tstool") && strings.Contains(string(b), dir) {
			n++
		}
	}
	return n
}

// Executors are SIGKILLed at random points while a few hundred calls run:
// an idempotent command tool's effect exists exactly once per call, a
// non-idempotent one is never invoked twice (some calls end
// outcome_unknown), and every call ends with exactly one outcome.
func TestKilledExecutorsLoseNothingAndRepeatNothing(t *testing.T) {
	rounds, perRound := 24, 14
	if testing.Short() {
		rounds, perRound = 4, 12
	}
	b := bustest.Start(t)
	dir := t.TempDir()
	idemFile, onceFile := filepath.Join(dir, "idem-effects"), filepath.Join(dir, "once-effects")
	toolsFile := filepath.Join(dir, "tools.yaml")
	os.WriteFile(toolsFile, []byte(fmt.Sprintf(`
tools:
  - name: idem.cmd
    idempotency: required
    side_effect: reversible
    timeout: 20s
    command: [%q, tstool, idem, %q]
  - name: once.cmd
    idempotency: none
    side_effect: reversible
    timeout: 20s
    command: [%q, tstool, once, %q]
grants:
  - tenant: acme
    permissions: [idem.cmd, once.cmd]
  - tenant: globex
    permissions: [idem.cmd, once.cmd]
`, os.Args[0], idemFile, os.Args[0], onceFile)), 0o644)
	const heartbeatMS, parallel = 50, 6
	// Kills come every round whatever runs: on a loaded machine one slow
	// call can be running at ten of them in a row, and TakeoversMax would
	// then decide it outcome_unknown, which this test is not about.
	const takeovers = "TS_TAKEOVERS_MAX=1000"
	children := []*child{
		startChild(t, b, toolsFile, "k0", heartbeatMS, parallel, takeovers),
		startChild(t, b, toolsFile, "k1", heartbeatMS, parallel, takeovers),
	}
	defer func() {
		for _, c := range children {
			if c.cmd.ProcessState == nil {
				c.kill(t)
			}
		}
	}()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	type call struct{ tenant, key, tool string }
	var calls []call
	lines := func() int { return len(readLines(t, idemFile)) + len(readLines(t, onceFile)) }
	kills := 0
	start := time.Now()
	for r := range rounds {
		for i := range perRound {
			tenant := []string{"acme", "globex"}[i%2]
			tool := []string{"idem.cmd", "once.cmd"}[(i/2)%2]
			c := callSpec{tenant: tenant, tool: tool, call: fmt.Sprintf("c%d_%d", r, i), response: fmt.Sprint("resp_", r),
				args: fmt.Sprintf(`{"sleep_ms":%d}`, rng.IntN(80))}
			calls = append(calls, call{tenant, publishCall(t, b, c), tool})
		}
		// Kill at a random point: after a random number of new effects
		// (or a short deadline when the executors are between calls).
		target, deadline := lines()+1+rng.IntN(perRound/2), time.Now().Add(time.Second)
		for lines() < target && time.Now().Before(deadline) {
			time.Sleep(2 * time.Millisecond)
		}
		victims := []int{rng.IntN(2)}
		if r%5 == 4 {
			victims = []int{0, 1}
		}
		for _, v := range victims {
			children[v].kill(t)
			kills++
			children[v] = startChild(t, b, toolsFile, fmt.Sprintf("k%d-%d", v, r), heartbeatMS, parallel, takeovers)
		}
	}
	// Every call ends with exactly one outcome.
	var outcomes []*events.Event
	deadline := time.Now().Add(3 * waitMax) // generous: under -race every tool run starts a race-instrumented binary
	for {
		if count(t, b, "ts.result.>") >= len(calls) {
			outcomes = all(t, b, "ts.result.>")
			break
		}
		if time.Now().After(deadline) {
			outcomes = all(t, b, "ts.result.>")
			seen := map[string]bool{}
			for _, ev := range outcomes {
				seen[ev.ID] = true
			}
			for _, c := range calls {
				if !seen[events.ResultID(c.key)] {
					st, err := executor.CallStatus(context.Background(), b.JS, "", c.tenant, c.key)
					t.Errorf("no outcome for %s: %+v %v", c.key, st, err)
				}
			}
			t.Fatalf("%d of %d outcomes after %s", len(outcomes), len(calls), time.Since(start))
		}
		time.Sleep(20 * time.Millisecond)
	}
	waitFor(t, "orphaned tool processes to finish", func() bool { return toolProcesses(dir) == 0 })
	for _, c := range children {
		c.stop(t)
	}
	byID := map[string][]*events.Event{}
	for _, ev := range outcomes {
		byID[ev.ID] = append(byID[ev.ID], ev)
	}
	if len(outcomes) != len(calls) || len(byID) != len(calls) {
		t.Fatalf("%d outcomes (%d distinct) for %d calls", len(outcomes), len(byID), len(calls))
	}
	idemSeen, onceSeen := map[string]int{}, map[string]int{}
	for _, k := range readLines(t, idemFile) {
		idemSeen[k]++
	}
	for _, k := range readLines(t, onceFile) {
		onceSeen[k]++
	}
	unknown, takenOver := 0, 0
	for _, c := range calls {
		evs := byID[events.ResultID(c.key)]
		if len(evs) != 1 {
			t.Fatalf("%s: %d outcomes", c.key, len(evs))
		}
		o := decodeOutcome(t, mustEncode(t, evs[0]))
		if o.ok != nil && o.ok.Attempts > 1 {
			takenOver++
		}
		switch c.tool {
		case "idem.cmd":
			if o.ok == nil || idemSeen[c.key] != 1 {
				t.Fatalf("idempotent %s: %v, effect %d times", c.key, o, idemSeen[c.key])
			}
		case "once.cmd":
			if onceSeen[c.key] > 1 {
				t.Fatalf("non-idempotent %s invoked %d times", c.key, onceSeen[c.key])
			}
			switch {
			case o.ok != nil && onceSeen[c.key] != 1:
				t.Fatalf("non-idempotent %s succeeded with its effect %d times", c.key, onceSeen[c.key])
			case o.err != nil && o.err.Error == events.ErrOutcomeUnknown:
				unknown++
			case o.err != nil:
				t.Fatalf("non-idempotent %s: %v", c.key, o)
			}
		}
	}
	if kills < rounds {
		t.Fatalf("%d kills in %d rounds", kills, rounds)
	}
	t.Logf("%d calls, %d SIGKILLs in %s: %d outcome_unknown, %d idempotent calls re-invoked after a takeover",
		len(calls), kills, time.Since(start).Round(time.Millisecond), unknown, takenOver)
}

func mustEncode(t testing.TB, ev *events.Event) []byte {
	t.Helper()
	b, err := events.Encode(ev)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A crash at each exact point of the outbox discipline: before the
// invocation (the record already says Invoked), after it (the result is not
// recorded), after the outcome is recorded but before it is published,
// and after it is published but before the input is acknowledged.
func TestCrashAtEachPoint(t *testing.T) {
	for _, point := range []string{"before-invoke", "after-invoke", "before-publish", "before-ack"} {
		t.Run(point, func(t *testing.T) {
			b := bustest.Start(t)
			dir := t.TempDir()
			idemFile, onceFile := filepath.Join(dir, "idem-effects"), filepath.Join(dir, "once-effects")
			toolsFile := filepath.Join(dir, "tools.yaml")
			os.WriteFile(toolsFile, []byte(fmt.Sprintf(`
tools:
  - {name: idem.cmd, idempotency: required, command: [%q, tstool, idem, %q]}
  - {name: once.cmd, idempotency: none, side_effect: reversible, command: [%q, tstool, once, %q]}
grants:
  - {tenant: acme, permissions: [idem.cmd, once.cmd]}
`, os.Args[0], idemFile, os.Args[0], onceFile)), 0o644)
			for _, tool := range []string{"idem.cmd", "once.cmd"} {
				key := publishCall(t, b, callSpec{tenant: "acme", tool: tool, call: tool})
				c := startChild(t, b, toolsFile, "doomed", 50, 4, "TS_KILL_AT="+point)
				if err := <-c.done; err == nil || !strings.Contains(err.Error(), "killed") {
					t.Fatalf("child was not killed at %s: %v", point, err)
				}
				c = startChild(t, b, toolsFile, "survivor", 50, 4)
				o := waitOutcome(t, b, "acme", key)
				waitIdle(t, b, "ts-executor")
				waitFor(t, "tool processes to finish", func() bool { return toolProcesses(dir) == 0 })
				c.stop(t)
				idem, once := readLines(t, idemFile), readLines(t, onceFile)
				// From before-publish on, the outcome is in the record: the
				// survivor publishes it as it is and runs nothing.
				recorded := point == "before-publish" || point == "before-ack"
				switch {
				case tool == "idem.cmd" && (o.ok == nil || len(idem) != 1):
					t.Fatalf("idempotent: %v, effects %v", o, idem)
				case tool == "once.cmd" && recorded && (o.ok == nil || len(once) != 1):
					t.Fatalf("non-idempotent, crash at %s: %v, effects %v", point, o, once)
				case tool == "once.cmd" && !recorded && (o.err == nil || o.err.Error != events.ErrOutcomeUnknown):
					t.Fatalf("non-idempotent, crash at %s: %v", point, o)
				case tool == "once.cmd" && point == "before-invoke" && len(once) != 0,
					tool == "once.cmd" && point == "after-invoke" && len(once) != 1:
					t.Fatalf("non-idempotent, crash at %s: effects %v", point, once)
				case tool == "idem.cmd" && recorded && o.ok.Attempts != 1:
					t.Fatalf("idempotent, crash at %s: %d attempts, want the recorded 1", point, o.ok.Attempts)
				case tool == "idem.cmd" && !recorded && o.ok.Attempts != 2:
					t.Fatalf("idempotent, crash at %s: %d attempts, want 2 (re-invoked with the same key)", point, o.ok.Attempts)
				}
				n := 0
				for _, ev := range all(t, b, "ts.result.acme.>") {
					if ev.ID == events.ResultID(key) {
						n++
					}
				}
				if n != 1 {
					t.Fatalf("%d outcomes", n)
				}
			}
		})
	}
}

// TestTakeoversMaxDecidesOutcomeUnknown: a call whose executors keep dying
// while its invocation runs is not tried forever. With TakeoversMax 1, the
// first takeover runs it again (the tool is idempotent); the executor after
// the second death decides it outcome_unknown, says why, and runs nothing.
func TestTakeoversMaxDecidesOutcomeUnknown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills executor processes")
	}
	b := bustest.Start(t)
	dir := t.TempDir()
	effects, toolsFile := filepath.Join(dir, "effects"), filepath.Join(dir, "tools.yaml")
	if err := os.WriteFile(toolsFile, []byte(fmt.Sprintf(`
tools:
  - name: idem.cmd
    idempotency: required
    side_effect: reversible
    timeout: 60s
    command: [%q, tstool, idem, %q]
grants:
  - tenant: acme
    permissions: [idem.cmd]
`, os.Args[0], effects)), 0o644); err != nil {
		t.Fatal(err)
	}
	const cap = "TS_TAKEOVERS_MAX=1"
	key := publishCall(t, b, callSpec{tenant: "acme", tool: "idem.cmd", call: "slow", args: `{"sleep_ms":8000}`})
	for i := range 2 { // an executor dies during each of the first two invocations
		c := startChild(t, b, toolsFile, fmt.Sprint("k", i), 50, 1, cap)
		waitFor(t, fmt.Sprint("invocation ", i+1), func() bool { return count(t, b, "ts.exec.>") >= i+1 })
		c.kill(t)
	}
	last := startChild(t, b, toolsFile, "k2", 50, 1, cap)
	defer last.kill(t)
	waitFor(t, "the outcome", func() bool { return count(t, b, "ts.result.>") >= 1 })
	evs := all(t, b, "ts.result.>")
	if len(evs) != 1 || evs[0].ID != events.ResultID(key) {
		t.Fatalf("outcomes %v", evs)
	}
	o := decodeOutcome(t, mustEncode(t, evs[0]))
	if o.err == nil || o.err.Error != events.ErrOutcomeUnknown || !strings.Contains(o.err.Message, "stopped 1 times") {
		t.Fatalf("outcome %+v, want outcome_unknown after one takeover", o)
	}
	if n := count(t, b, "ts.exec.>"); n != 2 {
		t.Errorf("%d invocations started, want 2: the third executor must run nothing", n)
	}
}
