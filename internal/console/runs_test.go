package console_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/console"
	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/internal/stack"
)

// TestRunsPagesAskTheRunsService: /api/runs lists a tenant's runs and
// /api/runs/rounds a run's rounds (an empty list, not null, for none), as
// the runs service answers them; a run the service does not know is a
// 400 with its message.
func TestRunsPagesAskTheRunsService(t *testing.T) {
	h := start(t)
	ctx := h.ctx
	n := stack.NewNode(h.b, t.TempDir(), nil)
	t.Cleanup(func() { n.Stop() })
	rr, err := n.Start(ctx, runs.New(runs.Config{}), nil)
	if err != nil {
		t.Fatal(err)
	}
	leases, err := runs.NewLeases(ctx, runs.LeaseConfig{JS: h.b.JS})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := micro.AddService(h.b.Conn, micro.Config{Name: "toolstream-test", Version: "0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop() })
	rs := &runs.Service{Runner: rr, Leases: leases, Publish: func(ctx context.Context, subj string, ev *events.Event) (uint64, error) {
		ack, err := h.b.PublishSealed(ctx, subj, ev, "")
		if err != nil {
			return 0, err
		}
		return ack.Sequence, nil
	}}
	if err := rs.AddTo(svc); err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(ctx, client.WithConn(h.b.Conn), client.WithKeys(h.b.Keys))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Say(ctx, "acme", "run1", "u1", "m1", "What is the weather in Paris?", "openai-chat"); err != nil {
		t.Fatal(err)
	}
	op, _ := h.client(console.Grant{Role: auth.RoleOperator})
	var list struct{ List []runs.Run }
	h.getJSON(op, "/api/runs?tenant=acme", 200, &list)
	if len(list.List) != 1 || list.List[0].ID != "run1" || list.List[0].Tenant != "acme" || list.List[0].Version == 0 {
		t.Fatalf("runs of acme: %+v", list)
	}
	var rounds map[string]json.RawMessage
	h.getJSON(op, "/api/runs/rounds?tenant=acme&run=run1", 200, &rounds)
	if string(rounds["rounds"]) != "[]" {
		t.Fatalf("rounds of a run without any: %s", rounds["rounds"])
	}
	h.getJSON(op, "/api/runs?tenant=globex", 200, &rounds)
	if string(rounds["list"]) != "[]" {
		t.Fatalf("runs of a tenant without any: %s", rounds["list"])
	}
	h.getJSON(op, "/api/runs/rounds?tenant=acme&run=nope", 400, nil)
}
