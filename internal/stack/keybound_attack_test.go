package stack

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/keys"
)

// TestAttackRawUsersAreHeldToTheKeysBound (docs/security.md, "a tenant's
// user keys are bounded"): acme's producer (a forging nats.go client, its
// own credential) publishes raw provider streams verbatim, each naming a
// new user in Ts-User; ingest seals each raw event under the key of the
// user it names, which it makes on first use. With a bound of 2 user keys
// a tenant, acme's first two users' streams are assembled; the third's and
// fourth's raw events are rejected, typed (quota_exceeded), and stay in
// TS_IN, and no key is made for them; globex's user after them gets its
// key and its call. Before, ingest made a key for every user a raw event
// named (acme's four were all assembled), so a producer grew the key
// bucket without bound.
func TestAttackRawUsersAreHeldToTheKeysBound(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := bustest.StartWith(t, bus.Config{KeysUserMax: 2})
	s := startAssembler(ctx, t, b)
	ing, _ := s.Runner(assembler.IngestName)
	calls := make(chan *nats.Msg, 16)
	sub, err := b.Conn.ChanSubscribe("ts.call.>", calls)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()

	publish := func(tenant, user string) {
		js := forger(t, b, tenant)
		subj, _ := events.IngestSubject(tenant, "openai-responses", "s-"+user)
		for _, line := range rawResponse("resp_"+user, "q-"+user) {
			m := nats.NewMsg(subj)
			m.Header.Set("Ts-User", user)
			m.Data = line
			if _, err := js.PublishMsg(ctx, m); err != nil {
				t.Fatalf("%s's raw event for %s: %v", tenant, user, err)
			}
		}
	}
	for _, user := range []string{"u0", "u1", "u2", "u3"} {
		publish("acme", user)
	}
	publish("globex", "g0")

	got := map[string]bool{}
	for len(got) < 3 {
		select {
		case m := <-calls:
			ev, err := events.DecodeAtWith(m.Subject, m.Data, b.Keys)
			if err != nil {
				t.Fatalf("outcome on %s: %v", m.Subject, err)
			}
			got[ev.Tenant+"/"+ev.User] = true
		case <-ctx.Done():
			t.Fatalf("outcomes seen: %v; want acme's u0 and u1 and globex's g0: %v", got, ctx.Err())
		}
	}
	if !got["acme/u0"] || !got["acme/u1"] || !got["globex/g0"] {
		t.Errorf("outcomes: %v; want acme's u0 and u1 and globex's g0", got)
	}
	in := b.Stream(events.StreamIn)
	last, err := b.LastSeq(ctx, events.StreamIn)
	if err != nil {
		t.Fatal(err)
	}
	if err := ing.WaitFor(ctx, last); err != nil {
		t.Fatal(err)
	}
	rejected, err := ing.Rejections()
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]int{}
	for _, rj := range rejected {
		by[rj.Subject]++
		if rj.Code != events.ReasonQuotaExceeded {
			t.Errorf("ingest rejected %d (%s): %s, want %s", rj.Seq, rj.Subject, rj.Code, events.ReasonQuotaExceeded)
		}
		if _, err := in.GetMsg(ctx, rj.Seq); err != nil {
			t.Errorf("acme's refused raw event %d is not in %s: %v", rj.Seq, events.StreamIn, err)
		}
	}
	if want := map[string]int{"ts.in.acme.openai-responses.s-u2": 6, "ts.in.acme.openai-responses.s-u3": 6}; !maps.Equal(by, want) {
		t.Errorf("ingest's rejections by subject: %v, want %v", by, want)
	}
	select {
	case m := <-calls:
		t.Errorf("an outcome past the bound, on %s", m.Subject)
	default:
	}
	kv, err := b.JS.Stream(ctx, "KV_"+keys.Bucket)
	if err != nil {
		t.Fatal(err)
	}
	info, err := kv.Info(ctx, jetstream.WithSubjectFilter("$KV."+keys.Bucket+".k.*.u.*"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(info.State.Subjects); n != 3 {
		t.Errorf("the bucket holds %d user keys, want 3 (acme's u0 and u1, globex's g0): %v", n, info.State.Subjects)
	}
}
