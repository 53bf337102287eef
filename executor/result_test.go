package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/registry"
)

func TestLargeResultsGoToTheObjectStore(t *testing.T) {
	b := bustest.Start(t)
	reg := parseRegistry(t, `
tools:
  - name: orders.list
    side_effect: none
grants:
  - tenant: acme
    permissions: [orders.list]
`)
	rows := make([]map[string]any, 1000)
	for i := range rows {
		rows[i] = map[string]any{"id": fmt.Sprint("o", i), "amount": i, "note": strings.Repeat("x", 300)}
	}
	big, _ := json.Marshal(map[string]any{"orders": rows, "page": 1})
	list := newCounter(func(context.Context, executor.Call) (json.RawMessage, error) { return big, nil })
	startExec(t, b, reg, map[string]executor.Tool{"orders.list": list}, func(c *executor.Config) { c.ResultInlineMax = 8 << 10 })
	key := publishCall(t, b, callSpec{tenant: "acme", tool: "orders.list", call: "big"})
	o := waitOutcome(t, b, "acme", key)
	if o.ok == nil || o.ok.Result != nil || o.ok.RawRef != "ts_results/"+key {
		t.Fatalf("large result: %v, ref %q", o, o.ok.RawRef)
	}
	if len(o.ok.Summary) > 2048 {
		t.Fatalf("summary of %d bytes", len(o.ok.Summary))
	}
	var sum struct {
		Orders struct {
			Count  int              `json:"count"`
			Fields []string         `json:"fields"`
			Sample []map[string]any `json:"sample"`
			Ref    string           `json:"ref"`
			Stats  map[string]map[string]json.Number
		} `json:"orders"`
		Page int `json:"page"`
	}
	if err := json.Unmarshal([]byte(o.ok.Summary), &sum); err != nil {
		t.Fatalf("summary %s: %v", o.ok.Summary, err)
	}
	if sum.Orders.Count != 1000 || strings.Join(sum.Orders.Fields, ",") != "amount,id,note" || len(sum.Orders.Sample) == 0 ||
		sum.Orders.Ref != o.ok.RawRef || sum.Page != 1 || sum.Orders.Stats["amount"]["max"] != "999" || sum.Orders.Stats["amount"]["n"] != "1000" {
		t.Fatalf("summary %s", o.ok.Summary)
	}
	obs, err := b.JS.ObjectStore(context.Background(), "ts_results")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := obs.GetBytes(context.Background(), key)
	if err != nil || string(raw) != string(big) {
		t.Fatalf("raw result: %d bytes, %v", len(raw), err)
	}
}

// A registry change in the log takes effect without a restart.
func TestRegistryChangeTakesEffectWithoutRestart(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	key, err := registry.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	f, err := registry.Follow(ctx, registry.FollowConfig{JS: b.JS, Trust: key.Trust()})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	tool := newCounter(nil)
	cfg := func(c *executor.Config) { c.Registry = f.Current }
	startExec(t, b, nil, map[string]executor.Tool{"report": tool}, cfg)
	without := parseRegistry(t, "tools: [{name: report, side_effect: none}]\ngrants: [{tenant: acme, permissions: [other]}]")
	with := parseRegistry(t, "tools: [{name: report, side_effect: none}]\ngrants: [{tenant: acme, permissions: [report]}]")
	for i, step := range []struct {
		reg  *registry.Registry
		want events.ErrorType
	}{{without, events.ErrPermissionDenied}, {with, ""}} {
		if _, err := registry.Publish(ctx, registry.PublishConfig{JS: b.JS, Key: key, Source: "tools.yaml"}, step.reg); err != nil {
			t.Fatal(err)
		}
		if err := f.Wait(ctx, step.reg.Digest()); err != nil {
			t.Fatal(err)
		}
		o := waitOutcome(t, b, "acme", publishCall(t, b, callSpec{tenant: "acme", tool: "report", call: fmt.Sprint("r", i)}))
		if step.want == "" && o.ok == nil || step.want != "" && (o.err == nil || o.err.Error != step.want) {
			t.Fatalf("step %d: %v, want %q", i, o, step.want)
		}
	}
	if tool.total.Load() != 1 {
		t.Fatalf("%d invocations, want 1", tool.total.Load())
	}
}
