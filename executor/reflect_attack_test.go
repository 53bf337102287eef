package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
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
	v := startReflectVictim(t, nil)
	p, denied := v.conn(t, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
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

	v.runsEachOnce(t, 200)
	if reflected.Load() == 0 {
		t.Fatal("the producer saw no reply subject: the attack did not run")
	}
	if denied.Load() != 0 {
		t.Errorf("the producer's reflecting publishes were refused %d times: it may publish its raw events", denied.Load())
	}
	t.Logf("%d acknowledgements reflected into the executor's inbox", reflected.Load())
}

// TestReflectedRefusalsAndNotFoundsChangeNoDecision: the same attack with
// answers that are no acknowledgement. For every outcome tenant acme's
// producer sees, it publishes a raw event with a wrong expected sequence
// and the executor's reply subject (TS_IN refuses it there: "wrong last
// sequence"), and the reader has a direct get of a subject holding nothing
// answered there (a 404, no body), each twice (this window's, the next's).
// What the attackers get: their refusal and their 404, nothing else. What
// the victim gets: each of 200 Immediate calls runs once, has one outcome,
// its own result, and its input is delivered once: the window took no
// such answer for its publish's (ackedBy), which would have failed the
// decision and handed its input back, or sent it to the bucket path as
// if its subject were taken.
func TestReflectedRefusalsAndNotFoundsChangeNoDecision(t *testing.T) {
	var warned atomic.Int64 // records logged at warn or above: a decision failed, an input handed back
	published := map[string]int{}
	var v *reflectVictim
	v = startReflectVictim(t, func(c *executor.Config) {
		c.Logger = slog.New(countingHandler{&warned, t.Log})
		c.Hooks = &executor.Hooks{BeforePublish: func(key string) {
			v.mu.Lock()
			published[key]++
			v.mu.Unlock()
		}}
	})
	p, perrs := v.conn(t, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
	r, rerrs := v.conn(t, auth.Identity{Role: auth.RoleReader})
	var reflected atomic.Int64
	if _, err := p.Subscribe("ts.result.acme.>", func(m *nats.Msg) {
		if m.Reply == "" {
			return
		}
		for range 2 {
			refused := &nats.Msg{Subject: "ts.in.acme.reflect.x", Reply: m.Reply, Data: []byte(`{}`), Header: nats.Header{}}
			refused.Header.Set("Nats-Expected-Last-Subject-Sequence", "999999")
			if p.PublishMsg(refused) == nil &&
				r.PublishRequest("$JS.API.DIRECT.GET.TS_OUT", m.Reply, []byte(`{"last_by_subj":"ts.result.acme.nothing"}`)) == nil {
				reflected.Add(2)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := p.Flush(); err != nil {
		t.Fatal(err)
	}

	keys := v.runsEachOnce(t, 200)
	v.mu.Lock()
	for _, key := range keys {
		if p := published[key]; p != 1 {
			t.Errorf("%s: decided %d times, want once", key, p)
		}
	}
	v.mu.Unlock()
	if w := warned.Load(); w != 0 {
		t.Errorf("the executor logged %d warnings: a decision failed or went to the bucket", w)
	}
	if reflected.Load() == 0 {
		t.Fatal("the attackers saw no reply subject: the attack did not run")
	}
	if perrs.Load()+rerrs.Load() != 0 {
		t.Errorf("the attackers' publishes were refused %d and %d times: each may make them", perrs.Load(), rerrs.Load())
	}
	t.Logf("%d refusals and not-founds reflected into the executor's inbox", reflected.Load())
}

// reflectVictim is the executor the reflection attacks aim at: tenant
// acme's Immediate tool imm.echo, counting the runs of each call.
type reflectVictim struct {
	b    *bus.Bus
	mu   sync.Mutex
	runs map[string]int
}

// startReflectVictim starts the bus and the executor (cfg, if not nil,
// changes its config).
func startReflectVictim(t *testing.T, cfg func(*executor.Config)) *reflectVictim {
	t.Helper()
	v := &reflectVictim{b: bustest.Start(t), runs: map[string]int{}}
	reg := parseRegistry(t, `
tools:
  - {name: imm.echo, side_effect: none}
grants:
  - {tenant: acme, permissions: [imm.echo]}
`)
	tools := map[string]executor.Tool{
		"imm.echo": executor.ImmediateFunc(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
			v.mu.Lock()
			v.runs[c.CallID]++
			v.mu.Unlock()
			return c.Args, nil
		}),
	}
	startExec(t, v.b, reg, tools, cfg)
	return v
}

// conn connects as id, counting the errors the server sends back (a
// refused publish).
func (v *reflectVictim) conn(t *testing.T, id auth.Identity) (*nats.Conn, *atomic.Int64) {
	t.Helper()
	opts, err := v.b.UserOptions(id)
	if err != nil {
		t.Fatal(err)
	}
	var errs atomic.Int64
	c, err := nats.Connect(v.b.ClientURL(), append(opts, nats.NoCallbacksAfterClientClose(),
		nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) { errs.Add(1) }))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, &errs
}

// runsEachOnce publishes n calls of imm.echo and checks that each has one
// outcome, its own result, and ran once; it returns their keys.
func (v *reflectVictim) runsEachOnce(t *testing.T, n int) []string {
	t.Helper()
	keys := make([]string, n)
	for i := range n {
		keys[i] = publishCall(t, v.b, callSpec{tenant: "acme", tool: "imm.echo", call: fmt.Sprint("call_", i), args: fmt.Sprintf(`{"i":%d}`, i)})
	}
	for i, key := range keys {
		o := waitOutcome(t, v.b, "acme", key)
		if o.ok == nil || string(o.ok.Result) != fmt.Sprintf(`{"i":%d}`, i) {
			t.Errorf("call %d: %v, want its own result", i, o)
		}
		subj, _ := events.ResultSubject("acme", key)
		if c := count(t, v.b, subj); c != 1 {
			t.Errorf("call %d: %d messages on its result subject, want 1", i, c)
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for i := range n {
		if r := v.runs[fmt.Sprint("call_", i)]; r != 1 {
			t.Errorf("call_%d ran %d times, want once", i, r)
		}
	}
	return keys
}

// countingHandler counts the records logged at warn or above.
type countingHandler struct {
	n   *atomic.Int64
	log func(...any)
}

func (h countingHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (h countingHandler) Handle(_ context.Context, r slog.Record) error {
	h.n.Add(1)
	var attrs []any
	r.Attrs(func(a slog.Attr) bool { attrs = append(attrs, a); return true })
	h.log(r.Level, r.Message, attrs)
	return nil
}
func (h countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h countingHandler) WithGroup(string) slog.Handler      { return h }

// TestTheBucketsRepliesShareNoInboxAnOutcomeShows: the reply subjects the
// executor's bucket requests wait on (its records' reads and
// compare-and-sets, its looks at the log) are no neighbours of any a
// producer sees. Tenant acme's producer, subscribed to its outcomes as its
// role lets it, keeps the inbox of every reply subject it sees; the admin
// (standing for no attacker: it sees every request) keeps the inbox of
// each request the executor sends to the bucket or a direct get, for 40
// calls of a tool under a lease (record, lease, outcome, each a
// compare-and-set). No inbox is in both. With nats.go's requests (the
// connection's one inbox and eight characters of math/rand seeded by the
// clock: the bucket's replies before ask.go) the inbox of every outcome's
// publish is the bucket's (tried: fails), and an answer another identity
// has the server send there would be taken if it came first
// (TestABucketRequestTakesNoForeignAnswer: what it would change).
func TestTheBucketsRepliesShareNoInboxAnOutcomeShows(t *testing.T) {
	b := bustest.Start(t)
	inboxOf := func(reply string) string { return reply[:max(0, strings.LastIndexByte(reply, '.'))] }
	var mu sync.Mutex
	shown, asked := map[string]bool{}, map[string]bool{}
	p, _ := (&reflectVictim{b: b}).conn(t, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
	// keep keeps in inboxes the inbox of each reply subject seen.
	keep := func(inboxes map[string]bool) nats.MsgHandler {
		return func(m *nats.Msg) {
			if m.Reply != "" {
				mu.Lock()
				inboxes[inboxOf(m.Reply)] = true
				mu.Unlock()
			}
		}
	}
	if _, err := p.Subscribe("ts.result.acme.>", keep(shown)); err != nil {
		t.Fatal(err)
	}
	for _, subj := range []string{"$KV.>", "$JS.API.DIRECT.GET.>", "$JS.API.STREAM.MSG.GET.>"} {
		if _, err := b.Conn.Subscribe(subj, keep(asked)); err != nil {
			t.Fatal(err)
		}
	}
	if err := errors.Join(p.Flush(), b.Conn.Flush()); err != nil {
		t.Fatal(err)
	}
	reg := parseRegistry(t, `
tools:
  - {name: leased.echo}
grants:
  - {tenant: acme, permissions: [leased.echo]}
`)
	tool := newCounter(nil)
	startExec(t, b, reg, map[string]executor.Tool{"leased.echo": tool}, nil)
	for i := range 40 {
		key := publishCall(t, b, callSpec{tenant: "acme", tool: "leased.echo", call: fmt.Sprint("call_", i)})
		if o := waitOutcome(t, b, "acme", key); o.ok == nil {
			t.Fatalf("call %d: %v, want success", i, o)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(shown) == 0 || len(asked) == 0 {
		t.Fatalf("the producer saw %d inboxes, the bucket's requests used %d: the test saw nothing", len(shown), len(asked))
	}
	for inbox := range asked {
		if shown[inbox] {
			t.Errorf("the bucket's requests wait on %s.*, which the producer saw on an outcome", inbox)
		}
	}
	t.Logf("%d inboxes shown to the producer, %d used by the bucket's requests", len(shown), len(asked))
}
