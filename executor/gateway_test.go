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

const outcomesYAML = `
tools:
  - name: ok
    side_effect: none
    input_schema: {type: object, properties: {n: {type: integer}}, required: [n], additionalProperties: false}
  - name: coerce
    side_effect: none
    coerce: true
    input_schema: {type: object, properties: {n: {type: integer}}}
  - name: slow
    side_effect: none
    timeout: 100ms
  - name: flaky
    idempotency: required
    retry: {max_attempts: 3, backoff: 10ms, on: [tool_error]}
  - name: no.retry
    idempotency: required
    retry: {max_attempts: 3, on: [provider_timeout]}
  - name: exhausted
    idempotency: required
    retry: {max_attempts: 2, on: [tool_error]}
  - name: timeout.retry
    idempotency: required
    timeout: 50ms
    retry: {max_attempts: 2, on: [provider_timeout]}
  - name: rejecter
    side_effect: none
  - name: badout
    side_effect: none
    output_schema: {type: object, required: [id]}
  - name: secret
    permission: secret.read
  - name: panics
    side_effect: none
  - name: noimpl
    side_effect: none
grants:
  - tenant: acme
    permissions: [ok, coerce, slow, flaky, no.retry, exhausted, timeout.retry, rejecter, badout, panics, noimpl]
`

func TestTypedOutcomes(t *testing.T) {
	b := bustest.Start(t)
	reg := parseRegistry(t, outcomesYAML)
	var lateReturned atomic.Bool
	var flakyN atomic.Int64
	tools := map[string]*counter{
		"ok":     newCounter(func(_ context.Context, c executor.Call) (json.RawMessage, error) { return c.Args, nil }),
		"coerce": newCounter(func(_ context.Context, c executor.Call) (json.RawMessage, error) { return c.Args, nil }),
		"slow": newCounter(func(context.Context, executor.Call) (json.RawMessage, error) {
			time.Sleep(300 * time.Millisecond) // ignores its context: a late result
			lateReturned.Store(true)
			return json.RawMessage(`{"late":true}`), nil
		}),
		"flaky": newCounter(func(context.Context, executor.Call) (json.RawMessage, error) {
			if flakyN.Add(1) < 3 {
				return nil, executor.Errorf(events.ErrToolError, "try again")
			}
			return json.RawMessage(`{"third":"time lucky"}`), nil
		}),
		"no.retry": newCounter(func(context.Context, executor.Call) (json.RawMessage, error) {
			return nil, executor.Errorf(events.ErrToolError, "broken")
		}),
		"exhausted": newCounter(func(context.Context, executor.Call) (json.RawMessage, error) {
			return nil, executor.Errorf(events.ErrToolError, "still broken")
		}),
		"timeout.retry": newCounter(func(ctx context.Context, _ executor.Call) (json.RawMessage, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}),
		"rejecter": newCounter(func(context.Context, executor.Call) (json.RawMessage, error) {
			return nil, executor.Errorf(events.ErrBusinessRejected, "order o1 was already refunded; refund another order")
		}),
		"badout": newCounter(func(context.Context, executor.Call) (json.RawMessage, error) { return json.RawMessage(`{}`), nil }),
		"secret": newCounter(nil),
		"panics": newCounter(func(context.Context, executor.Call) (json.RawMessage, error) { panic("boom") }),
	}
	impls := map[string]executor.Tool{}
	for name, c := range tools {
		impls[name] = c
	}
	e, _ := startExec(t, b, reg, impls, nil)

	cases := []struct {
		name, tool, args string
		want             events.ErrorType // "" = success
		result           string
		message          string // substring of the message
		invocations      int
	}{
		{name: "success", tool: "ok", args: `{"n":1}`, result: `{"n":1}`, invocations: 1},
		{name: "coerced", tool: "coerce", args: `{"n":"12"}`, result: `{"n":12}`, invocations: 1},
		{name: "unknown tool", tool: "nope", args: `{}`, want: events.ErrUnknownTool, message: "no tool named \"nope\""},
		{name: "permission denied", tool: "secret", args: `{}`, want: events.ErrPermissionDenied, message: `not granted permission "secret.read"`},
		{name: "invalid arguments", tool: "ok", args: `{"n":"x","m":1}`, want: events.ErrValidation, message: "at '/n': got string, want integer"},
		{name: "missing argument", tool: "ok", args: `{}`, want: events.ErrValidation, message: "missing property 'n'; fix the arguments"},
		{name: "timeout", tool: "slow", args: `{}`, want: events.ErrProviderTimeout, message: "did not answer within its timeout of 100ms", invocations: 1},
		{name: "retried until success", tool: "flaky", args: `{}`, result: `{"third":"time lucky"}`, invocations: 3},
		{name: "not retried on another error", tool: "no.retry", args: `{}`, want: events.ErrToolError, message: "broken", invocations: 1},
		{name: "retries exhausted", tool: "exhausted", args: `{}`, want: events.ErrToolError, message: "after 2 attempts", invocations: 2},
		{name: "timeouts retried", tool: "timeout.retry", args: `{}`, want: events.ErrProviderTimeout, message: "timeout of 50ms", invocations: 2},
		{name: "business rejection", tool: "rejecter", args: `{}`, want: events.ErrBusinessRejected, message: "refund another order", invocations: 1},
		{name: "output schema", tool: "badout", args: `{}`, want: events.ErrToolError, message: "missing property 'id'", invocations: 1},
		{name: "panic", tool: "panics", args: `{}`, want: events.ErrToolError, message: "panicked: boom", invocations: 1},
		{name: "no implementation", tool: "noimpl", args: `{}`, want: events.ErrUnavailable, message: "no implementation"},
	}
	keys := make([]string, len(cases))
	for i, c := range cases {
		keys[i] = publishCall(t, b, callSpec{tenant: "acme", tool: c.tool, call: "call_" + strings.ReplaceAll(c.name, " ", "_"), args: c.args})
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := waitOutcome(t, b, "acme", keys[i])
			switch {
			case c.want == "" && (o.ok == nil || string(o.ok.Result) != c.result):
				t.Fatalf("outcome %v, want success %s", o, c.result)
			case c.want != "" && (o.err == nil || o.err.Error != c.want || !strings.Contains(o.err.Message, c.message)):
				t.Fatalf("outcome %v, want %s saying %q", o, c.want, c.message)
			}
			if o.ev.ID != events.ResultID(keys[i]) || o.ev.Tenant != "acme" || o.ev.CallID == "" {
				t.Fatalf("outcome envelope %+v", o.ev)
			}
			if tc := tools[c.tool]; tc != nil && tc.count(keys[i]) != c.invocations {
				t.Fatalf("%s invoked %d times, want %d", c.tool, tc.count(keys[i]), c.invocations)
			}
		})
	}
	if tools["secret"].total.Load() != 0 {
		t.Fatal("a tool ran without permission")
	}
	// A late result never overwrites the recorded outcome.
	waitFor(t, "the slow tool to return late", lateReturned.Load)
	var n int
	for _, ev := range all(t, b, "ts.result.acme.>") {
		if ev.ID == events.ResultID(keys[6]) {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d outcomes for the timed-out call, want 1", n)
	}
	if o := waitOutcome(t, b, "acme", keys[6]); o.err == nil || o.err.Error != events.ErrProviderTimeout {
		t.Fatalf("the late result replaced the outcome: %v", o)
	}
	if s := e.Stats(); s.Succeeded != 3 || s.Failed != uint64(len(cases)-3) {
		t.Fatalf("stats %+v", s)
	}
}

// Without a registry, Go tools run under DefaultContract and anything else
// is an unknown tool.
func TestNoRegistry(t *testing.T) {
	b := bustest.Start(t)
	tool := newCounter(nil)
	startExec(t, b, nil, map[string]executor.Tool{"local": tool}, nil)
	ok := publishCall(t, b, callSpec{tenant: "acme", tool: "local", call: "a", args: `{"any":"thing"}`})
	if o := waitOutcome(t, b, "acme", ok); o.ok == nil || tool.count(ok) != 1 {
		t.Fatalf("Go tool without registry: %v", o)
	}
	unknown := publishCall(t, b, callSpec{tenant: "acme", tool: "remote", call: "b"})
	if o := waitOutcome(t, b, "acme", unknown); o.err == nil || o.err.Error != events.ErrUnknownTool {
		t.Fatalf("unknown tool without registry: %v", o)
	}
	if c := executor.DefaultContract("x"); !c.AtMostOnce() || c.Approval != "none" {
		t.Fatalf("default contract %+v", c)
	}
}
