package stack

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/internal/agent"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestAttackAgentBucketIsTheDrivers: the runs' requests in ts_agent (what
// a driver that takes a run over asks the model with) are written by the
// driver role and the admin alone. Attackers: acme's producer and an
// executor, with the stock nats CLI (kv put, kv del) and a forging nats.go
// client (a publish on the bucket's subject), are refused by the server.
// The driver role may write the bucket (the test can see a write), but not
// the executors' records, the data keys or a call. Victim: the stored
// request keeps its value and revision.
func TestAttackAgentBucketIsTheDrivers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := bustest.Start(t)
	if err := agent.CreateStore(ctx, b.JS, 1); err != nil {
		t.Fatal(err)
	}
	kv, err := b.JS.KeyValue(ctx, agent.SpecsBucket)
	if err != nil {
		t.Fatal(err)
	}
	const key = "spec.acme.cnVuLTE"
	rev, err := kv.Put(ctx, key, []byte("the run's request"))
	if err != nil {
		t.Fatal(err)
	}

	for _, id := range []auth.Identity{{Role: auth.RoleProducer, Tenant: "acme"}, {Role: auth.RoleExecutor}} {
		for _, args := range [][]string{
			{"kv", "put", agent.SpecsBucket, key, "forged"},
			{"kv", "del", agent.SpecsBucket, key, "--force"},
			{"kv", "put", agent.SpecsBucket, "spec.acme.bmV3", "planted"},
		} {
			if out, err := rawCLI(t, b, id, args...); err == nil {
				t.Errorf("%s: nats %s succeeded:\n%s", id, strings.Join(args, " "), out)
			}
		}
		opts, err := b.UserOptions(id)
		if err != nil {
			t.Fatal(err)
		}
		nc, err := nats.Connect(b.ClientURL(), append(opts, nats.NoCallbacksAfterClientClose(), nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))...)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		js, err := jetstream.New(nc)
		if err != nil {
			t.Fatal(err)
		}
		pctx, pcancel := context.WithTimeout(ctx, 3*time.Second)
		_, err = js.Publish(pctx, "$KV."+agent.SpecsBucket+"."+key, []byte("forged"))
		pcancel()
		if err == nil {
			t.Errorf("%s's forging client wrote %s", id, key)
		}
	}

	driver := auth.Identity{Role: auth.RoleDriver}
	if out, err := rawCLI(t, b, driver, "kv", "put", agent.SpecsBucket, "spec.acme.ZHJpdmVu", "driven"); err != nil {
		t.Fatalf("the driver role cannot write its bucket: %v\n%s", err, out)
	}
	if _, err := kv.Get(ctx, "spec.acme.ZHJpdmVu"); err != nil {
		t.Fatalf("the driver's write is not in the bucket: %v", err)
	}
	if _, err := b.JS.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: auth.ExecBucket}); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"kv", "put", auth.ExecBucket, "k", "forged"},
		{"kv", "put", auth.KeysBucket, "k", "forged"},
		{"pub", "--jetstream", "ts.call.acme.refund", "{}"},
	} {
		if out, err := rawCLI(t, b, driver, args...); err == nil {
			t.Errorf("the driver role: nats %s succeeded:\n%s", strings.Join(args, " "), out)
		}
	}

	e, err := kv.Get(ctx, key)
	if err != nil || string(e.Value()) != "the run's request" || e.Revision() != rev {
		t.Fatalf("the stored request: %v (revision %v, was %d), %v", e, e.Revision(), rev, err)
	}
	if _, err := kv.Get(ctx, "spec.acme.bmV3"); err == nil {
		t.Fatal("a request was planted")
	}
}
