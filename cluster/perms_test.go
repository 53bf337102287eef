package cluster_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/bus"
	"github.com/toolstream/toolstream/cluster"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/node"
	"github.com/toolstream/toolstream/responses"
	"github.com/toolstream/toolstream/verifier"
)

// rolePasswords are the passwords the deploy configuration reads from the
// environment, here test values.
var rolePasswords = map[string]string{
	"assembler": "TS_ASSEMBLER_PASSWORD", "executor": "TS_EXECUTOR_PASSWORD", "verifier": "TS_VERIFIER_PASSWORD",
	"memory": "TS_MEMORY_PASSWORD", "reader": "TS_READER_PASSWORD", "operator": "TS_OPERATOR_PASSWORD", "producer-acme": "TS_PRODUCER_ACME_PASSWORD",
	"producer-globex": "TS_PRODUCER_GLOBEX_PASSWORD", "sys": "TS_SYS_PASSWORD",
}

func setRolePasswords(t *testing.T) {
	for user, env := range rolePasswords {
		t.Setenv(env, "test-"+user)
	}
}

// startDeployCluster runs the three servers of deploy/nats on loopback
// ports with their accounts, users and permissions.
func startDeployCluster(t *testing.T) *cluster.Cluster {
	t.Helper()
	setRolePasswords(t)
	return cluster.Start(t, cluster.Config{Account: "TS", Options: func(i int) (*server.Options, error) {
		return server.ProcessConfigFile(filepath.Join("..", "deploy", "nats", fmt.Sprintf("nats-%d.conf", i+1)))
	}})
}

// roleConn is a connection as user that records the server's asynchronous
// errors (permission violations).
type roleConn struct {
	*nats.Conn
	mu   sync.Mutex
	errs []error
}

func connectAs(t *testing.T, c *cluster.Cluster, user string) *roleConn {
	t.Helper()
	rc := &roleConn{}
	nc, err := nats.Connect(c.URLs(), nats.UserInfo(user, "test-"+user), nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		rc.mu.Lock()
		rc.errs = append(rc.errs, err)
		rc.mu.Unlock()
	}))
	if err != nil {
		t.Fatalf("connect as %s: %v", user, err)
	}
	t.Cleanup(nc.Close)
	rc.Conn = nc
	return rc
}

// denied waits until the server reported a permission violation naming
// what. The server sends it before the reply to the flush's ping, so it has
// arrived by the time Flush returns; the handler runs asynchronously.
func (rc *roleConn) denied(t *testing.T, what string) {
	t.Helper()
	if err := rc.Flush(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	found := func() bool {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		for _, err := range rc.errs {
			if errors.Is(err, nats.ErrPermissionViolation) && strings.Contains(err.Error(), what) {
				return true
			}
		}
		return false
	}
	if err := pollCtx(ctx, found); err != nil {
		rc.mu.Lock()
		t.Fatalf("no permission violation for %q; errors: %v", what, rc.errs)
		rc.mu.Unlock()
	}
}

// short is a context for one request that the test expects to go
// unanswered (a denied request gets no reply).
func short(ctx context.Context) context.Context {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	_ = cancel // released when it expires
	return ctx
}

func pollCtx(ctx context.Context, cond func() bool) error {
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	return nil
}

// openAs opens the bus over the cluster as a role user.
func openAs(t *testing.T, c *cluster.Cluster, user string) *bus.Bus {
	t.Helper()
	return c.Open(t, bus.Config{Name: user, Options: []nats.Option{nats.UserInfo(user, "test-"+user)}})
}

// TestProducerMayOnlyPublishItsTenantsIngest: with the deploy
// configuration, a producer's credentials publish raw events of its own
// tenant into the log, and cannot publish a CallCompleted, publish for
// another tenant, or read anything of the log.
func TestProducerMayOnlyPublishItsTenantsIngest(t *testing.T) {
	c := startDeployCluster(t)
	asm := openAs(t, c, "assembler") // the role that creates the stream
	if asm.Replicas() != 3 {
		t.Fatalf("replicas = %d", asm.Replicas())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	acme := connectAs(t, c, "producer-acme")
	js, err := jetstream.New(acme.Conn)
	if err != nil {
		t.Fatal(err)
	}
	// Its own ingest subject: the event reaches the log and is acknowledged.
	s, raw := rawCall(1)
	s.Tenant = "acme"
	if _, seq, err := assembler.PublishRaw(ctx, js, s, bytes.NewReader(raw)); err != nil || seq == 0 {
		t.Fatalf("producer-acme publishing its own stream: seq %d, %v", seq, err)
	}
	if n := countSubjects(t, asm, "ts.in.acme.>"); n != rawEventsPerCall {
		t.Fatalf("%d acme raw events in the log, want %d", n, rawEventsPerCall)
	}

	// A CallCompleted, straight to the call subjects: refused.
	ev := &events.Event{ID: events.CompletedID("acme", "r", "i"), Tenant: "acme", Response: "r", Item: "i", CallID: "c",
		Body: &events.CallCompleted{Name: "orders.refund", Arguments: []byte(`{"order_id":"O-1","amount":1e6}`)}}
	data, _ := events.Encode(ev)
	subj, _ := events.CallSubject("acme", "orders.refund")
	if err := acme.Publish(subj, data); err != nil {
		t.Fatal(err)
	}
	acme.denied(t, `Publish to "`+subj+`"`)
	if _, err := js.Publish(short(ctx), subj, data); err == nil {
		t.Fatal("a JetStream publish of a CallCompleted was acknowledged")
	}
	// Another tenant's ingest: refused.
	if err := acme.Publish("ts.in.globex.openai-responses.s1", raw[:10]); err != nil {
		t.Fatal(err)
	}
	acme.denied(t, `Publish to "ts.in.globex.openai-responses.s1"`)
	if n := countSubjects(t, asm, "ts.call.>") + countSubjects(t, asm, "ts.in.globex.>"); n != 0 {
		t.Fatalf("%d forged events reached the log", n)
	}

	// Reading: another tenant's events, any event, the log's API.
	if _, err := acme.SubscribeSync("ts.in.globex.>"); err != nil {
		t.Fatal(err)
	}
	acme.denied(t, `Subscription to "ts.in.globex.>"`)
	if _, err := acme.SubscribeSync("ts.>"); err != nil {
		t.Fatal(err)
	}
	acme.denied(t, `Subscription to "ts.>"`)
	if _, err := js.Stream(short(ctx), bus.StreamName); err == nil {
		t.Fatal("producer-acme read the log's stream info")
	}
	acme.denied(t, "$JS.API.STREAM.INFO.TOOLSTREAM")
}

// TestRolesMayOnlyWriteTheirSubjects: readers write nothing and cannot
// change the log; executors cannot forge calls; the assembler cannot forge
// results.
func TestRolesMayOnlyWriteTheirSubjects(t *testing.T) {
	c := startDeployCluster(t)
	asm := openAs(t, c, "assembler")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	reader := connectAs(t, c, "reader")
	reader.Publish("ts.call.acme.noop", []byte("x"))
	reader.denied(t, `Publish to "ts.call.acme.noop"`)
	rjs, _ := jetstream.New(reader.Conn)
	if err := rjs.DeleteStream(short(ctx), bus.StreamName); err == nil {
		t.Fatal("reader deleted the log")
	}
	reader.denied(t, "$JS.API.STREAM.DELETE.TOOLSTREAM")
	if _, err := rjs.UpdateStream(short(ctx), jetstream.StreamConfig{Name: bus.StreamName, Subjects: []string{"ts.>"}, MaxAge: time.Second}); err == nil {
		t.Fatal("reader changed the log's retention")
	}
	reader.denied(t, "$JS.API.STREAM.UPDATE.TOOLSTREAM")
	// A reader opens the bus (reading the stream's info) and reads the log.
	rb := openAs(t, c, "reader")
	if _, err := node.ReadAll(ctx, rb, []string{"ts.>"}); err != nil {
		t.Fatalf("reader reading the log: %v", err)
	}
	// It cannot take over or remove a processor's durable consumer.
	if err := rjs.DeleteConsumer(short(ctx), bus.StreamName, "ts-assembler"); err == nil {
		t.Fatal("reader deleted the assembler's consumer")
	}
	reader.denied(t, "$JS.API.CONSUMER.DELETE.TOOLSTREAM.ts-assembler")
	if _, err := rjs.CreateConsumer(short(ctx), bus.StreamName, jetstream.ConsumerConfig{Durable: "ts-executor", AckPolicy: jetstream.AckNonePolicy}); err == nil {
		t.Fatal("reader created the executors' consumer")
	}
	reader.denied(t, "$JS.API.CONSUMER.CREATE.TOOLSTREAM.ts-executor")

	// An operator grants approvals and writes memory, and nothing a
	// processor writes.
	ob := openAs(t, c, "operator")
	ojs := ob.JS
	for _, subj := range []string{"ts.approval.acme.call_1", "ts.mem.acme.u1"} {
		if _, err := ojs.Publish(short(ctx), subj, []byte("x")); err != nil {
			t.Fatalf("operator publishing %s: %v", subj, err)
		}
	}
	op := connectAs(t, c, "operator")
	for _, subj := range []string{"ts.call.acme.noop", "ts.result.acme.k", "ts.in.acme.openai-responses.s1"} {
		op.Publish(subj, []byte("x"))
		op.denied(t, fmt.Sprintf("Publish to %q", subj))
	}

	exec := connectAs(t, c, "executor")
	exec.Publish("ts.call.acme.noop", []byte("x"))
	exec.denied(t, `Publish to "ts.call.acme.noop"`)
	exec.Publish("ts.in.acme.openai-responses.s1", []byte("x"))
	exec.denied(t, `Publish to "ts.in.acme.openai-responses.s1"`)

	as := connectAs(t, c, "assembler")
	as.Publish("ts.result.acme.k", []byte("x"))
	as.denied(t, `Publish to "ts.result.acme.k"`)

	ajs, _ := jetstream.New(as.Conn)
	if err := ajs.DeleteStream(short(ctx), bus.StreamName); err == nil {
		t.Fatal("assembler deleted the log")
	}
	as.denied(t, "$JS.API.STREAM.DELETE.TOOLSTREAM")
	if n := countSubjects(t, asm, "ts.>"); n != 2 {
		t.Fatalf("%d events reached the log, want the operator's 2: forged events got through", n)
	}
}

// TestRolesRunThePipeline runs every component under its own role user
// from the deploy configuration on the 3-server cluster: producers of two
// tenants publish provider streams, ingest and the assembler (assembler
// user) complete the calls, two executors (executor user) run them, the
// verifier and memory projections (their users) follow, and a reader sees
// every result. The permissions are enough to work, not only to refuse.
func TestRolesRunThePipeline(t *testing.T) {
	c := startDeployCluster(t)
	asmBus := openAs(t, c, "assembler")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()

	n := node.New(asmBus, filepath.Join(dir, "assembler"), nil)
	t.Cleanup(func() { n.Stop() })
	if _, err := n.Start(ctx, assembler.NewIngest(assembler.IngestConfig{}), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Start(ctx, assembler.New(assembler.Config{}), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Start(ctx, responses.Projection{}, nil); err != nil {
		t.Fatal(err)
	}
	vn := node.New(openAs(t, c, "verifier"), filepath.Join(dir, "verifier"), nil)
	t.Cleanup(func() { vn.Stop() })
	if _, err := vn.Start(ctx, verifier.NewProjection(verifier.ProjectionConfig{}), nil); err != nil {
		t.Fatal(err)
	}
	mn := node.New(openAs(t, c, "memory"), filepath.Join(dir, "memory"), nil)
	t.Cleanup(func() { mn.Stop() })
	if _, err := mn.Start(ctx, memory.NewProjection(memory.NewEngine(memory.Config{}, nil)), nil); err != nil {
		t.Fatal(err)
	}
	var invoked sync.Map
	noop := executor.ToolFunc(func(_ context.Context, call executor.Call) (json.RawMessage, error) {
		invoked.Store(call.Key, true)
		return json.RawMessage(`{"ok":true}`), nil
	})
	ectx, ecancel := context.WithCancel(context.Background())
	var ewg sync.WaitGroup
	t.Cleanup(func() { ecancel(); ewg.Wait() })
	for i := 0; i < 2; i++ {
		eb := openAs(t, c, "executor")
		e, err := executor.New(executor.Config{JS: eb.JS, Stream: bus.StreamName, Replicas: eb.Replicas(), Tools: map[string]executor.Tool{"noop": noop}})
		if err != nil {
			t.Fatalf("executor as its role: %v", err)
		}
		ewg.Add(1)
		go func() {
			defer ewg.Done()
			if err := e.Run(ectx); err != nil {
				t.Errorf("executor as its role: %v", err)
			}
		}()
	}

	const calls = 20
	for _, tenant := range []string{"acme", "globex"} {
		pc := connectAs(t, c, "producer-"+tenant)
		js, _ := jetstream.New(pc.Conn)
		for i := 0; i < calls; i++ {
			s, raw := rawCall(i)
			s.Tenant = tenant
			if _, _, err := assembler.PublishRaw(ctx, js, s, bytes.NewReader(raw)); err != nil {
				t.Fatalf("producer-%s: %v", tenant, err)
			}
		}
	}
	rb := openAs(t, c, "reader")
	evs, err := node.WaitEvents(ctx, rb, []string{"ts.result.>"}, func(evs []*events.Event) bool { return len(evs) >= 2*calls })
	if err != nil {
		t.Fatalf("reader saw %d results: %v", len(evs), err)
	}
	for _, ev := range evs {
		if _, ok := events.As[*events.CallSucceeded](ev); !ok {
			t.Errorf("result %s of %s is a %s", ev.ID, ev.Tenant, ev.Kind)
		}
	}
	// The views follow the log to its end under their own users.
	for _, x := range []struct {
		n    *node.Node
		name string
	}{{n, assembler.Name}, {vn, verifier.Name}, {mn, memory.Name}} {
		if err := x.n.Settle(ctx, x.name, []string{"ts.>"}); err != nil {
			t.Fatalf("%s as its role: %v", x.name, err)
		}
	}
}
