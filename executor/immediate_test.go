package executor_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestImmediateTools: a tool marked Immediate (run on its call's handler,
// no goroutine, timer or context of its own) gets the outcomes a Tool gets:
// its result, its typed error, a panic as tool_error, a result later than
// its timeout dropped (provider_timeout: the check is made when it
// returns), and under a lease as without one. Its context carries no
// deadline of the timeout; Call.Deadline says it.
func TestImmediateTools(t *testing.T) {
	b := bustest.Start(t)
	reg := parseRegistry(t, `
tools:
  - {name: imm.ok, side_effect: none}
  - {name: imm.reject, side_effect: none}
  - {name: imm.panics, side_effect: none}
  - {name: imm.slow, side_effect: none, timeout: 50ms}
  - {name: imm.leased, idempotency: required, timeout: 5s}
grants:
  - {tenant: acme, permissions: [imm.ok, imm.reject, imm.panics, imm.slow, imm.leased]}
`)
	var withDeadline, noCallDeadline, leased atomic.Int64
	check := func(ctx context.Context, c executor.Call) {
		if _, ok := ctx.Deadline(); ok {
			withDeadline.Add(1)
		}
		if c.Deadline.IsZero() {
			noCallDeadline.Add(1)
		}
	}
	tools := map[string]executor.Tool{
		"imm.ok": executor.ImmediateFunc(func(ctx context.Context, c executor.Call) (json.RawMessage, error) {
			check(ctx, c)
			return c.Args, nil
		}),
		"imm.reject": executor.ImmediateFunc(func(ctx context.Context, c executor.Call) (json.RawMessage, error) {
			check(ctx, c)
			return nil, executor.Errorf(events.ErrBusinessRejected, "no such order; ask for another")
		}),
		"imm.panics": executor.ImmediateFunc(func(context.Context, executor.Call) (json.RawMessage, error) { panic("boom") }),
		"imm.slow": executor.ImmediateFunc(func(context.Context, executor.Call) (json.RawMessage, error) {
			time.Sleep(150 * time.Millisecond) // breaks its promise to return at once: its result comes too late
			return json.RawMessage(`{"late":true}`), nil
		}),
		"imm.leased": executor.ImmediateFunc(func(ctx context.Context, c executor.Call) (json.RawMessage, error) {
			check(ctx, c)
			leased.Add(1)
			return json.RawMessage(`{"leased":true}`), nil
		}),
	}
	e, _ := startExec(t, b, reg, tools, nil)
	cases := []struct {
		tool, args, result string
		want               events.ErrorType
		message            string
	}{
		{tool: "imm.ok", args: `{"n":1}`, result: `{"n":1}`},
		{tool: "imm.reject", want: events.ErrBusinessRejected, message: "ask for another"},
		{tool: "imm.panics", want: events.ErrToolError, message: "panicked: boom"},
		{tool: "imm.slow", want: events.ErrProviderTimeout, message: "did not answer within its timeout of 50ms"},
		{tool: "imm.leased", result: `{"leased":true}`},
	}
	keys := make([]string, len(cases))
	for i, c := range cases {
		keys[i] = publishCall(t, b, callSpec{tenant: "acme", tool: c.tool, call: "call_" + strings.ReplaceAll(c.tool, ".", "_"), args: c.args})
	}
	for i, c := range cases {
		o := waitOutcome(t, b, "acme", keys[i])
		switch {
		case c.want == "" && (o.ok == nil || string(o.ok.Result) != c.result):
			t.Fatalf("%s: outcome %v, want success %s", c.tool, o, c.result)
		case c.want != "" && (o.err == nil || o.err.Error != c.want || !strings.Contains(o.err.Message, c.message)):
			t.Fatalf("%s: outcome %v, want %s saying %q", c.tool, o, c.want, c.message)
		}
	}
	if n := withDeadline.Load(); n != 0 {
		t.Fatalf("%d immediate invocations had a context deadline", n)
	}
	if n := noCallDeadline.Load(); n != 0 {
		t.Fatalf("%d immediate invocations had no Call.Deadline", n)
	}
	if n := leased.Load(); n != 1 {
		t.Fatalf("the leased immediate tool ran %d times, want 1", n)
	}
	if s := e.Stats(); s.Succeeded != 2 || s.Failed != 3 || s.Invoked != 5 {
		t.Fatalf("stats %+v", s)
	}
}
