package keys_test

import (
	"context"
	"errors"
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

// remote opens a Remote store as id on b (bustest runs the keys service
// under the keys role).
func remote(t *testing.T, b *bus.Bus, id auth.Identity) *keys.Store {
	t.Helper()
	opts, err := b.UserOptions(id)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(b.ClientURL(), append(opts, nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := keys.Open(context.Background(), keys.Config{JS: js, Remote: true, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRemoteStoresAskTheService: each role's store asks the keys service
// and gets what its role may: a processor makes and opens any tenant's
// keys (the same keys the bucket holds), the reader opens but never makes
// one, the operator erases (the erased key opens nowhere, its events read
// as erased); a key as stored that is not one is ErrBadKey for that user
// alone, wherever it is asked from, and is never replaced by the service.
func TestRemoteStoresAskTheService(t *testing.T) {
	ctx := context.Background()
	b := bustest.Start(t)
	whole := b.Keys.(*keys.Store)
	asm := remote(t, b, auth.Identity{Role: auth.RoleAssembler})
	reader := remote(t, b, auth.Identity{Role: auth.RoleReader})
	operator := remote(t, b, auth.Identity{Role: auth.RoleOperator})

	annID, _, err := asm.SealKey("acme", events.UserScope("ann"))
	if err != nil {
		t.Fatal(err)
	}
	if id, _, err := whole.SealKey("acme", events.UserScope("ann")); err != nil || id != annID {
		t.Fatalf("the bucket's key of ann = %s (%v), the service's %s", id, err, annID)
	}
	if _, _, err := asm.SealKey("globex", events.RecordScope("bob", "r1")); err != nil {
		t.Fatalf("a processor sealing globex's record key: %v", err)
	}
	if _, err := reader.OpenKey("acme", events.UserScope("ann"), annID); err != nil {
		t.Fatalf("the reader opening ann's key: %v", err)
	}
	// The reader never makes a key: it may not ask seal (the server
	// refuses; the store times out), and open of a key never made is erased.
	if _, _, err := reader.SealKey("acme", events.UserScope("cat")); !errors.Is(err, keys.ErrUnavailable) {
		t.Fatalf("the reader sealing: %v, want ErrUnavailable (refused by the server)", err)
	}
	if _, err := reader.OpenKey("acme", events.UserScope("cat"), "x"); !errors.Is(err, events.ErrErased) {
		t.Fatalf("the reader opening a key never made: %v", err)
	}
	if _, err := whole.OpenKey("acme", events.UserScope("cat"), "x"); !errors.Is(err, events.ErrErased) {
		t.Fatalf("a key was made for cat: %v", err)
	}

	// An event the assembler writes for ann, then withheld, reads as erased
	// (its key id is none); ann's real one opens.
	ev := &events.Event{ID: "e1", Tenant: "acme", User: "ann", Body: &events.UserMessage{Text: "hello"}}
	sealed, err := events.EncodeSealed(ev, asm, "")
	if err != nil {
		t.Fatal(err)
	}
	withheld, err := events.EncodeWithheld(&events.Event{ID: "e2", Tenant: "acme", User: "ann", Body: &events.UserMessage{Text: "hello"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := events.DecodeWith(sealed, reader); err != nil {
		t.Fatalf("ann's event: %v", err)
	}
	if _, err := events.DecodeWith(withheld, reader); !errors.Is(err, events.ErrErased) {
		t.Fatalf("a withheld event: %v, want ErrErased", err)
	}

	// Corrupted: one byte where bob's key is. ErrBadKey (bad input, reason
	// bad_key) for bob from every store; ann is untouched; the service
	// does not replace it.
	if _, _, err := whole.SealKey("acme", events.UserScope("bob")); err != nil {
		t.Fatal(err)
	}
	kv, err := b.JS.KeyValue(ctx, keys.Bucket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, "k._YWNtZQ.u._Ym9i", []byte{1}); err != nil { // acme's bob
		t.Fatal(err)
	}
	whole.Forget("acme", "bob")
	for name, s := range map[string]*keys.Store{"the bucket's": whole, "the assembler's": asm, "the reader's": reader} {
		var err error
		if s == reader {
			_, err = s.OpenKey("acme", events.UserScope("bob"), "x")
		} else {
			_, _, err = s.SealKey("acme", events.UserScope("bob"))
		}
		if !errors.Is(err, keys.ErrBadKey) || !errors.Is(err, events.ErrBadInput) || events.ReasonOf(err) != events.ReasonBadKey {
			t.Errorf("%s store on bob's bad key: %v (reason %q), want keys.ErrBadKey", name, err, events.ReasonOf(err))
		}
	}
	if e, err := kv.Get(ctx, "k._YWNtZQ.u._Ym9i"); err != nil || len(e.Value()) != 1 {
		t.Fatalf("bob's bad key was replaced: %v", err)
	}
	if _, _, err := asm.SealKey("acme", events.UserScope("ann")); err != nil {
		t.Fatalf("ann's key after bob's went bad: %v", err)
	}

	// The operator erases through the service: bob's bad key and ann's.
	for _, user := range []string{"bob", "ann"} {
		if n, err := operator.Erase(ctx, "acme", user); err != nil || n != 1 {
			t.Fatalf("the operator erasing %s: %d, %v", user, n, err)
		}
	}
	whole.Forget("acme", "ann")
	if _, err := whole.OpenKey("acme", events.UserScope("ann"), annID); !errors.Is(err, events.ErrErased) {
		t.Fatalf("ann's erased key opens: %v", err)
	}
	if _, err := events.DecodeWith(sealed, whole); !errors.Is(err, events.ErrErased) {
		t.Fatalf("ann's event after the erasure: %v", err)
	}
	// A processor may not erase.
	if _, err := asm.Erase(ctx, "acme", "ann"); !errors.Is(err, keys.ErrUnavailable) {
		t.Fatalf("a processor erasing: %v, want ErrUnavailable (refused by the server)", err)
	}
}

// TestBucketRefusesRollups: a bucket Open creates (or opens with Create:
// the admin's serve and setup) refuses a Nats-Rollup header even from the
// admin, so no publish can purge every tenant's keys
// at once; the keys stay.
func TestBucketRefusesRollups(t *testing.T) {
	ctx := context.Background()
	b := bustest.Start(t)
	// A bucket made before took them: the admin's Open with Create turns
	// them off.
	st, err := b.JS.Stream(ctx, "KV_"+keys.Bucket)
	if err != nil {
		t.Fatal(err)
	}
	sc := st.CachedInfo().Config
	sc.AllowRollup = true
	if _, err := b.JS.UpdateStream(ctx, sc); err != nil {
		t.Fatal(err)
	}
	if _, err := keys.Open(ctx, keys.Config{JS: b.JS, Create: true}); err != nil {
		t.Fatal(err)
	}
	id, _, err := b.Keys.SealKey("acme", events.UserScope("ann"))
	if err != nil {
		t.Fatal(err)
	}
	m := nats.NewMsg("$KV." + keys.Bucket + ".k._YWNtZQ.u._YW5u")
	m.Data = make([]byte, 48)
	m.Header.Set(jetstream.MsgRollup, jetstream.MsgRollupAll)
	if _, err := b.JS.PublishMsg(ctx, m); err == nil {
		t.Fatal("the bucket took a rollup")
	}
	check, err := keys.Open(ctx, keys.Config{JS: b.JS})
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := check.SealKey("acme", events.UserScope("ann")); err != nil || got != id {
		t.Fatalf("ann's key after the rollup: %s (%v), was %s", got, err, id)
	}
}

// TestServiceErasesTheUserLessScopeByName: the operator erases a tenant's
// user-less scope through the service by naming it (user_less), which
// destroys that key alone (a user's and another tenant's user-less key
// still open); an erase with an empty user is refused as before, as is
// one naming the user-less scope and a user.
func TestServiceErasesTheUserLessScopeByName(t *testing.T) {
	ctx := context.Background()
	b := bustest.Start(t)
	whole := b.Keys.(*keys.Store)
	operator := remote(t, b, auth.Identity{Role: auth.RoleOperator})
	ids := map[string]string{}
	for _, k := range []struct{ tenant, user string }{{"acme", ""}, {"acme", "ann"}, {"globex", ""}} {
		id, _, err := whole.SealKey(k.tenant, events.UserScope(k.user))
		if err != nil {
			t.Fatal(err)
		}
		ids[k.tenant+"/"+k.user] = id
	}
	if _, err := operator.Erase(ctx, "acme", ""); !errors.Is(err, events.ErrBadInput) {
		t.Errorf("an erase naming no user: %v, want refused", err)
	}
	if n, err := operator.EraseUserLess(ctx, "acme"); err != nil || n != 1 {
		t.Fatalf("the operator erasing acme's user-less scope: %d, %v", n, err)
	}
	for _, k := range []string{"acme/", "acme/ann", "globex/"} {
		tenant, user, _ := strings.Cut(k, "/")
		whole.Forget(tenant, user)
		_, err := whole.OpenKey(tenant, events.UserScope(user), ids[k])
		if erased := errors.Is(err, events.ErrErased); erased != (k == "acme/") {
			t.Errorf("%s's key after the erasure: %v", k, err)
		}
	}
}

// TestARemoteStoreNeverMakesAKeyItself: when the keys service answers a
// request to make a key with "no key" (it never should: it makes the key
// and answers with it), the remote store that asked has no bucket to make
// one in and says the service is unavailable, instead of reaching for a
// bucket it does not have. A producer's publish once crashed that way
// against a cluster, where a replica's read missed the key just made.
func TestARemoteStoreNeverMakesAKeyItself(t *testing.T) {
	b, err := bus.Open(context.Background(), bus.Config{DataDir: t.TempDir(), Listen: "127.0.0.1:-1", Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	// A responder on the service's subject that says "no key" to all.
	sub, err := b.JS.Conn().Subscribe(keys.ServiceSubject(keys.VerbSeal, "acme"), func(m *nats.Msg) {
		r := nats.NewMsg(m.Reply)
		r.Header.Set(micro.ErrorCodeHeader, keys.CodeNoKey)
		r.Header.Set(micro.ErrorHeader, "no key")
		m.RespondMsg(r)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Unsubscribe() })
	asm := remote(t, b, auth.Identity{Role: auth.RoleAssembler})
	if _, _, err := asm.SealKey("acme", events.UserScope("ann")); !errors.Is(err, keys.ErrUnavailable) {
		t.Fatalf("sealing when the service gives no key: %v, want ErrUnavailable", err)
	}
}
