package stack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/cluster"
	"github.com/toolstream/toolstream/internal/jstest"
	"github.com/toolstream/toolstream/internal/logread"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/registry"
)

// TestAttackNoRoleMakesAConsumerOnAReadBucket: the buckets the tenant-less
// roles read — the call records (KV_ts_exec), the raw results
// (OBJ_ts_results), the partition leases (KV_ts_leases), run mode's
// requests (KV_ts_agent, whose driver lists its runs by stream info) — are read by
// direct gets alone. A consumer on one may name any deliver subject, which
// the server checks against none of its creator's permissions
// (docs/security.md): before, the executor's credential made a push consumer
// of OBJ_ts_results delivering to the keys service's erase subject (sec15).
//
// Legitimate paths, each under its own role's credential: an executor
// runs a call whose result is kept in the object store (its record written
// and read in KV_ts_exec), the executor, reader and operator read the
// record (executor.CallStatus), the reader, operator, verifier and
// executor read the raw result (logread.Object), the assembler takes and
// releases a partition lease. Attacker: each processor role, the operator,
// the reader and the driver ask for an ephemeral push consumer, a named
// one and a legacy durable on each bucket, delivering to globex's calls
// subject, with a forging nats.go client; the reader asks with the stock
// nats CLI (`object get`, `kv ls`, `consumer add`), and nats.go's own
// object Get. Victims: every request is refused by the server, nothing
// reaches the deliver subject, the buckets hold no consumer afterwards.
func TestAttackNoRoleMakesAConsumerOnAReadBucket(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	b := bustest.Start(t)
	if err := cluster.Setup(ctx, b, nil); err != nil { // the buckets, as the admin
		t.Fatal(err)
	}
	if err := executor.CreateConsumers(ctx, executor.Config{JS: b.JS}); err != nil {
		t.Fatal(err)
	}
	buckets := []string{"KV_" + auth.ExecBucket, "OBJ_" + auth.ResultsBucket, "KV_" + auth.LeasesBucket, "KV_" + auth.AgentBucket}
	bucketConsumers := func() int {
		t.Helper()
		n := 0
		for _, s := range buckets {
			st, err := b.JS.Stream(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			info, err := st.Info(ctx)
			if err != nil {
				t.Fatal(err)
			}
			n += info.State.Consumers
		}
		return n
	}
	forged, err := b.Conn.SubscribeSync("ts.call.globex.forged")
	if err != nil {
		t.Fatal(err)
	}

	// The executor, under its credential, keeps a large result.
	reg, err := registry.Parse([]byte(`
tools:
  - name: orders.list
    side_effect: reversible
grants:
  - tenant: acme
    permissions: [orders.list]
`))
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]map[string]any, 2000)
	for i := range rows {
		rows[i] = map[string]any{"id": fmt.Sprint("o", i), "note": strings.Repeat("x", 200)}
	}
	big, _ := json.Marshal(map[string]any{"orders": rows})
	e, err := executor.New(executor.Config{JS: bustest.RoleJS(t, b, auth.Identity{Role: auth.RoleExecutor}),
		Registry: func() *registry.Registry { return reg }, ResultInlineMax: 8 << 10,
		Tools: map[string]executor.Tool{"orders.list": executor.ToolFunc(func(context.Context, executor.Call) (json.RawMessage, error) {
			return big, nil
		})}})
	if err != nil {
		t.Fatal(err)
	}
	ectx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- e.Run(ectx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("executor: %v", err)
		}
	}()
	ev := &events.Event{ID: events.CompletedID("acme", "resp_1", "item_1"), Tenant: "acme", Response: "resp_1", Item: "item_1",
		CallID: "call_1", At: time.Now().UnixNano(), Body: &events.CallCompleted{Name: "orders.list", Arguments: []byte(`{}`)}}
	subj, _ := events.CallSubject("acme", "orders.list")
	data, err := events.Encode(ev)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.JS.Publish(ctx, subj, data, jetstream.WithMsgID(ev.ID)); err != nil {
		t.Fatal(err)
	}
	key := executor.CallKey(ev)
	resultSubj, _ := events.ResultSubject("acme", key)
	var outcome *events.CallSucceeded
	for outcome == nil {
		m, err := logread.Last(ctx, b.Conn, events.StreamOut, resultSubj)
		switch {
		case err == nil:
			oev, err := events.Decode(m.Data)
			if err != nil {
				t.Fatal(err)
			}
			ok, isOK := oev.Body.(*events.CallSucceeded)
			if !isOK {
				t.Fatalf("the call's outcome: %T %+v", oev.Body, oev.Body)
			}
			outcome = ok
		case !errors.Is(err, logread.ErrNoMessage):
			t.Fatal(err)
		case ctx.Err() != nil:
			t.Fatal("no outcome in time")
		default:
			time.Sleep(10 * time.Millisecond)
		}
	}
	name, ok := strings.CutPrefix(outcome.RawRef, auth.ResultsBucket+"/")
	if !ok || len(outcome.Result) != 0 {
		t.Fatalf("the result is not kept in the object store: ref %q, %d bytes inline", outcome.RawRef, len(outcome.Result))
	}

	// Every legitimate reader, under its own credential.
	for _, r := range []auth.Role{auth.RoleExecutor, auth.RoleReader, auth.RoleOperator} {
		st, err := executor.CallStatus(ctx, bustest.RoleJS(t, b, auth.Identity{Role: r}), "", "acme", key)
		if err != nil || st == nil || st.State != "done" {
			t.Errorf("%s reads the call's record: %+v, %v", r, st, err)
		}
	}
	for _, r := range []auth.Role{auth.RoleReader, auth.RoleOperator, auth.RoleVerifier, auth.RoleExecutor} {
		raw, err := logread.Object(ctx, logread.Config{Conn: bustest.RoleJS(t, b, auth.Identity{Role: r}).Conn()}, auth.ResultsBucket, name)
		if err != nil || !bytes.Equal(raw, big) {
			t.Errorf("%s reads the raw result: %d bytes, %v; want %d", r, len(raw), err, len(big))
		}
	}
	leases, err := bustest.RoleJS(t, b, auth.Identity{Role: auth.RoleAssembler}).KeyValue(ctx, auth.LeasesBucket)
	if err != nil {
		t.Fatal(err)
	}
	lctx, lcancel := context.WithTimeout(ctx, 30*time.Second)
	lease, err := projector.AcquireLease(lctx, leases, "assembler-p0", "holder-1", 30*time.Second)
	lcancel()
	if err != nil {
		t.Fatalf("the assembler takes a partition lease: %v", err)
	}
	if err := lease.Release(ctx); err != nil {
		t.Fatalf("the assembler releases its lease: %v", err)
	}

	// nats.go's object Get and the stock CLI need a consumer: refused.
	rjs := bustest.RoleJS(t, b, auth.Identity{Role: auth.RoleReader})
	obs, err := rjs.ObjectStore(ctx, auth.ResultsBucket)
	if err != nil {
		t.Fatal(err)
	}
	gctx, gcancel := context.WithTimeout(ctx, 3*time.Second)
	if raw, err := obs.GetBytes(gctx, name); err == nil {
		t.Errorf("the reader's nats.go object Get through a consumer read %d bytes", len(raw))
	}
	gcancel()
	for _, id := range []auth.Identity{{Role: auth.RoleOperator}, {Role: auth.RoleReader}, {Role: auth.RoleAssembler},
		{Role: auth.RoleExecutor}, {Role: auth.RoleVerifier}, {Role: auth.RoleMemory}, {Role: auth.RoleRuns}, {Role: auth.RoleDriver}} {
		fc := dialAs(t, b, id)
		for _, s := range buckets {
			for _, req := range []struct{ subject, config string }{
				{"$JS.API.CONSUMER.CREATE." + s, `{"deliver_subject":"ts.call.globex.forged","ack_policy":"none","deliver_policy":"all"}`},
				{"$JS.API.CONSUMER.CREATE." + s + ".forged.>", `{"name":"forged","filter_subject":">","deliver_subject":"ts.call.globex.forged","ack_policy":"none","deliver_policy":"all"}`},
				{"$JS.API.CONSUMER.DURABLE.CREATE." + s + ".forged", `{"durable_name":"forged","deliver_subject":"ts.call.globex.forged","ack_policy":"none","deliver_policy":"all"}`},
			} {
				body := `{"stream_name":"` + s + `","config":` + req.config + `}`
				if err := fc.PublishRequest(req.subject, fc.NewRespInbox(), []byte(body)); err != nil {
					t.Fatal(err)
				}
				if !fc.refused(t, req.subject) {
					t.Errorf("%s's %s was not refused by the server", id, req.subject)
				}
			}
		}
	}
	if n := bucketConsumers(); n != 0 {
		t.Errorf("the buckets hold %d consumers", n)
	}
	if m, err := forged.NextMsg(200 * time.Millisecond); err == nil {
		t.Errorf("a bucket's message reached the forged deliver subject: %s", m.Subject)
	}
	// The stock CLI (skipped where it is not installed).
	cli := jstest.NatsCLI(t)
	reader := auth.Identity{Role: auth.RoleReader}
	creds := bustest.Creds(t, b, reader)
	dir := t.TempDir()
	push := filepath.Join(dir, "push.json")
	if err := os.WriteFile(push, []byte(`{"name":"forged","deliver_subject":"ts.call.globex.forged","ack_policy":"none","deliver_policy":"all"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"object", "get", auth.ResultsBucket, name, "--output", filepath.Join(dir, "raw"), "--force"},
		{"kv", "ls", auth.ExecBucket},
		{"consumer", "add", "OBJ_" + auth.ResultsBucket, "forged", "--config", push},
		{"consumer", "add", "KV_" + auth.LeasesBucket, "forged", "--config", push},
	} {
		// `object get` waits for chunks that never come when its consumer
		// is refused: it is stopped after a while, which counts as refused.
		cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
		cmd := exec.CommandContext(cctx, cli, append([]string{"--server", b.ClientURL(), "--creds", creds,
			"--inbox-prefix", reader.InboxPrefix(), "--timeout", "1s"}, args...)...)
		out, err := cmd.CombinedOutput()
		ccancel()
		if err == nil {
			t.Errorf("the reader's nats %s succeeded:\n%s", strings.Join(args, " "), out)
		}
	}
	if raw, err := os.ReadFile(filepath.Join(dir, "raw")); err == nil && len(raw) > 0 {
		t.Errorf("the reader's nats object get wrote %d bytes", len(raw))
	}
	if n := bucketConsumers(); n != 0 {
		t.Errorf("the buckets hold %d consumers after the CLI's tries", n)
	}
}
