package stack

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/responses"
	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/internal/viewapi"
	"github.com/toolstream/toolstream/internal/viewdump"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/verifier"
)

// forge subscribes rc to each of subjects, answering every request as a
// view far ahead would: a digest at 2^62, or a dump of one row at 2^62.
func forge(t *testing.T, rc *roleConn, subjects []string) {
	t.Helper()
	for _, s := range subjects {
		sub, err := rc.Subscribe(s, func(m *nats.Msg) {
			if strings.HasPrefix(m.Subject, viewapi.DumpPrefix) {
				data, _ := json.Marshal(viewdump.Response{Token: "forged", Seq: 1 << 62, Rows: [][2][]byte{{[]byte("k"), []byte("v")}}, Done: true})
				m.Respond(data)
				return
			}
			data, _ := json.Marshal(projector.Digest{Seq: 1 << 62})
			m.Respond(data)
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sub.Unsubscribe() })
	}
	if err := rc.Flush(); err != nil {
		t.Fatal(err)
	}
}

// TestAttackNoProcessorForgesAViewsDigest (atk12's): a processor's
// credential (each role that runs no memory projection) answers the
// memory view's digest and dump with a view far ahead, on memory's own
// subjects, on wildcards over every view and on the subjects every view
// shared before. No process runs the memory projection, so an erasure's
// wait (WaitApplied, what `toolstream forget` and the console's forget
// button report "confirmed" by) must not see the tombstone applied, and a
// dump of memory (replay --diff) must get no answer. Before each
// projection had subjects of its own, every processor role could
// subscribe to tsv.digest and answer, and the asker took the first
// answer. The memory role's credential, which runs memory, does answer:
// what is refused is the role, not the subject.
func TestAttackNoProcessorForgesAViewsDigest(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := bustest.Start(t)
	op := dialAs(t, b, auth.Identity{Role: auth.RoleOperator})
	if WaitApplied(ctx, op.Conn, memory.Name, 1<<40, time.Second) {
		t.Fatal("with no view served, WaitApplied reported the tombstone applied")
	}
	digest, err := viewapi.Subject(viewapi.DigestPrefix, memory.Name)
	if err != nil {
		t.Fatal(err)
	}
	dump, err := viewapi.Subject(viewapi.DumpPrefix, memory.Name)
	if err != nil {
		t.Fatal(err)
	}
	subjects := []string{digest, dump, "tsv.digest.>", "tsv.dump.>", "tsv.digest.*", "tsv.dump.*", "tsv.digest", "tsv.dump", "tsv.>"}
	for _, role := range []auth.Role{auth.RoleExecutor, auth.RoleVerifier, auth.RoleAssembler, auth.RoleRuns} {
		t.Run(string(role), func(t *testing.T) {
			forger := dialAs(t, b, auth.Identity{Role: role})
			forge(t, forger, subjects)
			for _, s := range subjects {
				if !forger.violated(t, `Subscription to "`+s+`"`) {
					t.Errorf("%s may subscribe to %s", role, s)
				}
			}
			if WaitApplied(ctx, op.Conn, memory.Name, 1<<40, 2*time.Second) {
				t.Errorf("%s's forged digest made the erasure's wait report the memory view caught up", role)
			}
			sctx, scancel := context.WithTimeout(ctx, time.Second)
			defer scancel()
			if seq, _, err := viewdump.Open(sctx, op.Conn, memory.Name); !viewdump.NotServed(err) {
				t.Errorf("a dump of memory with %s's forger about: at %d, %v; want no answer", role, seq, err)
			}
		})
	}
	t.Run(string(auth.RoleMemory), func(t *testing.T) {
		forge(t, dialAs(t, b, auth.Identity{Role: auth.RoleMemory}), []string{digest})
		if !WaitApplied(ctx, op.Conn, memory.Name, 1<<40, 5*time.Second) {
			t.Error("the memory role's answer for the memory view did not reach the erasure's wait")
		}
	})
}

// TestEachRoleAnswersOnlyItsViews: each processor role's credential
// subscribes to the digest and dump subjects of every projection of the
// catalogue (and of two assembler partitions), and an operator asks each:
// only the role that runs the projection (in this test's own table, apart
// from package auth's) gets the request; for every other role the server
// refuses the subscription and the operator gets no answer.
func TestEachRoleAnswersOnlyItsViews(t *testing.T) {
	b := bustest.Start(t)
	op := dialAs(t, b, auth.Identity{Role: auth.RoleOperator})
	runsOf := map[string]auth.Role{
		assembler.IngestName: auth.RoleAssembler, assembler.Name: auth.RoleAssembler, responses.Name: auth.RoleAssembler,
		assembler.PartitionName(0): auth.RoleAssembler, assembler.PartitionName(17): auth.RoleAssembler,
		verifier.Name: auth.RoleVerifier, memory.Name: auth.RoleMemory, runs.Name: auth.RoleRuns, runs.CallsName: auth.RoleRuns,
	}
	for _, name := range Names() {
		if _, ok := runsOf[name]; !ok {
			t.Fatalf("the catalogue's %s is not in this test's table", name)
		}
	}
	for _, role := range []auth.Role{auth.RoleAssembler, auth.RoleExecutor, auth.RoleVerifier, auth.RoleMemory, auth.RoleRuns} {
		t.Run(string(role), func(t *testing.T) {
			rc := dialAs(t, b, auth.Identity{Role: role})
			for name, owner := range runsOf {
				for _, prefix := range viewapi.Prefixes {
					subject, err := viewapi.Subject(prefix, name)
					if err != nil {
						t.Fatal(err)
					}
					sub, err := rc.Subscribe(subject, func(m *nats.Msg) { m.Respond([]byte(role)) })
					if err != nil {
						t.Fatal(err)
					}
					rc.Flush()
					msg, err := op.Request(subject, []byte(name), 2*time.Second)
					switch {
					case owner == role && (err != nil || string(msg.Data) != string(role)):
						t.Errorf("%s, which runs %s, was not asked on %s: %v", role, name, subject, err)
					case owner != role && !errors.Is(err, nats.ErrNoResponders):
						t.Errorf("%s answered %s for %s's %s: %v", role, subject, owner, name, err)
					}
					sub.Unsubscribe()
				}
			}
		})
	}
}
