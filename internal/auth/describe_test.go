package auth

import (
	"os"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
)

const (
	permsBegin = "<!-- permissions: begin (auth.Describe; TOOLSTREAM_REWRITE=1 go test ./internal/auth -run TestSecurityDocShowsThePermissions rewrites it) -->\n```text\n"
	permsEnd   = "```\n<!-- permissions: end -->"
)

// TestSecurityDocShowsThePermissions: docs/security.md's list of what
// each role may publish and subscribe to is auth.Describe's output, the
// permissions each role's NATS user is issued with, so the document cannot
// drift from the code (checked: a subject added to a role fails it).
func TestSecurityDocShowsThePermissions(t *testing.T) {
	const path = "../../docs/security.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, permsBegin), strings.Index(doc, permsEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no permissions block (%q … %q)", path, permsBegin, permsEnd)
	}
	have, want := doc[i+len(permsBegin):j], Describe()
	if have == want {
		return
	}
	if os.Getenv("TOOLSTREAM_REWRITE") == "1" {
		if err := os.WriteFile(path, []byte(doc[:i+len(permsBegin)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("%s's permissions differ from auth.Describe; rerun with TOOLSTREAM_REWRITE=1 and review. Describe:\n%s", path, want)
}

// TestNoRoleMutatesAConsumer: no identity but the admin may create (or
// update: the same request), delete, pause, reset, unpin or step down any
// consumer of any stream of the log, named or not, the processors' own
// durables included; each processor may bind, pull and
// acknowledge its own.
func TestNoRoleMutatesAConsumer(t *testing.T) {
	names := []string{"ts-executor", "ts-executor-approvals", "ts-verifier", "ts-judge", "ts-memory", "ts-runs", "ts-runs-calls",
		"ts-assembler", "ts-assembler-p0", "ts-assembler-p17", "ts-ingest", "ts-responses", "mine",
		// A bucket's stream as a consumer's name (sec15: "CONSUMER.*.*.<bucket>.*" matched these).
		kvStream(ExecBucket), objStream(ResultsBucket), kvStream(LeasesBucket), kvStream(AgentBucket), kvStream(RunsBucket)}
	for _, id := range nonAdmins() {
		for _, st := range events.Streams {
			if id.MayPublish(api("CONSUMER.CREATE", st)) {
				t.Errorf("%s may create an ephemeral consumer on %s", id, st)
			}
			for _, n := range names {
				for _, verb := range ConsumerVerbsMutating {
					for _, subj := range []string{api("CONSUMER."+verb, st, n), api("CONSUMER."+verb, st, n, "ts.call.>"), api("CONSUMER."+verb, st, n, ">")} {
						if id.MayPublish(subj) {
							t.Errorf("%s may publish %s", id, subj)
						}
					}
				}
			}
		}
	}
	for r, ds := range durables {
		id := Identity{Role: r}
		for _, d := range ds {
			for _, subj := range []string{api("CONSUMER.INFO", d.stream, d.name), api("CONSUMER.MSG.NEXT", d.stream, d.name),
				"$JS.ACK." + d.stream + "." + d.name + ".1.2.3.4.5.0"} {
				if !id.MayPublish(subj) {
					t.Errorf("%s may not %s", id, subj)
				}
			}
		}
	}
}

// TestNoRoleMakesAConsumerOnAReadBucket: the buckets every tenant-less
// role reads (call records, raw results, leases, run leases) are read by
// direct gets alone: no identity but the admin may create, delete or pull
// from any consumer there, ephemeral or named, filtered or not (a consumer
// may deliver to any subject it names: docs/security.md), and every
// role that reads them may still get their messages directly. The driver's
// own bucket (KV_ts_agent) too: it lists its runs by the stream's info.
func TestNoRoleMakesAConsumerOnAReadBucket(t *testing.T) {
	buckets := []string{kvStream(ExecBucket), objStream(ResultsBucket), kvStream(LeasesBucket), kvStream(RunsBucket), kvStream(AgentBucket)}
	readers := map[Role]bool{RoleOperator: true, RoleReader: true, RoleAssembler: true, RoleExecutor: true, RoleVerifier: true,
		RoleMemory: true, RoleRuns: true, RoleDriver: true}
	for _, id := range nonAdmins() {
		for _, st := range buckets {
			var subjects []string
			for _, verb := range []string{"CREATE", "DELETE", "INFO", "MSG.NEXT", "DURABLE.CREATE"} {
				subjects = append(subjects, api("CONSUMER."+verb, st), api("CONSUMER."+verb, st, "x"),
					api("CONSUMER."+verb, st, "x", ">"), api("CONSUMER."+verb, st, "x", "$O.ts_results.C.>"))
			}
			subjects = append(subjects, api("CONSUMER.LIST", st), api("CONSUMER.NAMES", st), "$JS.FC."+st+".x", "$JS.ACK."+st+".x.1.1.1.1.0")
			for _, subj := range subjects {
				if id.MayPublish(subj) {
					t.Errorf("%s may publish %s", id, subj)
				}
			}
			if got := id.MayPublish(api("DIRECT.GET", st)); got != readers[id.Role] {
				t.Errorf("%s may direct-get %s: %t, want %t", id, st, got, readers[id.Role])
			}
		}
	}
	if id := (Identity{Role: RoleDriver}); !id.MayPublish(api("STREAM.INFO", kvStream(AgentBucket))) {
		t.Errorf("the driver may not list its own bucket's keys by the stream's info")
	}
}

// nonAdmins is an identity of every role but the admin (acme's producer).
func nonAdmins() []Identity {
	var out []Identity
	for _, r := range Roles {
		switch r {
		case RoleAdmin:
		case RoleProducer:
			out = append(out, Identity{Role: r, Tenant: "acme"})
		default:
			out = append(out, Identity{Role: r})
		}
	}
	return out
}
