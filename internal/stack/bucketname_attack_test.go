package stack

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestAttackNoRoleMakesAConsumerOnTheLogByABucketsName: each role that may
// make the short-lived consumers of a bucket (the results object store,
// the call records, the leases, the run requests) asks, with the stock nats
// CLI and with a forging nats.go client, for a durable push consumer named
// after that bucket on every stream of the log, globex's ingress stream
// among them: `$JS.API.CONSUMER.CREATE.<stream>.<bucket's stream>.>`, all
// of the stream, delivered to globex's calls subject. Found by sec15: the
// permission meant for pulling from a bucket's consumers
// (`$JS.API.CONSUMER.*.*.<bucket's stream>.*`) matched that subject too,
// and the server made the consumer, which delivers with the account's
// authority to any subject it names. Attacker: every request is a
// permissions violation. Victims: no stream of the log holds a consumer
// it did not hold before.
func TestAttackNoRoleMakesAConsumerOnTheLogByABucketsName(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := bustest.StartTenants(t, "acme", "globex")
	if _, err := b.JS.Publish(ctx, "ts.model.globex.s1", []byte(`{"user":"bob"}`)); err != nil {
		t.Fatal(err)
	}
	var logStreams []string
	names := b.JS.StreamNames(ctx)
	for n := range names.Name() {
		if !strings.HasPrefix(n, "KV_") && !strings.HasPrefix(n, "OBJ_") {
			logStreams = append(logStreams, n)
		}
	}
	if err := names.Err(); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(logStreams, "TS_ING_globex") || !slices.Contains(logStreams, "TS_MODEL") {
		t.Fatalf("the log's streams are %v", logStreams)
	}
	before := consumersOf(ctx, t, b, logStreams)
	for _, c := range []struct {
		id      auth.Identity
		buckets []string
	}{
		{auth.Identity{Role: auth.RoleOperator}, []string{"OBJ_" + auth.ResultsBucket}},
		{auth.Identity{Role: auth.RoleReader}, []string{"OBJ_" + auth.ResultsBucket}},
		{auth.Identity{Role: auth.RoleVerifier}, []string{"OBJ_" + auth.ResultsBucket}},
		{auth.Identity{Role: auth.RoleExecutor}, []string{"KV_" + auth.ExecBucket, "OBJ_" + auth.ResultsBucket}},
		{auth.Identity{Role: auth.RoleAssembler}, []string{"KV_" + auth.LeasesBucket}},
		{auth.Identity{Role: auth.RoleDriver}, []string{"KV_" + auth.AgentBucket}},
	} {
		fc := dialAs(t, b, c.id)
		for _, bucket := range c.buckets {
			for _, stream := range logStreams {
				subject := "$JS.API.CONSUMER.CREATE." + stream + "." + bucket + ".>"
				body := `{"stream_name":"` + stream + `","config":{"name":"` + bucket + `","durable_name":"` + bucket +
					`","filter_subject":">","deliver_subject":"ts.call.globex.forged","ack_policy":"none","deliver_policy":"all"}}`
				if stream == "TS_ING_globex" {
					if out, _ := natsCLI(t, b, c.id, nil, "req", subject, body); !bytes.Contains(out, []byte("Permissions Violation")) {
						t.Errorf("%s's nats req %s was not refused:\n%s", c.id, subject, out)
					}
				}
				if err := fc.PublishRequest(subject, fc.NewRespInbox(), []byte(body)); err != nil {
					t.Fatal(err)
				}
				if !fc.refused(t, subject) {
					t.Errorf("%s's forged %s was not refused by the server", c.id, subject)
				}
			}
		}
	}
	if after := consumersOf(ctx, t, b, logStreams); !slices.Equal(after, before) {
		t.Errorf("the log's consumers after the attack: %v, want %v", after, before)
	}
}

// consumersOf is "<stream>/<consumer>" for every consumer of streams,
// sorted.
func consumersOf(ctx context.Context, t *testing.T, b *bus.Bus, streams []string) []string {
	t.Helper()
	var out []string
	for _, s := range streams {
		st, err := b.JS.Stream(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		names := st.ConsumerNames(ctx)
		for n := range names.Name() {
			out = append(out, s+"/"+n)
		}
		if err := names.Err(); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(out)
	return out
}
