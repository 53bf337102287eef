package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/agent/agenttest"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/jstest"
	"github.com/toolstream/toolstream/memory/memapi"
)

// TestAttackConstraintsEndpointIsNotATenants (docs/security.md): the
// memory endpoint tsv.memory.constraints answers any user's constraints
// in force of any tenant, so only the roles that ask memory for any
// tenant (the operator and run mode's driver) may reach it. Attackers,
// each with its own role's credential through the real server: acme's
// producer asking for its own tenant's alice and for bob, globex's
// producer, an executor and a reader, with the stock nats CLI (nats req)
// and with the client package (Client.Constraints). Each is refused: the
// CLI prints the server's permissions violation and nothing of alice's,
// the client returns ErrPermissionDenied and no record. A driver that
// hangs up early (a request published, the connection closed before the
// answer; a request without a reply subject) and one that sends a
// malformed op (ErrBadInput, 400) do not hurt the service. Victim: alice's
// constraints, read before and after by the driver's credential, are the
// same records.
func TestAttackConstraintsEndpointIsNotATenants(t *testing.T) {
	p := agenttest.StartWith(t, agenttest.Options{Memory: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	mem, err := client.Connect(ctx, client.WithConn(p.B.Conn), client.WithKeys(p.B.Keys))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Message(ctx, agenttest.Tenant, "alice", "atk-c1", "I'm allergic to shellfish.", time.Now()); err != nil {
		t.Fatal(err)
	}
	driver := auth.Identity{Role: auth.RoleDriver}
	asDriver, err := client.Connect(ctx, client.WithURL(p.B.ClientURL()), client.WithCredsFile(bustest.Creds(t, p.B, driver)))
	if err != nil {
		t.Fatal(err)
	}
	defer asDriver.Close()
	before, err := asDriver.Constraints(ctx, agenttest.Tenant, "alice", time.Time{})
	if err != nil || len(before) != 1 || !strings.Contains(before[0].Text, "shellfish") {
		t.Fatalf("alice's constraints as the driver before the attack: %+v, %v; want her shellfish allergy", before, err)
	}

	for _, a := range []struct {
		id   auth.Identity
		user string
	}{
		{auth.Identity{Role: auth.RoleProducer, Tenant: agenttest.Tenant}, "alice"},
		{auth.Identity{Role: auth.RoleProducer, Tenant: agenttest.Tenant}, "bob"},
		{auth.Identity{Role: auth.RoleProducer, Tenant: "globex"}, "alice"},
		{auth.Identity{Role: auth.RoleExecutor}, "alice"},
		{auth.Identity{Role: auth.RoleReader}, "alice"},
	} {
		creds := bustest.Creds(t, p.B, a.id)
		op, _ := json.Marshal(memapi.Op{Tenant: agenttest.Tenant, User: a.user})
		cmd := exec.CommandContext(ctx, jstest.NatsCLI(t), "--server", p.B.ClientURL(), "--creds", creds,
			"--inbox-prefix", a.id.InboxPrefix(), "--timeout", "5s", "req", memapi.ServicePrefix+".constraints", string(op))
		// The CLI reports the server's refusal and waits out its timeout
		// (its exit status says nothing either way).
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(strings.ToLower(string(out)), "permissions violation") || strings.Contains(string(out), "shellfish") {
			t.Errorf("%s's nats req for %s's constraints: %s; want a permissions violation and nothing of hers", a.id, a.user, out)
		}
		c, err := client.Connect(ctx, client.WithURL(p.B.ClientURL()), client.WithCredsFile(creds), client.WithRequestTimeout(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := c.Constraints(ctx, agenttest.Tenant, a.user, time.Time{})
		if !errors.Is(err, client.ErrPermissionDenied) || len(recs) != 0 {
			t.Errorf("%s's Constraints of %s: %+v, %v; want ErrPermissionDenied and no record", a.id, a.user, recs, err)
		}
		c.Close()
	}

	// A driver that hangs up early: requests published on a connection
	// closed before their answers, and one without a reply subject.
	opts, err := p.B.UserOptions(driver)
	if err != nil {
		t.Fatal(err)
	}
	op, _ := json.Marshal(memapi.Op{Tenant: agenttest.Tenant, User: "alice"})
	for range 3 {
		nc, err := nats.Connect(p.B.ClientURL(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			if err := nc.PublishRequest(memapi.ServicePrefix+".constraints", nc.NewRespInbox(), op); err != nil {
				t.Fatal(err)
			}
		}
		if err := nc.Publish(memapi.ServicePrefix+".constraints", op); err != nil {
			t.Fatal(err)
		}
		if err := nc.Flush(); err != nil {
			t.Fatal(err)
		}
		nc.Close()
	}
	// A malformed op is bad input, and the service goes on.
	if _, err := asDriver.MemoryRequest(ctx, "constraints", memapi.Op{Tenant: agenttest.Tenant, User: "alice", AsOf: "yesterday"}); !errors.Is(err, client.ErrBadInput) {
		t.Errorf("constraints as of %q: %v; want ErrBadInput", "yesterday", err)
	}
	after, err := asDriver.Constraints(ctx, agenttest.Tenant, "alice", time.Time{})
	if err != nil || !reflect.DeepEqual(after, before) {
		t.Errorf("alice's constraints after the attack: %+v, %v; want %+v", after, err, before)
	}
}
