package executor_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestCrashInAWindow: a burst of side-effect-free calls is decided in the
// log in windows (window.go), many outcomes published and acknowledged by
// the log before any of their inputs is. The executor is SIGKILLed at the
// tenth input about to be acknowledged: past the publishes of several
// windows, before most of their inputs' acknowledgements. A survivor then
// acknowledges every input whose outcome landed as a duplicate and
// decides the rest: every call has exactly one outcome, a success, on its
// result subject (nothing lost, nothing decided twice), no record in the
// bucket, and the consumer holds no input unacknowledged. The same holds
// for a tool marked Immediate (run on its call's handler, decisions reused
// from window to window).
func TestCrashInAWindow(t *testing.T) {
	for _, tool := range []string{"noop", "noop.immediate"} {
		t.Run(tool, func(t *testing.T) { crashInAWindow(t, tool) })
	}
}

func crashInAWindow(t *testing.T, tool string) {
	const calls = 60
	b := bustest.Start(t)
	dir := t.TempDir()
	toolsFile := filepath.Join(dir, "tools.yaml")
	os.WriteFile(toolsFile, []byte(`
tools:
  - {name: `+tool+`, side_effect: none}
grants:
  - {tenant: acme, permissions: [`+tool+`]}
`), 0o644)
	var keys []string
	for i := range calls {
		keys = append(keys, publishCall(t, b, callSpec{tenant: "acme", tool: tool, call: fmt.Sprint("w", i)}))
	}
	c := startChild(t, b, toolsFile, "doomed", 50, calls, "TS_KILL_AT=before-ack-10")
	if err := <-c.done; err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("child was not killed: %v", err)
	}
	landed := count(t, b, "ts.result.acme.>")
	if landed < 10 {
		t.Fatalf("%d outcomes in the log when the tenth input was about to be acknowledged", landed)
	}
	c = startChild(t, b, toolsFile, "survivor", 50, calls)
	for _, k := range keys {
		if o := waitOutcome(t, b, "acme", k); o.ok == nil {
			t.Fatalf("%s: %v", k, o)
		}
	}
	waitIdle(t, b, "ts-executor")
	c.stop(t)
	for _, k := range keys {
		subj, _ := events.ResultSubject("acme", k)
		if n := count(t, b, subj); n != 1 {
			t.Fatalf("%s: %d messages on its result subject", k, n)
		}
		if st, err := executor.CallStatus(t.Context(), b.JS, "", "acme", k); err != nil || st != nil {
			t.Fatalf("%s: record %+v, %v", k, st, err)
		}
	}
	t.Logf("%d of %d outcomes had landed at the kill", landed, calls)
}

// TestCrashAtEachPointImmediate: an executor SIGKILLed at each point of a
// call of an Immediate tool (before and after it runs on the call's
// handler, before the outcome's publish, before the input's
// acknowledgement): the survivor decides the call, which ends with exactly
// one outcome, a success, and no record in the bucket.
func TestCrashAtEachPointImmediate(t *testing.T) {
	for _, point := range []string{"before-invoke", "after-invoke", "before-publish", "before-ack"} {
		t.Run(point, func(t *testing.T) {
			b := bustest.Start(t)
			toolsFile := filepath.Join(t.TempDir(), "tools.yaml")
			os.WriteFile(toolsFile, []byte(`
tools:
  - {name: noop.immediate, side_effect: none}
grants:
  - {tenant: acme, permissions: [noop.immediate]}
`), 0o644)
			key := publishCall(t, b, callSpec{tenant: "acme", tool: "noop.immediate", call: "i"})
			c := startChild(t, b, toolsFile, "doomed", 50, 4, "TS_KILL_AT="+point)
			if err := <-c.done; err == nil || !strings.Contains(err.Error(), "killed") {
				t.Fatalf("child was not killed at %s: %v", point, err)
			}
			subj, _ := events.ResultSubject("acme", key)
			before := count(t, b, subj)
			if want := map[bool]int{true: 1, false: 0}[point == "before-ack"]; before != want {
				t.Fatalf("%d outcomes in the log at the kill %s, want %d", before, point, want)
			}
			c = startChild(t, b, toolsFile, "survivor", 50, 4)
			if o := waitOutcome(t, b, "acme", key); o.ok == nil {
				t.Fatalf("outcome %v", o)
			}
			waitIdle(t, b, "ts-executor")
			c.stop(t)
			if n := count(t, b, subj); n != 1 {
				t.Fatalf("%d messages on the result subject", n)
			}
			if st, err := executor.CallStatus(t.Context(), b.JS, "", "acme", key); err != nil || st != nil {
				t.Fatalf("record %+v, %v", st, err)
			}
		})
	}
}
