package stack

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/keys"
)

// TestAttackUserLessErasureIsTheOperators (docs/security.md): the keys
// service erases a tenant's user-less scope when a request names it
// ({"user_less":true} on tsv.keys.erase.<tenant>, toolstream forget
// --no-user), and that key seals everything the tenant's producers
// published without a user. Attackers, each with its own credential
// through the real server: acme's own producer, globex's producer, and
// the executor, reader, verifier, memory and driver roles, with the stock
// nats CLI (nats req) and a forging nats.go client. Each is refused by the
// server (permissions violation). Victim: acme's user-less key is still
// in the bucket and opens, the bucket holds what it held. The operator's
// same request erases that key alone (globex's user-less key stays),
// which shows the request the attackers sent is the one that erases.
func TestAttackUserLessErasureIsTheOperators(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := bustest.Start(t)
	admin := b.Keys.(*keys.Store)
	ids := map[string]string{}
	for _, tenant := range []string{"acme", "globex"} {
		id, _, err := admin.SealKey(tenant, events.UserScope(""))
		if err != nil {
			t.Fatal(err)
		}
		ids[tenant] = id
	}
	before := keyMsgs(ctx, t, b)
	subject := keys.ServiceSubject(keys.VerbErase, "acme")
	req := []byte(`{"user_less":true}`)
	for _, id := range []auth.Identity{{Role: auth.RoleProducer, Tenant: "acme"}, {Role: auth.RoleProducer, Tenant: "globex"},
		{Role: auth.RoleExecutor}, {Role: auth.RoleReader}, {Role: auth.RoleVerifier}, {Role: auth.RoleMemory}, {Role: auth.RoleDriver}} {
		// The CLI prints the server's refusal (and exits 0).
		if out, _ := natsCLI(t, b, id, nil, "req", subject, string(req)); !bytes.Contains(out, []byte("Permissions Violation")) {
			t.Errorf("%s's nats req %s %s was not refused:\n%s", id, subject, req, out)
		}
		fc := dialAs(t, b, id)
		if err := fc.PublishRequest(subject, fc.NewRespInbox(), req); err != nil {
			t.Fatal(err)
		}
		if !fc.refused(t, subject) {
			t.Errorf("%s's forged user-less erasure on %s was not refused by the server", id, subject)
		}
	}
	if n := keyMsgs(ctx, t, b); n != before {
		t.Errorf("the key bucket holds %d messages after the attack, want %d", n, before)
	}
	if _, err := admin.OpenKey("acme", events.UserScope(""), ids["acme"]); err != nil {
		t.Errorf("acme's user-less key after the attack: %v", err)
	}

	// The operator's same request erases acme's user-less key, and only it.
	op := dialAs(t, b, auth.Identity{Role: auth.RoleOperator})
	msg, err := op.RequestWithContext(ctx, subject, req)
	if err != nil {
		t.Fatal(err)
	}
	var reply keys.EraseReply
	if err := json.Unmarshal(msg.Data, &reply); err != nil || reply.Erased != 1 {
		t.Errorf("the operator's user-less erasure answered %s (%v); want one key erased", msg.Data, err)
	}
	if n := keyMsgs(ctx, t, b); n != before-1 {
		t.Errorf("the key bucket holds %d messages after the operator's erasure, want %d", n, before-1)
	}
	if _, err := admin.OpenKey("globex", events.UserScope(""), ids["globex"]); err != nil {
		t.Errorf("globex's user-less key after acme's erasure: %v", err)
	}
}
