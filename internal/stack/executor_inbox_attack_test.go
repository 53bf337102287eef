package stack_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/cluster"
)

// roleConn connects to b's server as a new user of id, keeping the
// asynchronous errors the server sends it (a permissions violation).
func roleConn(t *testing.T, b *bus.Bus, id auth.Identity) (*nats.Conn, func() []error) {
	t.Helper()
	opts, err := b.UserOptions(id)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var errs []error
	nc, err := nats.Connect(b.ClientURL(), append(opts, nats.Name("attack-"+id.String()), nats.NoCallbacksAfterClientClose(),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc, func() []error {
		mu.Lock()
		defer mu.Unlock()
		return append([]error(nil), errs...)
	}
}

// TestNoRoleWritesIntoTheExecutorsInbox: the executor takes the log's
// answers to a window's looks and publishes on reply subjects of its own
// inbox (_INBOX.ts-executor.<id>.<i>, the same i for every window), the
// publishes' on a subscription it keeps between windows. Each identity but
// the admin tries to put a forged acknowledgement and a forged look answer
// there, by a plain publish with its credential: the server refuses it
// (a permissions violation on the attacker's connection) and the
// executor's subscription receives nothing.
func TestNoRoleWritesIntoTheExecutorsInbox(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := cluster.Setup(ctx, b, nil); err != nil {
		t.Fatal(err)
	}
	victim, _ := roleConn(t, b, auth.Identity{Role: auth.RoleExecutor})
	inbox := victim.NewInbox()
	if !strings.HasPrefix(inbox, "_INBOX.ts-executor.") {
		t.Fatalf("the executor's inbox is %s", inbox)
	}
	sub, err := victim.SubscribeSync(inbox + ".>")
	if err != nil {
		t.Fatal(err)
	}
	if err := victim.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, id := range []auth.Identity{{Role: auth.RoleOperator}, {Role: auth.RoleReader}, {Role: auth.RoleProducer, Tenant: "acme"},
		{Role: auth.RoleAssembler}, {Role: auth.RoleExecutor}, {Role: auth.RoleVerifier}, {Role: auth.RoleMemory},
		{Role: auth.RoleRuns}, {Role: auth.RoleDriver}, {Role: auth.RoleKeyring}} {
		t.Run(id.String(), func(t *testing.T) {
			nc, errs := roleConn(t, b, id)
			forged := []*nats.Msg{
				{Subject: inbox + ".0", Data: []byte(`{"stream":"TS_OUT","seq":1}`)},
				{Subject: inbox + ".1", Data: []byte(`{"stream":"TS_OUT","seq":2,"duplicate": true}`)},
				{Subject: inbox + ".2", Header: nats.Header{"Status": []string{"404"}}},
			}
			for _, m := range forged {
				if err := nc.PublishMsg(m); err != nil {
					t.Fatal(err)
				}
			}
			nc.Flush()
			inboxPoll(t, "a permissions violation for each forged message", func() bool { return len(errs()) >= len(forged) })
			for _, err := range errs() {
				if !errors.Is(err, nats.ErrPermissionViolation) {
					t.Errorf("%s: %v, want a permissions violation", id, err)
				}
			}
			if m, err := sub.NextMsg(200 * time.Millisecond); err == nil {
				t.Errorf("%s put %q on %s in the executor's inbox", id, m.Data, m.Subject)
			}
		})
	}
}

func inboxPoll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestReflectedAnswersReachTheExecutorsInbox: what does get into the
// executor's inbox. A reply subject is no secret: a producer subscribed to
// its tenant's outcomes sees the executor's on each outcome it publishes.
// No identity may publish there (TestNoRoleWritesIntoTheExecutorsInbox),
// but one may have the server answer there, since a publish's reply
// subject is not checked against the publisher's permissions: a producer
// publishing its raw events with the executor's reply subject gets the
// log's acknowledgement of TS_IN sent to the executor, a reader's JetStream
// request (a direct get of the call records) its answer. The executor
// takes neither for its own: an acknowledgement must name the stream its
// publish went to (executor's ackedBy,
// TestAckedByRefusesAReflectedAcknowledgement), TS_OUT, which no producer
// or reader writes; a look's answers are taken only on the look's own
// reply subject, which goes to the server alone, and only for the record
// subjects asked; the log's compare-and-set decides a call whatever a
// look says (executor's TestAProducerReflectingAcknowledgementsChangesNoOutcome).
func TestReflectedAnswersReachTheExecutorsInbox(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := cluster.Setup(ctx, b, nil); err != nil {
		t.Fatal(err)
	}
	victim, _ := roleConn(t, b, auth.Identity{Role: auth.RoleExecutor})
	inbox := victim.NewInbox()
	sub, err := victim.SubscribeSync(inbox + ".>")
	if err != nil {
		t.Fatal(err)
	}
	victim.Flush()
	p, perrs := roleConn(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
	p.PublishMsg(&nats.Msg{Subject: "ts.in.acme.r1.x", Reply: inbox + ".0", Data: []byte(`{}`)})
	p.Flush()
	r, rerrs := roleConn(t, b, auth.Identity{Role: auth.RoleReader})
	r.PublishMsg(&nats.Msg{Subject: "$JS.API.DIRECT.GET.KV_ts_exec", Reply: inbox + ".1", Data: []byte(`{"multi_last":["$KV.ts_exec.>"]}`)})
	r.Flush()
	got := map[string]*nats.Msg{}
	for len(got) < 2 {
		m, err := sub.NextMsg(30 * time.Second)
		if err != nil {
			t.Fatalf("%d answers reflected, want 2: %v", len(got), err)
		}
		got[m.Subject[len(inbox)+1:]] = m
	}
	if d := string(got["0"].Data); !strings.HasPrefix(d, `{"stream":"TS_IN","seq":`) {
		t.Errorf("the producer's reflected answer: %s, want an acknowledgement of TS_IN", d)
	}
	if st := got["1"].Header.Get("Status"); st != "404" {
		t.Errorf("the reader's reflected direct get: status %q, want 404", st)
	}
	if len(perrs())+len(rerrs()) != 0 {
		t.Errorf("errors: %v %v", perrs(), rerrs())
	}
}
