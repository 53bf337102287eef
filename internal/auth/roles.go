package auth

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nats-io/jwt/v2"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/events/runsapi"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/internal/viewapi"
)

// Role names what an identity may do. Roles are data: permissions derives
// each role's subjects from the log's subject scheme.
type Role string

const (
	// RoleAdmin may do everything, the JetStream API included: the identity
	// that creates the log and the buckets (serve on one machine,
	// `toolstream setup` on a cluster).
	RoleAdmin Role = "admin"
	// RoleOperator is a person at the controls: approves and denies calls,
	// writes and erases memory, asks the views, reads the log. It cannot
	// write calls, results or raw events.
	RoleOperator Role = "operator"
	// RoleReader reads the log, the views and the raw results; writes
	// nothing.
	RoleReader Role = "reader"
	// RoleProducer belongs to one tenant: publishes that tenant's raw
	// provider events, or its model events normalised and sealed at the
	// edge (with its users' data keys), and reads that tenant's outcomes,
	// live.
	RoleProducer Role = "producer"
	// RoleAssembler runs ingest, the assembler (and its partitions),
	// responses and the clock; records the tool registry (signed).
	RoleAssembler Role = "assembler"
	// RoleExecutor runs completed calls.
	RoleExecutor Role = "executor"
	// RoleVerifier checks answers.
	RoleVerifier Role = "verifier"
	// RoleMemory keeps memory and answers the memory service.
	RoleMemory Role = "memory"
	// RoleRuns keeps the runs (package runs), answers the runs service and
	// keeps the run leases.
	RoleRuns Role = "runs"
	// RoleDriver runs the gateway's run mode driver (package agent): keeps
	// the runs' requests in ts_agent (the one writer of that bucket besides
	// the admin), takes run leases, asks the runs and memory services,
	// publishes the outcomes of the built-in tools' calls and its answers'
	// constraint checks (ts.check, never a verdict) and hears its runs'
	// events and verdicts.
	RoleDriver Role = "driver"
	// RoleKeyring runs the keys service (package keys): the one writer of
	// the data keys. Only it and the admin may publish to the key bucket,
	// delete its messages or read it; every other role asks it for keys.
	RoleKeyring Role = "keys"
	// RoleSys is a user of the system account, for server monitoring
	// (`nats server report`); it reaches none of the log's subjects.
	RoleSys Role = "sys"
)

// Roles lists every role, in the order the roles table of docs/operations.md shows them.
var Roles = []Role{RoleAdmin, RoleOperator, RoleReader, RoleProducer, RoleAssembler, RoleExecutor, RoleVerifier, RoleMemory, RoleRuns, RoleDriver, RoleKeyring, RoleSys}

// Names of what the log's account holds, as the processors create them.
// The auth tests check them against the packages that own them. The log's
// streams are events.Streams.
const (
	ExecBucket     = "ts_exec"    // executor call records (KV)
	ResultsBucket  = "ts_results" // raw results (object store)
	LeasesBucket   = "ts_leases"  // partition leases (KV)
	RunsBucket     = "ts_runs"    // run leases (KV, package runs)
	AgentBucket    = "ts_agent"   // run mode's requests (KV, package agent)
	KeysBucket     = "ts_keys"    // data keys (KV, package keys)
	ServicePrefix  = "tsv"        // request/reply services: tsv.digest.<projection>, tsv.dump.<projection>, tsv.memory.…
	durablePrefix  = "ts-"        // a projection's durable consumer is ts-<name>
	inboxRoot      = "_INBOX"
	subjectLogRoot = events.SubjectPrefix
)

// builtinResults are the subjects of the built-in tools' outcomes
// (events.BuiltinResultSubject), the driver's.
const builtinResults = subjectLogRoot + ".result.*.*.builtin"

// durable is a processor's durable consumer on one stream of the log.
type durable struct{ stream, name string }

// durables are the processors' durable consumers, by role. The assembler
// role binds any consumer of TS_IN and TS_MODEL (its partitions are
// ts-assembler-p<N> for any N); the other roles exactly these. Every one is
// made by the admin identity: a role only binds, pulls and acknowledges.
var durables = map[Role][]durable{
	RoleExecutor: {{events.StreamCalls, "ts-executor"}, {events.StreamCalls, "ts-executor-approvals"}},
	RoleVerifier: {{events.StreamOut, "ts-verifier"}, {events.StreamOut, "ts-judge"}},
	RoleMemory:   {{events.StreamMemory, "ts-memory"}},
	RoleRuns:     {{events.StreamOut, "ts-runs"}, {events.StreamCalls, "ts-runs-calls"}},
}

// views are the projections each processor role runs (on a cluster, the
// `serve --components` of its service: docker-compose.yml), whose live
// digest and dump it answers, each on the projection's own subjects
// (viewapi): a role may answer no view it does not run, so no processor's
// credential forges another's (an erasure's wait, replay's comparison).
// The executor runs none. The auth tests check the names against the
// catalogue (stack.Names).
var views = map[Role][]string{
	RoleAssembler: {"ingest", "assembler", "responses"},
	RoleVerifier:  {"verifier"},
	RoleMemory:    {"memory"},
	RoleRuns:      {"runs", "runs-calls"},
}

// partitionedViews are the projections whose partitions (<name>-p<N>,
// any N: assembler.PartitionName) a role runs, on a partitioned log.
var partitionedViews = map[Role][]string{RoleAssembler: {"assembler"}}

// ViewsOf are the projections r runs and answers for (see views), and
// those whose every partition it runs too.
func ViewsOf(r Role) (names, partitioned []string) {
	return slices.Clone(views[r]), slices.Clone(partitionedViews[r])
}

// Identity is who a user is: a role and, for a producer, its tenant.
type Identity struct {
	Role   Role
	Tenant string
}

// String is the user's name in its JWT: "role" or "producer:tenant".
func (id Identity) String() string {
	if id.Tenant != "" {
		return string(id.Role) + ":" + id.Tenant
	}
	return string(id.Role)
}

// parseIdentity reverses Identity.String.
func parseIdentity(name string) (Identity, error) {
	role, tenant, _ := strings.Cut(name, ":")
	id := Identity{Role: Role(role), Tenant: tenant}
	return id, id.validate()
}

func (id Identity) validate() error {
	if !slices.Contains(Roles, id.Role) {
		return fmt.Errorf("%w: %q (want one of %v)", ErrUnknownRole, id.Role, Roles)
	}
	if id.Role == RoleProducer {
		if id.Tenant == events.SystemTenant {
			return fmt.Errorf("%w: a producer's tenant cannot be %s", events.ErrInvalidTenant, events.SystemTenant)
		}
		return events.ValidTenant(id.Tenant)
	}
	if id.Tenant != "" {
		return fmt.Errorf("%w: role %s takes no tenant", ErrUnknownRole, id.Role)
	}
	return nil
}

// InboxPrefix is the prefix of the identity's reply subjects: _INBOX for
// the admin, _INBOX.ts-<role> or _INBOX.producer-<tenant> for the others.
// A '-' never appears in the random inboxes of a default client (nats.go's
// nuid alphabet is [0-9A-Za-z]), so these never collide with them, and each
// role subscribes to its own prefix only. Clients must use it: nats.go's
// CustomInboxPrefix, the nats CLI's --inbox-prefix.
func (id Identity) InboxPrefix() string {
	switch id.Role {
	case RoleAdmin, RoleSys:
		return inboxRoot
	case RoleProducer:
		return inboxRoot + ".producer-" + id.Tenant
	}
	return inboxRoot + ".ts-" + string(id.Role)
}

// api is a JetStream API subject.
func api(parts ...string) string { return "$JS.API." + strings.Join(parts, ".") }

// readStream lets an identity read stream s without a consumer: its info,
// message gets and direct gets (batched reads of the log use these).
func readStream(s string) []string {
	return []string{api("STREAM.INFO", s), api("STREAM.MSG.GET", s), api("DIRECT.GET", s), api("DIRECT.GET", s, ">")}
}

// ownConsumer lets an identity use the durable consumer name on stream s:
// look it up (CONSUMER.INFO), pull from it (CONSUMER.MSG.NEXT) and
// acknowledge its messages. Nothing else of the consumer API: only the
// admin creates, updates (a create request's subject does not tell create
// from update), deletes, pauses, resets or unpins a durable, so no
// processor's credential can stop the others (docs/security.md).
func ownConsumer(s, name string) []string {
	return []string{api("CONSUMER.INFO", s, name), api("CONSUMER.MSG.NEXT", s, name), "$JS.ACK." + s + "." + name + ".>"}
}

// consumerMutations are denied to every role but the admin, on any
// stream: the consumer API verbs no role's work needs anywhere (pausing,
// resetting, unpinning, stepping down a consumer, the legacy durable
// create). CREATE and DELETE, which the buckets' ephemeral consumers need
// (object gets, watchers), are kept off the log's streams by the allow
// lists: a JWT's permissions must fit the server's control line, so they
// are not denied stream by stream (TestNoRoleMutatesAConsumer checks
// both).
func consumerMutations() []string {
	var out []string
	for _, verb := range ConsumerVerbsMutating {
		if verb != "CREATE" && verb != "DELETE" {
			out = append(out, api("CONSUMER."+verb, ">"))
		}
	}
	return out
}

// ConsumerVerbsMutating are the consumer API verbs that create, change or
// remove a consumer, or move its position: no processor role is given any
// of them on a stream of the log.
var ConsumerVerbsMutating = []string{"CREATE", "DURABLE.CREATE", "DELETE", "PAUSE", "RESET", "UNPIN", "LEADER.STEPDOWN"}

func kvStream(bucket string) string  { return "KV_" + bucket }
func objStream(bucket string) string { return "OBJ_" + bucket }

// logSubjects is "ts.<kind>.>" for each kind.
func logSubjects(kinds ...string) []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = subjectLogRoot + "." + k + ".>"
	}
	return out
}

// keysAPI is what of the JetStream API names the key bucket's stream:
// every verb on it (info, message get and delete, direct gets, consumers).
// Denied to every role but the keys role and the admin, so that reading
// the whole account (readStream("*")) never reaches a key.
func keysAPI() []string {
	s := kvStream(KeysBucket)
	return []string{api("*", s), api("*.*", s), api("*.*", s, ">"), api("*.*.*", s), api("*.*.*", s, ">")}
}

// keysService is the keys service's subjects of verbs, for any tenant.
func keysService(verbs ...string) []string {
	out := make([]string, len(verbs))
	for i, v := range verbs {
		out[i] = keys.ServiceSubject(v, "*")
	}
	return out
}

func service(names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = ServicePrefix + "." + n
	}
	return out
}

// permissions returns what id may publish and subscribe to.
func permissions(id Identity) jwt.Permissions {
	var p jwt.Permissions
	inbox := id.InboxPrefix() + ".>"
	// Every role but admin and sys: its inbox; discovery of services.
	p.Sub.Allow.Add(inbox)
	// Asking the views (any projection's digest and dump: viewapi).
	askViews := []string{viewapi.DigestPrefix + ".>", viewapi.DumpPrefix + ".>"}
	// Reading every stream of the account without a consumer: the log's
	// streams, and the buckets' (call records, raw results, leases), which
	// hold nothing the log does not.
	reads := append(readStream("*"), api("INFO"), api("STREAM.NAMES"), api("STREAM.LIST"))
	// A processor answers service discovery, and the view services of the
	// projections it runs, each on the projection's subjects.
	processor := func(own ...durable) {
		p.Sub.Allow.Add("$SRV.>")
		for _, prefix := range viewapi.Prefixes {
			for _, name := range views[id.Role] {
				// A name of the table that is no subject token is allowed
				// nothing (the auth tests check every name).
				if subject, err := viewapi.Subject(prefix, name); err == nil {
					p.Sub.Allow.Add(subject)
				}
			}
			for _, name := range partitionedViews[id.Role] {
				p.Sub.Allow.Add(viewapi.Partitions(prefix, name))
			}
		}
		p.Pub.Allow.Add(reads...)
		for _, d := range own {
			p.Pub.Allow.Add(ownConsumer(d.stream, d.name)...)
		}
		// Data keys of any tenant, from the keys service: sealing and
		// opening, never erasing.
		p.Pub.Allow.Add(keysService(keys.VerbSeal, keys.VerbOpen)...)
		p.Resp = &jwt.ResponsePermission{MaxMsgs: 1}
	}
	// The key bucket is the keys role's (and the admin's): no other role
	// may publish to it, delete from it or read it, whatever else it may.
	if id.Role != RoleKeyring {
		p.Pub.Deny.Add(append(keysAPI(), "$KV."+KeysBucket+".>")...)
	}
	// No role but the admin creates, changes, deletes, pauses, resets or
	// unpins a consumer of the log's streams (docs/security.md): the allow lists
	// give none of these there, and the verbs no role needs anywhere are
	// denied outright.
	p.Pub.Deny.Add(consumerMutations()...)
	switch id.Role {
	case RoleAdmin:
		p = jwt.Permissions{} // no limits
		return p
	case RoleSys:
		return jwt.Permissions{}
	case RoleOperator:
		p.Pub.Allow.Add(reads...)
		// Memory writes seal under data keys; erasure destroys them: both
		// asked of the keys service, which alone writes the bucket.
		p.Pub.Allow.Add(keysService(keys.VerbSeal, keys.VerbOpen, keys.VerbErase)...)
		// Erasure: the user's raw events (overwritten) and the tombstones.
		p.Pub.Allow.Add(api("STREAM.MSG.DELETE", events.StreamIn))
		for _, st := range events.Streams {
			p.Pub.Allow.Add(events.EraseSubjects[st])
		}
		p.Pub.Allow.Add(logSubjects("approval", "mem")...)
		p.Pub.Allow.Add(append(askViews, service("memory.>", "runs.>")...)...)
		p.Pub.Allow.Add("$SRV.>")
	case RoleReader:
		p.Pub.Allow.Add(reads...)
		p.Pub.Allow.Add(keysService(keys.VerbOpen)...) // reading sealed events
		p.Pub.Allow.Add(askViews...)
		p.Pub.Allow.Add(service("runs.get.*", "runs.list.*", "runs.rounds.*", "runs.history.*")...)
		p.Pub.Allow.Add("$SRV.>")
	case RoleProducer:
		t := id.Tenant
		p.Pub.Allow.Add(subjectLogRoot + ".in." + t + ".>")
		// Normalising at the edge: the tenant's model events, sealed under
		// its users' keys, which it asks the keys service for on its own
		// tenant's subject (a tenant's key store); never the bucket.
		p.Pub.Allow.Add(subjectLogRoot + ".model." + t + ".>")
		p.Pub.Allow.Add(keys.ServiceSubject(keys.VerbUser, t))
		for _, k := range []string{"call", "resp", "result", "answer", "run"} {
			p.Sub.Allow.Add(subjectLogRoot + "." + k + "." + t + ".>")
		}
		// A producer asks about its tenant's runs and writes into them (a
		// user's message, a plan) through the runs service: the tenant is
		// the service subject's last token. It takes, renews and releases
		// no run's lease: a lease says which driver runs a run's rounds, and
		// a producer that took one would stop its tenant's driver.
		for _, verb := range runsapi.Verbs {
			if !slices.Contains(runsapi.LeaseVerbs, verb) {
				p.Pub.Allow.Add(runsapi.ServiceSubject(verb, t))
			}
		}
		p.Sub.Allow.Add(events.PreviewPrefix + "." + t + ".>")
	case RoleAssembler:
		processor()
		// Ingest seals raw events (ts.raw, which no tenant may write) and
		// deletes the clear ones it sealed.
		p.Pub.Allow.Add(logSubjects("model", "call", "resp", "raw")...)
		p.Pub.Allow.Add(api("STREAM.MSG.DELETE", events.StreamIn))
		p.Pub.Allow.Add(subjectLogRoot+".ctl."+events.SystemTenant+".>", subjectLogRoot+".in."+events.SystemTenant+".>")
		p.Pub.Allow.Add(events.PreviewPrefix + ".>")
		for _, st := range []string{events.StreamIn, events.StreamModel} {
			p.Pub.Allow.Add(ownConsumer(st, "*")...)
		}
		p.Pub.Allow.Add("$KV." + LeasesBucket + ".>")
	case RoleExecutor:
		processor(durables[RoleExecutor]...)
		p.Pub.Allow.Add(logSubjects("exec", "result")...)
		// Its records and raw results: written by publishes, read by
		// direct gets (executor.ReadResult), never by a consumer.
		p.Pub.Allow.Add("$KV."+ExecBucket+".>", "$O."+ResultsBucket+".>")
	case RoleVerifier:
		processor(durables[RoleVerifier]...)
		p.Pub.Allow.Add(logSubjects("answer")...)
	case RoleMemory:
		processor(durables[RoleMemory]...)
		p.Pub.Allow.Add(logSubjects("mem")...)
		p.Sub.Allow.Add(service("memory.>")...)
	case RoleKeyring:
		// The bucket: its info, reads and direct gets, new keys (a publish
		// expecting none before: made by compare-and-set) and erasing
		// deletes; answering the keys service.
		s := kvStream(KeysBucket)
		p.Pub.Allow.Add(readStream(s)...)
		p.Pub.Allow.Add("$KV."+KeysBucket+".>", api("STREAM.MSG.DELETE", s))
		p.Sub.Allow.Add(append([]string{"$SRV.>"}, keysService("*")...)...)
		p.Resp = &jwt.ResponsePermission{MaxMsgs: 1}
	case RoleRuns:
		processor(durables[RoleRuns]...)
		p.Pub.Allow.Add(logSubjects("run")...)
		p.Pub.Allow.Add("$KV." + RunsBucket + ".>")
		p.Sub.Allow.Add(service("runs.>")...)
	case RoleDriver:
		// Reading the log and opening what it reads; sealing the requests
		// it keeps and the outcomes it writes.
		p.Pub.Allow.Add(reads...)
		p.Pub.Allow.Add(keysService(keys.VerbSeal, keys.VerbOpen)...)
		// Its bucket (gets, creates, puts, deletes) and the run leases;
		// both made by the admin. Its runs to resume are listed from the
		// bucket's stream info (reads), by no consumer: a consumer may
		// deliver to any subject it names (docs/security.md).
		p.Pub.Allow.Add("$KV."+AgentBucket+".>", "$KV."+RunsBucket+".>")
		// The runs and memory services, as a client.
		p.Pub.Allow.Add(service("runs.>", "memory.>")...)
		// The outcomes of toolstream_plan and toolstream_delegate calls,
		// on their built-in result subjects (events.BuiltinResultSubject,
		// ts.result.<tenant>.<key>.builtin), never an executor's
		// (ts.result.<tenant>.<key>): a driver's credential cannot put an
		// outcome where a real tool's is read, and every reader refuses
		// anything but a built-in tool's outcome on these.
		p.Pub.Allow.Add(builtinResults)
		// Its answers checked against their users' constraints in force
		// (events.ConstraintsChecked), on the checks' own subject
		// (events.ConstraintCheckSubject): never the answer's, where the
		// verdicts are, so a driver's credential publishes no verdict.
		p.Pub.Allow.Add(logSubjects("check")...)
		// Its runs' events and their answers' verdicts, live (wake-ups).
		p.Sub.Allow.Add(logSubjects("run", "answer")...)
	}
	return p
}
