package agent_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/agent/agenttest"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/memory/memapi"
)

// TestAttackReplyToReachesNoOtherTurn (docs/security.md): a message's
// reply_to is the text of the turn it answers, given by the writer; the
// memory service looks nothing up by it. So naming another tenant's (or
// another user's) turn by its id, its record's id or its text's first
// words gets nothing of that turn into the writer's records, and the
// answer is the same whether the turn exists or not. Attackers, each with
// its own role's credential through the real server and the client
// package: both tenants' producers, the assembler, executor, verifier,
// memory, runs, reader, keys, operator and driver roles, each writing
// globex's mallory's (and acme's bob's) message with reply_to naming acme's
// alice's question turn. A role the memory service is not for is refused
// (ErrPermissionDenied) and writes nothing; one that may write memory
// (the operator, the driver) gets records whose text and context hold
// nothing of alice's turn, and the same answer as for a turn never
// written. Victim: alice's own reply, written with her turn's text,
// keeps her question as its context.
func TestAttackReplyToReachesNoOtherTurn(t *testing.T) {
	p := agenttest.StartWith(t, agenttest.Options{Memory: true})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	admin, err := client.Connect(ctx, client.WithConn(p.B.Conn), client.WithKeys(p.B.Keys))
	if err != nil {
		t.Fatal(err)
	}
	const turn = "Where did you hide the spare key for the cellar?"
	secret := []string{"spare key", "cellar", "hide"}
	q, err := admin.Message(ctx, agenttest.Tenant, "alice", "turn-q1", turn, time.Now())
	if err != nil || !q.Applied {
		t.Fatalf("alice's turn: %+v, %v", q, err)
	}
	a, err := admin.Message(ctx, agenttest.Tenant, "alice", "turn-a1", "It is under the blue flowerpot.", time.Now(), client.ReplyTo(turn))
	if err != nil || !a.Applied {
		t.Fatalf("alice's reply: %+v, %v", a, err)
	}
	recs, err := admin.Records(ctx, agenttest.Tenant, "alice", false)
	if err != nil {
		t.Fatal(err)
	}
	if !someContext(recs, "turn-a1", "spare key") {
		t.Fatalf("alice's reply does not keep her question as its context: %+v", recs)
	}

	names := []string{"turn-q1", q.Records[0].ID, a.Records[0].ID, "turn-q1 " + turn[:20]}
	for _, id := range []auth.Identity{
		{Role: auth.RoleProducer, Tenant: "globex"}, {Role: auth.RoleProducer, Tenant: agenttest.Tenant},
		{Role: auth.RoleAssembler}, {Role: auth.RoleExecutor}, {Role: auth.RoleVerifier}, {Role: auth.RoleMemory},
		{Role: auth.RoleRuns}, {Role: auth.RoleReader}, {Role: auth.RoleKeyring}, {Role: auth.RoleOperator}, {Role: auth.RoleDriver},
	} {
		c, err := client.Connect(ctx, client.WithURL(p.B.ClientURL()), client.WithCredsFile(bustest.Creds(t, p.B, id)), client.WithRequestTimeout(2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		denied := false
		for _, victim := range []struct{ tenant, user string }{{"globex", "mallory"}, {agenttest.Tenant, "bob"}} {
			var replies []string
			for i, name := range append(names, "turn-never-written") {
				if denied {
					break // refused once: the server waits out each refusal
				}
				mid := fmt.Sprintf("atk-%s-%s-%d", id.Role, id.Tenant, i)
				rep, err := c.Message(ctx, victim.tenant, victim.user, mid, "It is in the usual place, as always.", time.Now(), client.ReplyTo(name))
				if errors.Is(err, client.ErrPermissionDenied) {
					denied = true // who may not: nothing written (checked below)
					continue
				}
				if err != nil {
					t.Fatalf("%s writing %s/%s replying to %q: %v", id, victim.tenant, victim.user, name, err)
				}
				if id.Role != auth.RoleOperator && id.Role != auth.RoleDriver {
					// only the operator and the driver may write memory
					// (docs/security.md): any other role that gets here was let in
					t.Errorf("%s wrote memory: %+v", id, rep)
				}
				replies = append(replies, fmt.Sprintf("applied=%v rejected=%q records=%d", rep.Applied, rep.Rejected, len(rep.Records)))
			}
			for _, r := range replies[min(1, len(replies)):] {
				if r != replies[0] {
					t.Errorf("%s: the answers differ by the turn named (an existing turn tells): %q", id, replies)
				}
			}
		}
		if !denied {
			t.Logf("%s may write memory: its records were checked", id)
		}
		c.Close()
	}
	for _, victim := range []struct{ tenant, user string }{{"globex", "mallory"}, {agenttest.Tenant, "bob"}} {
		got, err := admin.Records(ctx, victim.tenant, victim.user, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			t.Fatalf("%s/%s has no record: no role wrote memory, so nothing was tried", victim.tenant, victim.user)
		}
		for _, r := range got {
			if strings.HasPrefix(r.ID, "atk-") && !strings.HasPrefix(r.ID, fmt.Sprintf("atk-%s-", auth.RoleOperator)) &&
				!strings.HasPrefix(r.ID, fmt.Sprintf("atk-%s-", auth.RoleDriver)) {
				t.Errorf("a message of a role that may not write memory was written: %+v", r)
			}
			for _, s := range secret {
				if strings.Contains(strings.ToLower(r.Text+" "+r.Context), s) {
					t.Errorf("%s/%s's record %s holds %q of alice's turn: text %q context %q", victim.tenant, victim.user, r.ID, s, r.Text, r.Context)
				}
			}
		}
	}
}

// someContext reports whether a record of message id keeps a context
// holding want.
func someContext(recs []memapi.Record, id, want string) bool {
	for _, r := range recs {
		if strings.HasPrefix(r.ID, id) && strings.Contains(r.Context, want) {
			return true
		}
	}
	return false
}
