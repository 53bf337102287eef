package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"

	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/internal/trace"
	"github.com/toolstream/toolstream/registry"
)

const demoTenant = "shop"

// demoLog is a real embedded server whose log holds the demo's story —
// the demo's recorded provider streams and registry (../../demo/testdata),
// assembled, executed (the refund approved), the final answer verified —
// and the stack that ran the projections and the executor over it as
// serve does, views in dir/views.
type demoLog struct {
	b     *bus.Bus
	s     *stack.Stack
	dir   string
	trust *registry.Trust // the registry keys of dir/auth
}

// startDemoLog runs the story; the stack keeps running until the test ends.
// Its view dumps page by pageRows (0: viewdump.PageRows).
func startDemoLog(t *testing.T, pageRows int) *demoLog {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	d := &demoLog{b: bustest.StartIn(t, filepath.Join(dir, "log")), dir: dir}
	spec, err := os.ReadFile("../../internal/demo/testdata/tools.yaml")
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	// The operator's registry keys where serve keeps them: the CLI's
	// replay on dir trusts them as serve would.
	key, err := registry.WriteKeyPair(filepath.Join(dir, "auth", "registry.key"), filepath.Join(dir, "auth", "registry.pub"))
	if err != nil {
		t.Fatal(err)
	}
	d.trust = key.Trust()
	if _, err := registry.Publish(ctx, registry.PublishConfig{JS: d.b.JS, Key: key, Source: "tools.yaml"}, reg); err != nil {
		t.Fatal(err)
	}
	tool := func(result string) executor.Tool {
		return executor.ToolFunc(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
			if c.Name == "shipping.quote" {
				var a struct{ Carrier string }
				json.Unmarshal(c.Args, &a)
				return json.RawMessage(fmt.Sprintf(`{"carrier":%q,"days":2,"price_cny":12}`, a.Carrier)), nil
			}
			return json.RawMessage(result), nil
		})
	}
	// Every projection serve runs, with serve's defaults, and the executor
	// with the story's tools.
	d.s, err = stack.Start(context.Background(), stack.Config{Bus: d.b, ViewsDir: filepath.Join(dir, "views"),
		Components: append(stack.Names(), stack.Executor), DumpPageRows: pageRows,
		Projections: stack.Projections{IdleTimeout: 2 * time.Minute, ArgsBytesMax: 1 << 20, Quotas: assembler.DefaultQuotas(), Trust: d.trust},
		Executor: executor.Config{Heartbeat: 250 * time.Millisecond, ExecutorID: "test-executor", Tools: map[string]executor.Tool{
			"inventory.get":  tool(`{"sku":"A1","name":"商品 A","available":12,"warehouse":"Shanghai"}`),
			"shipping.quote": tool(""),
			"orders.refund":  tool(`{"order_id":"O-7","refunded":59.9,"status":"refunded"}`),
		}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.s.Stop)
	if err := d.s.Registry().Wait(ctx, reg.Digest()); err != nil {
		t.Fatal(err)
	}

	for _, f := range []struct{ file, format string }{
		{"1-anthropic-inventory.jsonl", "anthropic"},
		{"2-chat-parallel-shipping.jsonl", "openai-chat"},
		{"3-responses-refund.jsonl", "openai-responses"},
		{"4-gemini-invalid-refund.jsonl", "gemini"},
	} {
		d.publish(t, ctx, f.file, f.format)
	}
	_, err = bustest.WaitEvents(ctx, d.b, []string{"ts.result.shop.>", "ts.exec.shop.>"}, func(evs []*events.Event) bool {
		ok, waiting := 0, 0
		for _, ev := range evs {
			switch ev.Body.(type) {
			case *events.CallSucceeded:
				ok++
			case *events.ApprovalRequested:
				waiting++
			}
		}
		return ok >= 3 && waiting >= 1
	})
	if err != nil {
		t.Fatalf("waiting for the executor: %v", err)
	}
	if err := executor.Approve(ctx, d.b.JS, demoTenant, events.IdempotencyKey(demoTenant, "", "resp_demo_refund", "call_demo_refund"), "agent@shop", "customer verified"); err != nil {
		t.Fatal(err)
	}
	if _, err := bustest.WaitEvents(ctx, d.b, []string{"ts.result.shop.>"}, func(evs []*events.Event) bool { return len(evs) >= 4 }); err != nil {
		t.Fatalf("waiting for the refund: %v", err)
	}
	// ExecutionStarted (an attempt under a lease: the refund's) is
	// published without waiting: it may reach the log after the result.
	if _, err := bustest.WaitEvents(ctx, d.b, []string{"ts.exec.shop.>"}, func(evs []*events.Event) bool {
		n := 0
		for _, ev := range evs {
			if _, ok := events.As[*events.ExecutionStarted](ev); ok {
				n++
			}
		}
		return n >= 1
	}); err != nil {
		t.Fatalf("waiting for the attempts: %v", err)
	}
	d.publish(t, ctx, "5-anthropic-final-answer.jsonl", "anthropic")
	d.settle(t, ctx)
	return d
}

func (d *demoLog) publish(t *testing.T, ctx context.Context, file, format string) {
	t.Helper()
	f, err := os.Open(filepath.Join("../../internal/demo/testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := client.Connect(ctx, client.WithConn(d.b.Conn), client.WithKeys(d.b.Keys))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Publish(ctx, f, client.WithStream(client.Stream{Tenant: demoTenant, Format: format,
		ID: strings.TrimSuffix(file, ".jsonl"), User: "u42", Session: "s1", Raw: true})); err != nil {
		t.Fatal(err)
	}
}

// settle waits until every projection applied the whole log and relayed
// what it emitted, twice over (an emitted event is input to the others).
func (d *demoLog) settle(t *testing.T, ctx context.Context) {
	t.Helper()
	for range 3 {
		for _, r := range d.s.Node().Runners() {
			last, err := d.b.LastSeq(ctx, r.Stream())
			if err != nil {
				t.Fatal(err)
			}
			if err := r.WaitFor(ctx, last); err != nil {
				t.Fatal(err)
			}
			if err := r.WaitRelayed(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestTraceDemoCalls(t *testing.T) {
	d := startDemoLog(t, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// The stock query: built from Anthropic deltas, run once, cited by the
	// verified answer.
	tr, err := trace.Call(ctx, d.b, demoTenant, "toolu_demo_inv", "")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Outcome != "completed" || tr.Result != "succeeded" || tr.Tool != "inventory.get" {
		t.Fatalf("outcome %s → %s, tool %s", tr.Outcome, tr.Result, tr.Tool)
	}
	if tr.Built == nil || tr.Built.Deltas == 0 || tr.Built.Bytes == 0 || tr.Built.FirstSeq == 0 || tr.Built.LastSeq < tr.Built.FirstSeq || tr.Built.RawFirst == 0 {
		t.Fatalf("provenance: %+v", tr.Built)
	}
	deltas, nbytes := 0, 0
	for _, st := range tr.Steps {
		if st.Kind == string(events.KindArgumentsDelta) && st.Seq >= tr.Built.FirstSeq && st.Seq <= tr.Built.LastSeq {
			deltas++
			nbytes += st.Bytes
		}
	}
	if deltas != tr.Built.Deltas || nbytes != tr.Built.Bytes {
		t.Errorf("steps show %d deltas, %d bytes; the call says %d, %d", deltas, nbytes, tr.Built.Deltas, tr.Built.Bytes)
	}
	if len(tr.Verdicts) == 0 {
		t.Errorf("no verdict cites the stock query")
	}
	// (a tool without side effects runs without a lease: no attempt
	// events). Stages in the order each first appears: the model's stream
	// may still be storing its last events when the tool's result is
	// stored (a CI run of b2674eb showed a model step after the result).
	wantStages := []string{"model", "call", "result", "verdict"}
	var stages []string
	for _, st := range tr.Steps {
		if st.Stage != "exec" && !slices.Contains(stages, st.Stage) {
			stages = append(stages, st.Stage)
		}
		if st.Stored.IsZero() || st.Seq == 0 {
			t.Errorf("step without sequence or stream time: %+v", st)
		}
	}
	if strings.Join(stages, ",") != strings.Join(wantStages, ",") {
		t.Errorf("stages %v, want %v", stages, wantStages)
	}
	for i := 1; i < len(tr.Steps); i++ { // several streams: their times order the steps
		if tr.Steps[i].Stored.Before(tr.Steps[i-1].Stored) {
			t.Errorf("steps out of log order at %d", i)
		}
	}
	if len(tr.Timings) < 4 || tr.Timings[len(tr.Timings)-1].From != "item opened" || tr.Timings[len(tr.Timings)-1].To != "verified" {
		t.Errorf("timings: %+v", tr.Timings)
	}

	// The refund: approval requested, granted, then run.
	tr, err = trace.Call(ctx, d.b, demoTenant, "call_demo_refund", "")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, st := range tr.Steps {
		if st.Stage != "model" && st.Kind != string(events.KindExecutionStarted) {
			kinds = append(kinds, st.Kind)
		}
	}
	want := []string{"call.completed", "exec.approval_requested", "exec.approval_granted", "exec.succeeded", "answer.verified"}
	if strings.Join(kinds, ",") != strings.Join(want, ",") {
		t.Errorf("refund steps %v, want %v", kinds, want)
	}
	if len(tr.Attempts) != 1 || tr.Attempts[0].Attempt != 1 || !strings.HasPrefix(tr.Attempts[0].Executor, "test-executor#") {
		t.Errorf("refund attempts: %+v", tr.Attempts)
	}
	if tr.Record == nil || tr.Record.State != "done" || tr.Record.Approval != "granted" {
		t.Errorf("executor record: %+v", tr.Record)
	}

	// The rejected Gemini call, named by its item id.
	calls, err := d.b.ReadEvents(ctx, []string{"ts.call.shop.>"})
	if err != nil {
		t.Fatal(err)
	}
	var item string
	for _, ev := range calls {
		if _, ok := events.As[*events.CallRejected](ev); ok {
			item = ev.Item
		}
	}
	tr, err = trace.Call(ctx, d.b, demoTenant, item, "")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Outcome != "rejected" || tr.Reason != string(events.ReasonSchemaViolation) || tr.Key != "" || len(tr.Attempts) != 0 {
		t.Errorf("rejected call traced as %s (%s), key %q, %d attempts", tr.Outcome, tr.Reason, tr.Key, len(tr.Attempts))
	}

	// Unknown ids and tenants find nothing.
	if _, err := trace.Call(ctx, d.b, demoTenant, "nope", ""); !errors.Is(err, trace.ErrNotFound) {
		t.Errorf("unknown call: %v", err)
	}
	if _, err := trace.Call(ctx, d.b, "other", "toolu_demo_inv", ""); !errors.Is(err, trace.ErrNotFound) {
		t.Errorf("another tenant's call: %v", err)
	}

	// The command, against the running server.
	var out, errOut bytes.Buffer
	root := newRoot(&out, &errOut)
	root.SetArgs([]string{"trace", "call_demo_refund", "--tenant", demoTenant, "--nats-url", d.b.ClientURL(), "--log-level", "error", "--creds", bustest.Creds(t, d.b, auth.Identity{Role: auth.RoleReader})})
	if err := root.ExecuteContext(ctx); err != nil {
		t.Fatalf("trace: %v\n%s", err, errOut.String())
	}
	for _, s := range []string{"call call_demo_refund (tenant shop)", "tool orders.refund", "outcome: completed → succeeded", "argument deltas", "attempts and lease holders: #1 test-executor#",
		"approved by agent@shop", "timings", "completion signal → decided", "approval requested → approval decided"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("trace output lacks %q:\n%s", s, out.String())
		}
	}
	out.Reset()
	root = newRoot(&out, &errOut)
	root.SetArgs([]string{"trace", "call_demo_sf", "--tenant", demoTenant, "--nats-url", d.b.ClientURL(), "--json", "--creds", bustest.Creds(t, d.b, auth.Identity{Role: auth.RoleReader})})
	if err := root.ExecuteContext(ctx); err != nil {
		t.Fatal(err)
	}
	var back trace.Trace
	if err := json.Unmarshal(out.Bytes(), &back); err != nil || back.CallID != "call_demo_sf" || len(back.Steps) == 0 {
		t.Errorf("--json: %v %+v", err, back)
	}
}
