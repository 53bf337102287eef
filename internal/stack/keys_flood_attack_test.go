package stack

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/keys"
)

// TestAttackKeyFloodStallsNoOtherTenant: acme's producer, through the real
// server with its own credential, asks the keys service for the keys of
// 2,000 new users at once (each a key made: a round trip to the bucket),
// then globex's producer asks for its user alice's key. Victim: globex's
// answer, its alice's key as the bucket holds it, comes while acme's flood
// is still being answered; before, every tenant's requests shared one
// endpoint answered one at a time, and globex's came after all of acme's.
// Attacker: what waits past keys.LaneMax is refused (keys.CodeBusy) at
// once, every request is answered, and acme still gets its own user's key
// once it asks again.
func TestAttackKeyFloodStallsNoOtherTenant(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	b := bustest.Start(t)
	const flood = 2000
	acme := dialAs(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
	globex := dialAs(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "globex"})

	f := bustest.SendFlood(t, acme.Conn, keys.ServiceSubject(keys.VerbUser, "acme"), flood, func(i int) []byte {
		b, _ := json.Marshal(keys.Request{User: fmt.Sprintf("flood-%d", i)})
		return b
	})

	req, _ := json.Marshal(keys.Request{User: "alice"})
	m, err := globex.RequestWithContext(ctx, keys.ServiceSubject(keys.VerbUser, "globex"), req)
	if err != nil {
		t.Fatalf("globex's key: %v", err)
	}
	// How many of acme's keys the bucket held when globex was answered:
	// the service had made them all first when it answered one request at
	// a time.
	keysBefore := tenantKeys(ctx, t, b, "acme")
	if code := m.Header.Get(micro.ErrorCodeHeader); code != "" {
		t.Fatalf("globex's key refused: %s %s", code, m.Header.Get(micro.ErrorHeader))
	}
	wantID, _, err := b.Keys.(*keys.Store).SealKey("globex", events.UserScope("alice"))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := keys.Open(ctx, keys.Config{JS: jsOf(t, globex.Conn), Tenant: "globex"})
	if err != nil {
		t.Fatal(err)
	}
	if id, _, err := ps.SealKey("globex", events.UserScope("alice")); err != nil || id != wantID {
		t.Errorf("globex's alice's key through the service: %s, %v; the bucket's %s", id, err, wantID)
	}

	answered := f.Wait(ctx, t)
	t.Logf("acme's flood answered %v; globex answered with %d of acme's keys made", answered, keysBefore)
	if keysBefore >= answered[""] {
		t.Errorf("globex's key came after all %d keys acme's flood made: acme's flood stalled it", answered[""])
	}
	// How many are refused depends on how fast the service drains the lane
	// (none on a fast machine); that every one is answered, a key or
	// refused at once, does not. The bound itself: lanes/TestLanes.
	if answered[""]+answered[keys.CodeBusy] != flood {
		t.Errorf("acme's flood: answered %v, want keys and %s refusals only", answered, keys.CodeBusy)
	}
	as, err := keys.Open(ctx, keys.Config{JS: jsOf(t, acme.Conn), Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := as.SealKey("acme", events.UserScope("ann")); err != nil {
		t.Errorf("acme's own key after its flood: %v", err)
	}
}

// jsOf is nc's JetStream context.
func jsOf(t *testing.T, nc *nats.Conn) jetstream.JetStream {
	t.Helper()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// tenantKeys is how many keys of tenant's users the bucket holds.
func tenantKeys(ctx context.Context, t *testing.T, b *bus.Bus, tenant string) int {
	t.Helper()
	st, err := b.JS.Stream(ctx, "KV_"+keys.Bucket)
	if err != nil {
		t.Fatal(err)
	}
	prefix := keyName(tenant, "x")
	prefix = prefix[:strings.LastIndexByte(prefix, '.')]
	info, err := st.Info(ctx, jetstream.WithSubjectFilter("$KV."+keys.Bucket+"."+prefix+".>"))
	if err != nil {
		t.Fatal(err)
	}
	return len(info.State.Subjects)
}

// TestAttackOverlongUserClosesNoKeysConnection: acme's producer, through
// the real server with its own credential, asks the keys service for the
// key of a user of 5,000 bytes, plain and as a ~token, and of a record of
// a user. Attacker: each is refused (keys.CodeRefused). Victim: globex's
// producer gets its alice's key at once. Before, the service built the
// bucket's subject of that user, a control line past the server's 4 KiB,
// and the server closed the keys service's connection: no answer, and no
// tenant's key until it reconnected.
func TestAttackOverlongUserClosesNoKeysConnection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := bustest.Start(t)
	acme := dialAs(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
	globex := dialAs(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "globex"})
	long := strings.Repeat("a", 5000)
	for _, req := range []keys.Request{{User: long}, {Scope: "u/~" + base64.RawURLEncoding.EncodeToString([]byte(long))}, {Scope: "u/" + long}} {
		data, _ := json.Marshal(req)
		actx, acancel := context.WithTimeout(ctx, 10*time.Second)
		m, err := acme.RequestWithContext(actx, keys.ServiceSubject(keys.VerbUser, "acme"), data)
		acancel()
		if err != nil {
			t.Fatalf("acme's request of %d bytes: no answer: %v", len(data), err)
		}
		if code := m.Header.Get(micro.ErrorCodeHeader); code != keys.CodeRefused {
			t.Errorf("acme's request of %d bytes: answered %q %s, want %s", len(data), code, m.Header.Get(micro.ErrorHeader), keys.CodeRefused)
		}
		gctx, gcancel := context.WithTimeout(ctx, 5*time.Second)
		data, _ = json.Marshal(keys.Request{User: "alice"})
		g, err := globex.RequestWithContext(gctx, keys.ServiceSubject(keys.VerbUser, "globex"), data)
		gcancel()
		if err != nil {
			t.Fatalf("globex's key after acme's overlong user: %v", err)
		}
		if code := g.Header.Get(micro.ErrorCodeHeader); code != "" {
			t.Fatalf("globex's key refused: %s %s", code, g.Header.Get(micro.ErrorHeader))
		}
	}
}
