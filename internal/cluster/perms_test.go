package cluster_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/cluster"
	"github.com/toolstream/toolstream/internal/clustertest"
	"github.com/toolstream/toolstream/internal/responses"
	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/verifier"
)

// startDeployCluster runs the three servers of deploy/nats on loopback
// ports, trusting the operator of new material as the compose file's auth
// service makes it, and sets up the log and the buckets as the admin
// (toolstream setup).
func startDeployCluster(t *testing.T) *clustertest.Cluster {
	t.Helper()
	dir, m := deployConfigs(t)
	c := clustertest.Start(t, clustertest.Config{Auth: m, Account: m.AccountPublicKey(), Options: func(i int) (*server.Options, error) {
		return server.ProcessConfigFile(filepath.Join(dir, fmt.Sprintf("nats-%d.conf", i+1)))
	}})
	admin := c.Open(t, bus.Config{Name: "setup"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := cluster.Setup(ctx, admin, nil); err != nil {
		t.Fatalf("setup as admin: %v", err)
	}
	if err := stack.CreateConsumers(ctx, admin, nil); err != nil {
		t.Fatalf("durable consumers as admin: %v", err)
	}
	return c
}

var (
	admin     = auth.Identity{Role: auth.RoleAdmin}
	reader    = auth.Identity{Role: auth.RoleReader}
	operator  = auth.Identity{Role: auth.RoleOperator}
	asmRole   = auth.Identity{Role: auth.RoleAssembler}
	execRole  = auth.Identity{Role: auth.RoleExecutor}
	verRole   = auth.Identity{Role: auth.RoleVerifier}
	memRole   = auth.Identity{Role: auth.RoleMemory}
	runsRole  = auth.Identity{Role: auth.RoleRuns}
	drvRole   = auth.Identity{Role: auth.RoleDriver}
	keysRole  = auth.Identity{Role: auth.RoleKeyring}
	acmeProd  = auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}
	globeProd = auth.Identity{Role: auth.RoleProducer, Tenant: "globex"}
	// identities are those of the log's account, each tried below.
	identities = []auth.Identity{reader, operator, asmRole, execRole, verRole, memRole, runsRole, drvRole, keysRole, acmeProd, globeProd}
)

// roleConn is a connection as an identity that records the server's
// asynchronous errors (permission violations).
type roleConn struct {
	*nats.Conn
	mu   sync.Mutex
	errs []error
}

func connectAs(t *testing.T, c *clustertest.Cluster, id auth.Identity) *roleConn {
	t.Helper()
	rc := &roleConn{}
	nc, err := nats.Connect(c.URLs(), append(c.UserOptions(t, id), nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		rc.mu.Lock()
		rc.errs = append(rc.errs, err)
		rc.mu.Unlock()
	}))...)
	if err != nil {
		t.Fatalf("connect as %s: %v", id, err)
	}
	t.Cleanup(nc.Close)
	rc.Conn = nc
	return rc
}

// violated reports whether the server reported a permission violation
// naming what. The server sends it before the reply to the flush's ping,
// so it has arrived by the time Flush returns; the handler runs
// asynchronously, so a short poll follows.
func (rc *roleConn) violated(t *testing.T, what string) bool {
	t.Helper()
	if err := rc.Flush(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
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
	return pollCtx(ctx, found) == nil
}

func (rc *roleConn) denied(t *testing.T, what string) {
	t.Helper()
	if !rc.violated(t, what) {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		t.Fatalf("no permission violation for %q; errors: %v", what, rc.errs)
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

// openAs opens the bus over the cluster as an identity.
func openAs(t *testing.T, c *clustertest.Cluster, id auth.Identity) *bus.Bus {
	t.Helper()
	return c.Open(t, bus.Config{Name: id.String(), Options: c.UserOptions(t, id)})
}

// action is something an identity may try: publish to or subscribe to a
// subject. may lists who is allowed to (besides the admin, who may do
// anything); everyone else must be refused by the server. This table is
// the policy in the test's own words, written apart from package auth.
type action struct {
	sub     bool // subscribe, else publish
	subject string
	may     []auth.Identity
	why     string
}

var processors = []auth.Identity{asmRole, execRole, verRole, memRole, runsRole}

var policy = []action{
	// The log's subjects: each kind has its writers.
	{false, "ts.in.acme.openai-responses.s1", []auth.Identity{acmeProd}, "raw events of acme"},
	{false, "ts.in.globex.openai-responses.s1", []auth.Identity{globeProd}, "raw events of globex"},
	{false, "ts.raw.acme.s1", []auth.Identity{asmRole}, "a sealed raw event of acme (only ingest copies one)"},
	{false, "$JS.API.STREAM.MSG.DELETE.TS_IN", []auth.Identity{asmRole, operator}, "deleting a raw event (ingest once sealed, erasure)"},
	{false, "ts.model.acme.r.i", []auth.Identity{asmRole, acmeProd}, "acme's model events (its producer normalises at the edge)"},
	{false, "ts.model.globex.r.i", []auth.Identity{asmRole, globeProd}, "globex's model events"},
	{false, "ts.call.acme.orders_refund", []auth.Identity{asmRole}, "a forged CallCompleted"},
	{false, "ts.resp.acme.r", []auth.Identity{asmRole}, "response outcomes"},
	{false, "ts.ctl._system.registry", []auth.Identity{asmRole}, "the registry"},
	{false, "ts.ctl.acme.registry", nil, "a tenant's control subject"},
	{false, "ts.exec.acme.k", []auth.Identity{execRole}, "execution progress"},
	{false, "ts.result.acme.k", []auth.Identity{execRole, drvRole}, "a forged result (the driver: a built-in tool's outcome)"},
	{false, "ts.approval.globex.k", []auth.Identity{operator}, "an approval of another tenant's call"},
	{false, "ts.answer.acme.r", []auth.Identity{verRole}, "verdicts (a forged AnswerVerified or JudgeVerdict)"},
	{false, "ts.check.acme.r", []auth.Identity{drvRole}, "an answer checked against its user's constraints (run mode's driver)"},
	{false, "ts.check.globex.r", []auth.Identity{drvRole}, "a check of globex's answer"},
	{false, "ts.mem.acme.u1", []auth.Identity{memRole, operator}, "memory writes"},
	{false, "tsp.preview.acme.r.i", []auth.Identity{asmRole}, "previews"},
	{false, "ts.run.acme.r", []auth.Identity{runsRole}, "run events (a forged RoundSettled)"},
	// Services: who may ask.
	{false, "tsv.memory.recall", []auth.Identity{operator, drvRole}, "another tenant's memory"},
	{false, "tsv.dump.memory", []auth.Identity{operator, reader}, "every tenant's rows"},
	{false, "tsv.digest.memory", []auth.Identity{operator, reader}, "a view's digest"},
	{false, "tsv.runs.history.acme", []auth.Identity{operator, reader, acmeProd, drvRole}, "acme's run history"},
	{false, "tsv.runs.plan.globex", []auth.Identity{operator, globeProd, drvRole}, "a plan write on a run of globex"},
	{false, "tsv.runs.lease.acme", []auth.Identity{operator, drvRole}, "a run lease of acme's (a producer's would stop its driver)"},
	{false, "tsv.runs.renew.acme", []auth.Identity{operator, drvRole}, "renewing a run lease of acme's"},
	{false, "tsv.runs.release.acme", []auth.Identity{operator, drvRole}, "releasing a run lease of acme's"},
	{false, "tsv.runs.end.acme", []auth.Identity{operator, drvRole}, "ending a run of acme's (a producer's would mark it failed)"},
	// Buckets: each is written by its role only.
	{false, "$KV.ts_leases.assembler-p0", []auth.Identity{asmRole}, "the assembler's leases"},
	{false, "$KV.ts_exec.k", []auth.Identity{execRole}, "call records"},
	{false, "$KV.ts_runs.acme.cnVu", []auth.Identity{runsRole, drvRole}, "run leases"},
	{false, "$KV.ts_agent.spec.acme.cnVu", []auth.Identity{drvRole}, "a run's stored request (what a driver taking it over asks the model)"},
	{false, "$O.ts_results.C.x", []auth.Identity{execRole}, "raw results"},
	// The data keys: the keys service's alone; everyone else asks it.
	{false, "$KV.ts_keys.k.x", []auth.Identity{keysRole}, "a data key"},
	{false, "$KV.ts_keys.k._YWNtZQ.u._YW5u", []auth.Identity{keysRole}, "acme's user ann's data key (a rollup there purged every key)"},
	{false, "$KV.ts_keys.k._YWNtZQ.u._YW5u.r._cjE", []auth.Identity{keysRole}, "a key of ann's memory record"},
	{false, "$JS.API.DIRECT.GET.KV_ts_keys.$KV.ts_keys.k._Z2xvYmV4.u._YW5u", []auth.Identity{keysRole}, "reading globex's user ann's data key"},
	{false, "$JS.API.DIRECT.GET.KV_ts_keys.$KV.ts_keys.k._YWNtZQ.u.>", []auth.Identity{keysRole}, "acme's keys by a literal '>'"},
	{false, "$JS.API.DIRECT.GET.KV_ts_keys", []auth.Identity{keysRole}, "a direct get by a wildcard in its request"},
	{false, "$JS.API.STREAM.INFO.KV_ts_keys", []auth.Identity{keysRole}, "the key bucket's info (it lists every key's name)"},
	{false, "$JS.API.STREAM.MSG.DELETE.KV_ts_keys", []auth.Identity{keysRole}, "erasing a data key"},
	{false, "tsv.keys.user.globex", []auth.Identity{globeProd}, "globex's users' keys"},
	{false, "tsv.keys.seal.acme", append([]auth.Identity{operator, drvRole}, processors...), "making any key of acme"},
	{false, "tsv.keys.open.acme", append([]auth.Identity{operator, reader, drvRole}, processors...), "reading any key of acme"},
	{false, "tsv.keys.erase.acme", []auth.Identity{operator}, "erasing acme's keys"},
	// The log and buckets themselves: the admin's alone.
	{false, "$JS.API.STREAM.CREATE.CAPTURE", nil, "a stream capturing memory requests"},
	{false, "$JS.API.STREAM.UPDATE.TS_IN", nil, "lengthening the raw events' retention"},
	{false, "$JS.API.STREAM.DELETE.TS_MODEL", nil, "deleting the log"},
	{false, "$JS.API.STREAM.PURGE.TS_OUT", nil, "purging the log"},
	{false, "$JS.API.STREAM.MSG.DELETE.TS_CALLS", nil, "deleting an event"},
	{false, "$JS.API.STREAM.SNAPSHOT.TS_MEM", nil, "snapshotting the log"},
	{false, "$JS.API.STREAM.RESTORE.TS_MODEL", nil, "restoring over the log"},
	{false, "$JS.API.STREAM.LEADER.STEPDOWN.TS_MODEL", nil, "moving the log's leader"},
	{false, "$JS.API.STREAM.PEER.REMOVE.TS_OUT", nil, "removing a peer of the log"},
	{false, "$JS.API.STREAM.UPDATE.KV_ts_exec", nil, "changing the record bucket"},
	{false, "$JS.API.STREAM.PURGE.KV_ts_exec", nil, "purging the record bucket"},
	{false, "$JS.API.STREAM.DELETE.KV_ts_leases", nil, "deleting the lease bucket"},
	{false, "$JS.API.STREAM.PURGE.OBJ_ts_results", nil, "purging raw results"},
	{false, "$JS.API.STREAM.DELETE.OBJ_ts_results", nil, "deleting raw results"},
	{false, "$JS.API.META.LEADER.STEPDOWN", nil, "moving the meta leader"},
	{false, "$JS.API.SERVER.REMOVE", nil, "removing a server"},
	{false, "$JS.API.ACCOUNT.PURGE.TS", nil, "purging the account"},
	// Other roles' durable consumers: only their owner.
	{false, "$JS.API.CONSUMER.MSG.NEXT.TS_CALLS.ts-executor", []auth.Identity{execRole}, "stealing the executor's deliveries"},
	{false, "$JS.API.CONSUMER.DELETE.TS_CALLS.ts-executor-approvals", nil, "deleting the executor's consumer (only the admin)"},
	{false, "$JS.API.CONSUMER.INFO.TS_CALLS.ts-executor", []auth.Identity{execRole}, "binding the executor's consumer"},
	{false, "$JS.API.CONSUMER.PAUSE.TS_CALLS.ts-executor", nil, "pausing the executor's consumer"},
	{false, "$JS.API.CONSUMER.RESET.TS_OUT.ts-verifier", nil, "rewinding the verifier's consumer"},
	{false, "$JS.API.CONSUMER.DURABLE.CREATE.TS_CALLS.ts-executor", nil, "reconfiguring the executor's consumer (legacy)"},
	{false, "$JS.API.CONSUMER.CREATE.TS_OUT.ts-verifier", nil, "reconfiguring the verifier's consumer"},
	{false, "$JS.API.CONSUMER.MSG.NEXT.TS_MEM.ts-memory", []auth.Identity{memRole}, "stealing memory's deliveries"},
	{false, "$JS.API.CONSUMER.MSG.NEXT.TS_MODEL.ts-assembler", []auth.Identity{asmRole}, "stealing the assembler's deliveries"},
	{false, "$JS.API.CONSUMER.DELETE.TS_MODEL.ts-assembler-p3", nil, "deleting a partition's consumer"},
	{false, "$JS.API.CONSUMER.MSG.NEXT.TS_MODEL.ts-assembler-p3", []auth.Identity{asmRole}, "pulling a partition's consumer"},
	{false, "$JS.API.CONSUMER.CREATE.TS_MODEL.mine", nil, "a consumer on the model events"},
	{false, "$JS.API.CONSUMER.CREATE.TS_IN.ts-ingest", nil, "reconfiguring ingest's consumer"},
	{false, "$JS.API.CONSUMER.CREATE.TS_OUT.mine", nil, "a consumer on the outcomes"},
	{false, "$JS.API.CONSUMER.CREATE.TS_CALLS.ts-executor", nil, "reconfiguring the executor's consumer"},
	{false, "$JS.API.CONSUMER.CREATE.TS_CALLS.ts-executor.ts.call.>", nil, "reconfiguring the executor's consumer with a filter"},
	{false, "$JS.ACK.TS_CALLS.ts-executor.1.1.1.1.1.0", []auth.Identity{execRole}, "acknowledging the executor's input"},
	// The buckets are read by direct gets: a consumer there may deliver to
	// any subject it names (docs/security.md), so no role makes one.
	{false, "$JS.API.CONSUMER.CREATE.KV_ts_exec", nil, "watching call records"},
	{false, "$JS.API.CONSUMER.CREATE.KV_ts_leases", nil, "watching the partition leases"},
	{false, "$JS.API.CONSUMER.CREATE.KV_ts_leases.x.$KV.ts_leases.>", nil, "a named consumer on the partition leases"},
	// Reading the log.
	{false, "$JS.API.DIRECT.GET.TS_MODEL", append([]auth.Identity{reader, operator, drvRole}, processors...), "reading the log"},
	{false, "$JS.API.STREAM.INFO.TS_OUT", append([]auth.Identity{reader, operator, drvRole}, processors...), "the log's info"},
	// What holds every tenant's data besides the log: the tenant-less
	// roles read it as they read the log (docs/security.md, "Who reads
	// every tenant"); no producer and not the keys role.
	{false, "$JS.API.DIRECT.GET.KV_ts_exec", append([]auth.Identity{reader, operator, drvRole}, processors...), "every tenant's call records"},
	{false, "$JS.API.DIRECT.GET.KV_ts_exec.$KV.ts_exec.c.globex.x", append([]auth.Identity{reader, operator, drvRole}, processors...), "globex's call record by its subject"},
	{false, "$JS.API.STREAM.MSG.GET.KV_ts_exec", append([]auth.Identity{reader, operator, drvRole}, processors...), "a call record by its sequence"},
	{false, "$JS.API.DIRECT.GET.KV_ts_agent", append([]auth.Identity{reader, operator, drvRole}, processors...), "run mode's stored requests"},
	{false, "$JS.API.CONSUMER.CREATE.KV_ts_agent", nil, "run mode's stored requests by a consumer (the driver lists its runs by stream info)"},
	{false, "$JS.API.CONSUMER.CREATE.KV_ts_agent.x.$KV.ts_agent.>", nil, "run mode's stored requests by a named consumer"},
	{false, "$JS.API.DIRECT.GET.KV_ts_runs", append([]auth.Identity{reader, operator, drvRole}, processors...), "run leases"},
	{false, "$JS.API.DIRECT.GET.OBJ_ts_results", append([]auth.Identity{reader, operator, drvRole}, processors...), "raw tool results"},
	{false, "$JS.API.CONSUMER.CREATE.OBJ_ts_results", nil, "raw tool results by a consumer"},
	{false, "$JS.API.CONSUMER.CREATE.OBJ_ts_results.x.$O.ts_results.C.>", nil, "raw tool results by a named consumer"},
	// Subscriptions.
	{true, "_INBOX.>", nil, "every reply of every identity"},
	{true, "_INBOX.ts-operator.x", []auth.Identity{operator}, "the operator's replies"},
	{true, "ts.>", nil, "the whole log, live"},
	{true, "ts.in.globex.>", nil, "another producer's raw events"},
	{true, "ts.raw.acme.>", nil, "acme's sealed raw events, live"},
	{true, "ts.call.acme.>", []auth.Identity{acmeProd}, "acme's calls, live"},
	{true, "ts.result.acme.>", []auth.Identity{acmeProd}, "acme's results, live"},
	{true, "ts.answer.acme.>", []auth.Identity{acmeProd, drvRole}, "acme's verdicts, live"},
	{true, "ts.call.globex.>", []auth.Identity{globeProd}, "globex's calls, live"},
	{true, "ts.mem.acme.>", nil, "acme's memory, live"},
	{true, "tsp.preview.globex.>", []auth.Identity{globeProd}, "globex's previews"},
	{true, "tsv.memory.>", []auth.Identity{memRole}, "answering (capturing) memory requests"},
	{true, "tsv.runs.>", []auth.Identity{runsRole}, "answering (capturing) runs requests"},
	{true, "ts.run.acme.>", []auth.Identity{acmeProd, drvRole}, "acme's runs, live"},
	// The views' answers: each projection's by the role that runs it
	// (a forged digest of memory made an erasure look confirmed).
	{true, "tsv.digest", nil, "the subject every view shared"},
	{true, "tsv.digest.>", nil, "answering every view's digest"},
	{true, "tsv.dump.*", nil, "answering every view's dump"},
	{true, "tsv.digest.memory", []auth.Identity{memRole}, "answering the memory view's digest (an erasure's wait)"},
	{true, "tsv.dump.memory", []auth.Identity{memRole}, "answering the memory view's dump"},
	{true, "tsv.digest.verifier", []auth.Identity{verRole}, "answering the verdicts' view's digest"},
	{true, "tsv.dump.runs", []auth.Identity{runsRole}, "answering the runs view's dump"},
	{true, "tsv.digest.runs-calls", []auth.Identity{runsRole}, "answering the runs' calls view's digest"},
	{true, "tsv.digest.assembler", []auth.Identity{asmRole}, "answering the assembler view's digest"},
	{true, "tsv.dump.assembler.p3", []auth.Identity{asmRole}, "answering a partition assembler's dump"},
	{true, "tsv.digest.ingest", []auth.Identity{asmRole}, "answering ingest's digest"},
	{true, "tsv.dump.responses", []auth.Identity{asmRole}, "answering the responses view's dump"},
	{true, "tsv.keys.>", []auth.Identity{keysRole}, "answering (capturing) key requests"},
}

// TestAttackRoleEscalation tries every action of the policy as every
// identity of the log's account on the deploy cluster: each identity the
// policy does not name must be refused by the server. Nothing is tried
// that the identity is allowed (the pipeline test shows those work).
func TestAttackRoleEscalation(t *testing.T) {
	c := startDeployCluster(t)
	adminBus := openAs(t, c, admin)
	before := logMsgs(t, adminBus)
	for _, id := range identities {
		t.Run(id.String(), func(t *testing.T) {
			rc := connectAs(t, c, id)
			for _, a := range policy {
				if slices.Contains(a.may, id) {
					continue
				}
				if a.sub {
					if _, err := rc.SubscribeSync(a.subject); err != nil {
						t.Fatal(err)
					}
					if !rc.violated(t, fmt.Sprintf("Subscription to %q", a.subject)) {
						t.Errorf("%s may subscribe to %s: %s", id, a.subject, a.why)
					}
					continue
				}
				if err := rc.PublishRequest(a.subject, rc.NewRespInbox(), []byte(`{}`)); err != nil {
					t.Fatal(err)
				}
				if !rc.violated(t, fmt.Sprintf("Publish to %q", a.subject)) {
					t.Errorf("%s may publish to %s: %s", id, a.subject, a.why)
				}
			}
		})
	}
	after := logMsgs(t, adminBus)
	if after != before {
		t.Fatalf("%d messages reached the log from refused identities", after-before)
	}
	// The system account's users reach none of the log's subjects.
	sys := connectAs(t, c, auth.Identity{Role: auth.RoleSys})
	if err := sys.Publish("ts.call.acme.orders_refund", []byte("x")); err != nil {
		t.Fatal(err)
	}
	sys.Flush()
	if logMsgs(t, adminBus) != after {
		t.Fatal("a system account user wrote to the log")
	}
}

// TestAttackAnonymousClientOnTheCluster: the deploy cluster refuses a
// client without credentials and a user of another operator.
func TestAttackAnonymousClientOnTheCluster(t *testing.T) {
	c := startDeployCluster(t)
	if nc, err := nats.Connect(c.URLs()); err == nil {
		nc.Close()
		t.Fatal("an anonymous client connected")
	}
	other, err := auth.Ensure(filepath.Join(t.TempDir(), "other"))
	if err != nil {
		t.Fatal(err)
	}
	u, err := other.Issue(admin, 0)
	if err != nil {
		t.Fatal(err)
	}
	if nc, err := nats.Connect(c.URLs(), u.Options()...); err == nil {
		nc.Close()
		t.Fatal("an admin of another operator connected")
	}
}

// TestProducerPublishesItsTenantAndReadsItsOutcomes: a producer's
// JetStream publish of its own tenant's raw events is acknowledged, and it
// receives its tenant's calls live (and nothing of another tenant).
func TestProducerPublishesItsTenantAndReadsItsOutcomes(t *testing.T) {
	c := startDeployCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	asm := openAs(t, c, asmRole)
	acme := connectAs(t, c, acmeProd)
	calls, err := acme.SubscribeSync("ts.call.acme.>")
	if err != nil {
		t.Fatal(err)
	}
	if acme.violated(t, "Subscription") {
		t.Fatal("acme may not read its calls")
	}
	js, err := jetstream.New(acme.Conn)
	if err != nil {
		t.Fatal(err)
	}
	s, raw := rawCall(1)
	s.Tenant = "acme"
	if _, seq, err := publishRaw(ctx, acme.Conn, s, raw); err != nil || seq == 0 {
		t.Fatalf("producer acme publishing its own stream: seq %d, %v", seq, err)
	}
	if n := countSubjects(t, asm, "ts.in.acme.>"); n != rawEventsPerCall {
		t.Fatalf("%d acme raw events in the log, want %d", n, rawEventsPerCall)
	}
	// A CallCompleted of acme, as the assembler writes it: acme sees it.
	ev := &events.Event{ID: events.CompletedID("acme", "r", "i"), Tenant: "acme", Response: "r", Item: "i", CallID: "c",
		Body: &events.CallCompleted{Name: "noop", Arguments: []byte(`{}`)}}
	if _, err := asm.Publish(ctx, "ts.call.acme.noop", ev); err != nil {
		t.Fatal(err)
	}
	m, err := calls.NextMsg(5 * time.Second)
	if err != nil {
		t.Fatalf("acme did not receive its call: %v", err)
	}
	if got, err := events.DecodeAt(m.Subject, m.Data); err != nil || got.ID != ev.ID {
		t.Fatalf("acme received %v, %v", got, err)
	}
	if _, err := js.Stream(short(ctx), events.StreamIn); err == nil {
		t.Fatal("a producer read the log's stream info")
	}
}

// TestRolesRunThePipeline runs every component under its own role on the
// 3-server deploy cluster: producers of two tenants publish provider
// streams, ingest and the assembler (assembler role) complete the calls,
// two executors (executor role) run them, the verifier and memory
// projections (their roles) follow, and a reader sees every result. The
// permissions are enough to work, not only to refuse.
func TestRolesRunThePipeline(t *testing.T) {
	c := startDeployCluster(t)
	asmBus := openAs(t, c, asmRole)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()

	n := stack.NewNode(asmBus, filepath.Join(dir, "assembler"), nil)
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
	vn := stack.NewNode(openAs(t, c, verRole), filepath.Join(dir, "verifier"), nil)
	t.Cleanup(func() { vn.Stop() })
	if _, err := vn.Start(ctx, verifier.NewProjection(verifier.ProjectionConfig{}), nil); err != nil {
		t.Fatal(err)
	}
	mn := stack.NewNode(openAs(t, c, memRole), filepath.Join(dir, "memory"), nil)
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
		eb := openAs(t, c, execRole)
		e, err := executor.New(executor.Config{JS: eb.JS, Keys: eb.Keys, Replicas: eb.Replicas(), Tools: map[string]executor.Tool{"noop": noop}})
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
	for _, id := range []auth.Identity{acmeProd, globeProd} {
		pc := connectAs(t, c, id)
		for i := 0; i < calls; i++ {
			s, raw := rawCall(i)
			s.Tenant = id.Tenant
			if _, _, err := publishRaw(ctx, pc.Conn, s, raw); err != nil {
				t.Fatalf("%s: %v", id, err)
			}
		}
	}
	rb := openAs(t, c, reader)
	evs, err := bustest.WaitEvents(ctx, rb, []string{"ts.result.>"}, func(evs []*events.Event) bool { return len(evs) >= 2*calls })
	if err != nil {
		t.Fatalf("reader saw %d results: %v", len(evs), err)
	}
	for _, ev := range evs {
		if _, ok := events.As[*events.CallSucceeded](ev); !ok {
			t.Errorf("result %s of %s is a %s", ev.ID, ev.Tenant, ev.Kind)
		}
	}
	// The views follow the log to its end under their own roles.
	for _, x := range []struct {
		n    *stack.Node
		name string
	}{{n, assembler.Name}, {vn, verifier.Name}, {mn, memory.Name}} {
		if err := x.n.Settle(ctx, x.name); err != nil {
			t.Fatalf("%s as its role: %v", x.name, err)
		}
	}
}
