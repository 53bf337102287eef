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
// bucket, and the consumer holds no input unacknowledged.
func TestCrashInAWindow(t *testing.T) {
	const calls = 60
	b := bustest.Start(t)
	dir := t.TempDir()
	toolsFile := filepath.Join(dir, "tools.yaml")
	os.WriteFile(toolsFile, []byte(`
tools:
  - {name: noop, side_effect: none}
grants:
  - {tenant: acme, permissions: [noop]}
`), 0o644)
	var keys []string
	for i := range calls {
		keys = append(keys, publishCall(t, b, callSpec{tenant: "acme", tool: "noop", call: fmt.Sprint("w", i)}))
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
