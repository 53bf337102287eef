package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

const refundRegistry = `
tools:
  - name: refund
    side_effect: reversible
    input_schema:
      type: object
      additionalProperties: false
      required: [order_id]
      properties: {order_id: {type: string}, amount: {type: number}}
    object: "order:{order_id}"
grants:
  - {tenant: acme, permissions: [refund]}
  - {tenant: globex, permissions: [refund]}
`

// seen records the object and version each invocation was told.
type seen struct {
	mu  sync.Mutex
	got []string
}

func (s *seen) add(c executor.Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, fmt.Sprintf("%s %s@%d %s", c.Run, c.Object, c.ObjectVersion, c.User))
}

func (s *seen) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

func refund(t *testing.T, b *bus.Bus, tenant, run, call, args string) outcome {
	t.Helper()
	return waitOutcome(t, b, tenant, publishCall(t, b, callSpec{tenant: tenant, tool: "refund", call: call, run: run, step: "s1", args: args, response: "resp_" + run + "_" + call}))
}

// Two runs refunding one order: the second run's refund, which has not
// seen the first's, is object_conflict naming the version and nothing
// runs; said again over the version it names, it runs. A stale version is
// a conflict; a run that made the last change changes it again without
// saying a version; another tenant's order of the same id is another
// object.
func TestObjectTwoRunsOneOrder(t *testing.T) {
	b := bustest.Start(t)
	s := &seen{}
	tool := newCounter(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
		s.add(c)
		return json.RawMessage(`{"refunded":true}`), nil
	})
	startExec(t, b, parseRegistry(t, refundRegistry), map[string]executor.Tool{"refund": tool}, nil)

	if o := refund(t, b, "acme", "r1", "c1", `{"order_id":"A-1","amount":5}`); o.ok == nil {
		t.Fatalf("first refund: %v", o)
	}
	o := refund(t, b, "acme", "r2", "c1", `{"order_id":"A-1","amount":5}`)
	if !o.failedWith(events.ErrObjectConflict, "order:A-1 is at version 1", "run r1", `"$object_version": 1`) {
		t.Fatalf("second run's refund: %v", o)
	}
	if tool.total.Load() != 1 {
		t.Fatalf("the refused refund ran: %d invocations", tool.total.Load())
	}
	if o := refund(t, b, "acme", "r2", "c2", `{"order_id":"A-1","amount":5,"$object_version":1}`); o.ok == nil {
		t.Fatalf("the refund said again over version 1: %v", o)
	}
	if o := refund(t, b, "acme", "r3", "c1", `{"order_id":"A-1","amount":5,"$object_version":1}`); !o.failedWith(events.ErrObjectConflict, "version 2", "based on version 1") {
		t.Fatalf("stale version: %v", o)
	}
	if o := refund(t, b, "acme", "r2", "c3", `{"order_id":"A-1","amount":1}`); o.ok == nil {
		t.Fatalf("the run that made the last change: %v", o)
	}
	if o := refund(t, b, "acme", "r1", "c2", `{"order_id":"A-1","amount":1}`); !o.failedWith(events.ErrObjectConflict, "version 3", "run r2") {
		t.Fatalf("a run whose change is no longer the last: %v", o)
	}
	if o := refund(t, b, "globex", "r9", "c1", `{"order_id":"A-1"}`); o.ok == nil {
		t.Fatalf("globex's order A-1: %v", o)
	}
	want := []string{"r1 order:A-1@0 ", "r2 order:A-1@1 ", "r2 order:A-1@2 ", "r9 order:A-1@0 "}
	if got := s.list(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("invocations %q, want %q", got, want)
	}
}

// Changes of one object wait for each other; other objects do not wait.
// While run r1's refund of A-1 is in the tool, run r2's refund of A-1
// (based on version 0) waits, and a refund of B-2 runs and finishes; once
// r1's ends, r2's is a conflict: it was based on the version r1 changed.
func TestObjectChangesAreSerialised(t *testing.T) {
	b := bustest.Start(t)
	entered, release := make(chan string, 4), make(chan struct{})
	tool := newCounter(func(ctx context.Context, c executor.Call) (json.RawMessage, error) {
		entered <- c.Object
		if c.Object == "order:A-1" {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return json.RawMessage(`{}`), nil
	})
	startExec(t, b, parseRegistry(t, refundRegistry), map[string]executor.Tool{"refund": tool}, nil)
	k1 := publishCall(t, b, callSpec{tenant: "acme", tool: "refund", call: "c1", run: "r1", response: "resp_r1_c1", args: `{"order_id":"A-1"}`})
	if got := <-entered; got != "order:A-1" {
		t.Fatalf("first invocation %s", got)
	}
	k2 := publishCall(t, b, callSpec{tenant: "acme", tool: "refund", call: "c1", run: "r2", response: "resp_r2_c1", args: `{"order_id":"A-1","$object_version":0}`})
	k3 := publishCall(t, b, callSpec{tenant: "acme", tool: "refund", call: "c1", run: "r3", response: "resp_r3_c1", args: `{"order_id":"B-2"}`})
	if o := waitOutcome(t, b, "acme", k3); o.ok == nil {
		t.Fatalf("B-2 while A-1 is held: %v", o)
	}
	if got := <-entered; got != "order:B-2" {
		t.Fatalf("second invocation %s: A-1 was changed twice at once", got)
	}
	subj, _ := events.ResultSubject("acme", k2)
	if m := lastOn(t, b, subj); m != nil {
		t.Fatalf("r2's change of A-1 decided while r1's held it: %s", decodeOutcome(t, m.Data))
	}
	close(release)
	if o := waitOutcome(t, b, "acme", k1); o.ok == nil {
		t.Fatalf("r1: %v", o)
	}
	if o := waitOutcome(t, b, "acme", k2); !o.failedWith(events.ErrObjectConflict, "version 1", "based on version 0") {
		t.Fatalf("r2: %v", o)
	}
	if n := tool.total.Load(); n != 2 {
		t.Fatalf("%d invocations, want 2", n)
	}
}

// An executor SIGKILLed while it changes an object leaves the object
// locked only until its hold runs out: another run's change then takes
// it, told that the dead one's change may have happened (the version
// moved on), and runs when it names the new version.
func TestObjectHoldRunsOutAfterAKill(t *testing.T) {
	b := bustest.Start(t)
	dir := t.TempDir()
	toolsFile := filepath.Join(dir, "tools.yaml")
	if err := os.WriteFile(toolsFile, []byte(strings.ReplaceAll(refundRegistry, "name: refund", "name: noop")+
		"  - {tenant: acme, permissions: [noop]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	k1 := publishCall(t, b, callSpec{tenant: "acme", tool: "noop", call: "c1", run: "r1", response: "resp_r1_c1", args: `{"order_id":"A-1"}`})
	c := startChild(t, b, toolsFile, "doomed", 50, 4, "TS_KILL_AT=after-invoke")
	if err := <-c.done; err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("child was not killed: %v", err)
	}
	tool := newCounter(nil)
	startExec(t, b, parseRegistry(t, strings.ReplaceAll(refundRegistry, "name: refund", "name: noop")+
		"  - {tenant: acme, permissions: [noop]}\n"), map[string]executor.Tool{"noop": tool}, nil)
	if o := waitOutcome(t, b, "acme", k1); !o.failedWith(events.ErrOutcomeUnknown) {
		t.Fatalf("the killed change: %v", o)
	}
	k2 := publishCall(t, b, callSpec{tenant: "acme", tool: "noop", call: "c1", run: "r2", response: "resp_r2_c1", args: `{"order_id":"A-1","$object_version":0}`})
	if o := waitOutcome(t, b, "acme", k2); !o.failedWith(events.ErrObjectConflict, "version 1", "may or may not have happened") {
		t.Fatalf("after the kill: %v", o)
	}
	k3 := publishCall(t, b, callSpec{tenant: "acme", tool: "noop", call: "c2", run: "r2", response: "resp_r2_c2", args: `{"order_id":"A-1","$object_version":1}`})
	if o := waitOutcome(t, b, "acme", k3); o.ok == nil {
		t.Fatalf("over the version named: %v", o)
	}
	if n := tool.total.Load(); n != 1 {
		t.Fatalf("%d invocations in the survivor, want 1", n)
	}
}
