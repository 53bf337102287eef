package stack

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestNoProcessorDeletesFromATenantStream: only the admin deletes from a
// tenant's ingress stream (TS_ING_<t>). Through the real server, each with
// its own credential, globex's producer, the assembler and the operator
// ask to delete acme's raw event there: each is refused (a permissions
// violation: no answer) and the event stays. Ingest on a bus of the
// assembler role (a cluster's) deletes the clear copy from TS_IN and
// leaves the tenant stream's to the admin's trim (Bus.TrimTenants), at
// once: before, it asked for the tenant stream's delete first, waited out
// the request's timeout and deleted neither.
func TestNoProcessorDeletesFromATenantStream(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := bustest.StartTenants(t, "acme", "globex")
	const secret = "tenantdelete-3f1c"
	publishRaw(ctx, t, forger(t, b, "acme"), "s1", [][]byte{[]byte(`{"q":"` + secret + `"}`)})
	var inSeq uint64
	waitStored(ctx, t, b.Stream(events.StreamIn), func(m *jetstream.RawStreamMsg) bool {
		inSeq = m.Sequence
		return bytes.Contains(m.Data, []byte(secret))
	})
	both := map[string]int{events.StreamIn: 1, bus.TenantStream("acme"): 1}
	for _, id := range []auth.Identity{
		{Role: auth.RoleProducer, Tenant: "globex"},
		{Role: auth.RoleProducer, Tenant: "acme"},
		{Role: auth.RoleAssembler},
		{Role: auth.RoleOperator},
	} {
		nc := bustest.RoleJS(t, b, id).Conn()
		if _, err := nc.Request("$JS.API.STREAM.MSG.DELETE."+bus.TenantStream("acme"), []byte(`{"seq":1}`), time.Second); err == nil {
			t.Errorf("%s's delete from %s was answered", id, bus.TenantStream("acme"))
		}
		if h := holding(ctx, t, b, secret); fmt.Sprint(h) != fmt.Sprint(both) {
			t.Fatalf("after %s's delete acme's raw event is in %v, want %v", id, h, both)
		}
	}
	opts, err := b.UserOptions(auth.Identity{Role: auth.RoleAssembler})
	if err != nil {
		t.Fatal(err)
	}
	ab, err := bus.Open(ctx, bus.Config{NATSURL: b.ClientURL(), Options: opts, Name: "assembler"})
	if err != nil {
		t.Fatal(err)
	}
	defer ab.Close()
	if err := DeleteRaw(ab)(ctx, inSeq); err != nil {
		t.Errorf("ingest's delete as the assembler role: %v", err)
	}
	want := map[string]int{bus.TenantStream("acme"): 1}
	if h := holding(ctx, t, b, secret); fmt.Sprint(h) != fmt.Sprint(want) {
		t.Errorf("after ingest's delete as the assembler role acme's raw event is in %v, want %v (the tenant stream's copy is the admin's trim's)", h, want)
	}
}
