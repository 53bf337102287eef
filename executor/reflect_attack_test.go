package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestAProducerReflectingAcknowledgementsChangesNoOutcome: tenant acme's
// producer sees the executor's reply subject on every outcome it publishes
// (it subscribes to its tenant's results, as its role lets it) and, for
// each, publishes one of its raw events with that reply subject, so the
// log's acknowledgement of TS_IN goes to the executor's inbox, on the
// subject the window waits on and the next window will wait on again. It
// may not publish there itself (internal/stack's
// TestNoRoleWritesIntoTheExecutorsInbox). What the attacker gets: its raw
// events stored, nothing else. What the victim gets: each of 200 calls of
// an Immediate tool runs once and has one outcome in the log, its true
// result; the executor takes no other stream's acknowledgement for its
// publish (ackedBy, TestAckedByRefusesAReflectedAcknowledgement).
func TestAProducerReflectingAcknowledgementsChangesNoOutcome(t *testing.T) {
	b := bustest.Start(t)
	reg := parseRegistry(t, `
tools:
  - {name: imm.echo, side_effect: none}
grants:
  - {tenant: acme, permissions: [imm.echo]}
`)
	var mu sync.Mutex
	runs := map[string]int{}
	tools := map[string]executor.Tool{
		"imm.echo": executor.ImmediateFunc(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
			mu.Lock()
			runs[c.CallID]++
			mu.Unlock()
			return c.Args, nil
		}),
	}
	startExec(t, b, reg, tools, nil)

	opts, err := b.UserOptions(auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	var denied atomic.Int64
	p, err := nats.Connect(b.ClientURL(), append(opts, nats.NoCallbacksAfterClientClose(),
		nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) { denied.Add(1) }))...)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var reflected atomic.Int64
	if _, err := p.Subscribe("ts.result.acme.>", func(m *nats.Msg) {
		if m.Reply == "" {
			return
		}
		for range 2 { // one for this window, one waiting for the next
			if p.PublishMsg(&nats.Msg{Subject: "ts.in.acme.reflect.x", Reply: m.Reply, Data: []byte(`{}`)}) == nil {
				reflected.Add(1)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := p.Flush(); err != nil {
		t.Fatal(err)
	}

	const n = 200
	keys := make([]string, n)
	for i := range n {
		keys[i] = publishCall(t, b, callSpec{tenant: "acme", tool: "imm.echo", call: fmt.Sprint("call_", i), args: fmt.Sprintf(`{"i":%d}`, i)})
	}
	for i, key := range keys {
		o := waitOutcome(t, b, "acme", key)
		if o.ok == nil || string(o.ok.Result) != fmt.Sprintf(`{"i":%d}`, i) {
			t.Errorf("call %d: %v, want its own result", i, o)
		}
		subj, _ := events.ResultSubject("acme", key)
		if c := count(t, b, subj); c != 1 {
			t.Errorf("call %d: %d messages on its result subject, want 1", i, c)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for i := range n {
		if r := runs[fmt.Sprint("call_", i)]; r != 1 {
			t.Errorf("call_%d ran %d times, want once", i, r)
		}
	}
	if reflected.Load() == 0 {
		t.Fatal("the producer saw no reply subject: the attack did not run")
	}
	if denied.Load() != 0 {
		t.Errorf("the producer's reflecting publishes were refused %d times: it may publish its raw events", denied.Load())
	}
	t.Logf("%d acknowledgements reflected into the executor's inbox", reflected.Load())
}
