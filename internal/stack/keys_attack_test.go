package stack

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/jstest"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/internal/logread"
)

// The hostile tenant's attacks on the data keys (docs/security.md), through
// a real embedded server with the real auth material, from the clients the
// attacks came from: the stock nats CLI with a producer's creds, and
// forging nats.go clients of each role.

// keyName is the bucket key of a tenant's user (keys.name's scheme).
func keyName(tenant, user string) string {
	enc := func(s string) string { return "_" + base64.RawURLEncoding.EncodeToString([]byte(s)) }
	return "k." + enc(tenant) + ".u." + enc(user)
}

// natsCLI runs the stock nats CLI as id against b and returns its output
// and error.
func natsCLI(t *testing.T, b *bus.Bus, id auth.Identity, stdin []byte, args ...string) ([]byte, error) {
	t.Helper()
	cli := jstest.NatsCLI(t)
	cmd := exec.Command(cli, append([]string{"--server", b.ClientURL(), "--creds", bustest.Creds(t, b, id),
		"--inbox-prefix", id.InboxPrefix(), "--timeout", "1s"}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	return cmd.CombinedOutput()
}

// roleConn is a forging client: a connection with id's credentials that
// records the server's permission violations.
type roleConn struct {
	*nats.Conn
	mu   sync.Mutex
	errs []error
}

func dialAs(t *testing.T, b *bus.Bus, id auth.Identity) *roleConn {
	t.Helper()
	opts, err := b.UserOptions(id)
	if err != nil {
		t.Fatal(err)
	}
	rc := &roleConn{}
	nc, err := nats.Connect(b.ClientURL(), append(opts, nats.Name("forger-"+id.String()), nats.NoCallbacksAfterClientClose(),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			rc.mu.Lock()
			rc.errs = append(rc.errs, err)
			rc.mu.Unlock()
		}))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	rc.Conn = nc
	return rc
}

// refused reports whether the server refused a publish to subject (the
// violation arrives before the flush's pong; the handler runs a little
// later).
func (rc *roleConn) refused(t *testing.T, subject string) bool {
	t.Helper()
	return rc.violated(t, `Publish to "`+subject+`"`)
}

// violated reports whether the server reported a permission violation
// naming want (`Publish to "s"`, `Subscription to "s"`).
func (rc *roleConn) violated(t *testing.T, want string) bool {
	t.Helper()
	if err := rc.Flush(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		rc.mu.Lock()
		for _, err := range rc.errs {
			if errors.Is(err, nats.ErrPermissionViolation) && strings.Contains(err.Error(), want) {
				rc.mu.Unlock()
				return true
			}
		}
		rc.mu.Unlock()
	}
	return false
}

// keyMsgs is how many messages the key bucket's stream holds.
func keyMsgs(ctx context.Context, t *testing.T, b *bus.Bus) uint64 {
	t.Helper()
	st, err := b.JS.Stream(ctx, "KV_"+keys.Bucket)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

// TestAttackKeysBucketIsTheKeysServices: acme's producer, with the stock
// nats CLI, publishes on its own user's key subject with Nats-Rollup: all,
// and a 1-byte value there; direct-gets the keys with a literal '>' and
// '*'; asks the keys service for globex's keys. Each processor role's
// forging client publishes over globex's user key and erases it. Attacker:
// every one is refused by the server's permissions (the service refuses a
// wildcard token it is sent with ErrRefused). Victims: every tenant's keys
// are the same keys afterwards, and the bucket holds what it held; a
// producer still gets its own users' keys from the service.
func TestAttackKeysBucketIsTheKeysServices(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := bustest.Start(t)
	admin := b.Keys.(*keys.Store)
	ids := map[string]string{}
	for _, tu := range [][2]string{{"acme", "ann"}, {"acme", "bob"}, {"globex", "bob"}} {
		id, _, err := admin.SealKey(tu[0], events.UserScope(tu[1]))
		if err != nil {
			t.Fatal(err)
		}
		ids[tu[0]+"/"+tu[1]] = id
	}
	if _, _, err := admin.SealKey("acme", events.RecordScope("ann", "r1")); err != nil {
		t.Fatal(err)
	}
	before := keyMsgs(ctx, t, b)
	acme := auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}
	annKey := "$KV." + keys.Bucket + "." + keyName("acme", "ann")

	// The stock CLI: a rollup on its own user's key, a 1-byte key.
	for _, args := range [][]string{
		{"pub", "--force-stdin", "--header", "Nats-Rollup:all", annKey},                // core, as the attack was
		{"pub", "--jetstream", "--force-stdin", "--header", "Nats-Rollup:all", annKey}, // acknowledged
		{"pub", "--jetstream", "--force-stdin", annKey},                                // a 1-byte key
	} {
		out, err := natsCLI(t, b, acme, []byte{1}, args...)
		if err == nil && !bytes.Contains(out, []byte("Permissions Violation")) {
			t.Errorf("acme's nats %s was not refused:\n%s", strings.Join(args, " "), out)
		}
	}
	// Direct gets with a literal wildcard, by the CLI and by a forging
	// client (which sees the server's refusal itself).
	fc := dialAs(t, b, acme)
	for _, tok := range []string{">", "*"} {
		subject := "$JS.API.DIRECT.GET.KV_" + keys.Bucket + ".$KV." + keys.Bucket + ".k._" + base64.RawURLEncoding.EncodeToString([]byte("acme")) + ".u." + tok
		// The CLI prints the server's refusal (and exits 0).
		if out, _ := natsCLI(t, b, acme, nil, "req", subject, ""); !bytes.Contains(out, []byte("Permissions Violation")) {
			t.Errorf("acme's nats req %s was not refused:\n%s", subject, out)
		}
		if err := fc.PublishRequest(subject, fc.NewRespInbox(), nil); err != nil {
			t.Fatal(err)
		}
		if !fc.refused(t, subject) {
			t.Errorf("acme's direct get %s was not refused by the server", subject)
		}
	}
	// The keys service: another tenant's subject is refused by the server;
	// a wildcard tenant token is not acme's either.
	for _, subject := range []string{keys.ServiceSubject(keys.VerbUser, "globex"), keys.ServiceSubject(keys.VerbOpen, "globex"),
		keys.ServiceSubject(keys.VerbSeal, "acme"), keys.ServiceSubject(keys.VerbErase, "acme"),
		keys.ServiceSubject(keys.VerbUser, "*"), keys.ServiceSubject(keys.VerbUser, ">")} {
		if out, _ := natsCLI(t, b, acme, nil, "req", subject, `{"user":"bob"}`); !bytes.Contains(out, []byte("Permissions Violation")) {
			t.Errorf("acme's nats req %s was not refused:\n%s", subject, out)
		}
		if err := fc.PublishRequest(subject, fc.NewRespInbox(), []byte(`{"user":"bob"}`)); err != nil {
			t.Fatal(err)
		}
		if !fc.refused(t, subject) {
			t.Errorf("acme's request on %s was not refused by the server", subject)
		}
	}
	// Its own tenant's store asks for its own users' keys, and gets the
	// same key; another tenant's is out of its scope.
	pjs, err := jetstream.New(fc.Conn)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := keys.Open(ctx, keys.Config{JS: pjs, Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	if id, _, err := ps.SealKey("acme", events.UserScope("ann")); err != nil || id != ids["acme/ann"] {
		t.Fatalf("acme's store: ann's key %s, %v; want %s", id, err, ids["acme/ann"])
	}
	if _, _, err := ps.SealKey("globex", events.UserScope("bob")); !errors.Is(err, keys.ErrOutOfScope) {
		t.Fatalf("acme's store sealed for globex: %v", err)
	}

	// Each processor role: forging clients publish over globex's bob and
	// delete the bucket's messages.
	bobKey := "$KV." + keys.Bucket + "." + keyName("globex", "bob")
	for _, r := range []auth.Role{auth.RoleAssembler, auth.RoleExecutor, auth.RoleVerifier, auth.RoleMemory, auth.RoleRuns, auth.RoleOperator, auth.RoleReader} {
		id := auth.Identity{Role: r}
		rc := dialAs(t, b, id)
		js, err := jetstream.New(rc.Conn)
		if err != nil {
			t.Fatal(err)
		}
		pctx, pcancel := context.WithTimeout(ctx, 2*time.Second)
		_, err = js.Publish(pctx, bobKey, bytes.Repeat([]byte{7}, 48))
		pcancel()
		if err == nil || !rc.refused(t, bobKey) {
			t.Errorf("%s overwrote globex's bob's key (%v)", id, err)
		}
		for _, subject := range []string{"$JS.API.STREAM.MSG.DELETE.KV_" + keys.Bucket, "$JS.API.DIRECT.GET.KV_" + keys.Bucket,
			"$JS.API.STREAM.INFO.KV_" + keys.Bucket} {
			if err := rc.PublishRequest(subject, rc.NewRespInbox(), []byte(`{"seq":1}`)); err != nil {
				t.Fatal(err)
			}
			if !rc.refused(t, subject) {
				t.Errorf("%s may publish to %s", id, subject)
			}
		}
		if r == auth.RoleOperator || r == auth.RoleReader {
			continue
		}
		// A processor may ask the service for any tenant's key; a
		// wildcard in the tenant or the scope is refused by the service.
		for _, q := range []struct{ verb, tenant, scope string }{
			{keys.VerbOpen, ">", events.UserScope("bob")}, {keys.VerbSeal, "*", events.UserScope("bob")},
			{keys.VerbSeal, "globex", "u/*"}, {keys.VerbOpen, "globex", "u/>"}, {keys.VerbOpen, "globex", "r/bob/>"},
		} {
			data, _ := json.Marshal(keys.Request{Scope: q.scope})
			m, err := rc.Request(keys.ServiceSubject(q.verb, q.tenant), data, 5*time.Second)
			if err != nil {
				t.Fatalf("%s asking %s %s %s: %v", id, q.verb, q.tenant, q.scope, err)
			}
			if code := m.Header.Get(micro.ErrorCodeHeader); code != keys.CodeRefused {
				t.Errorf("%s asking %s of tenant %s scope %s: code %q (%d bytes), want %s", id, q.verb, q.tenant, q.scope, code, len(m.Data), keys.CodeRefused)
			}
		}
	}

	// Victims: the same keys, the same messages.
	if after := keyMsgs(ctx, t, b); after != before {
		t.Errorf("the key bucket held %d messages, now %d", before, after)
	}
	check, err := keys.Open(ctx, keys.Config{JS: b.JS})
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range ids {
		tenant, user, _ := strings.Cut(k, "/")
		if id, _, err := check.SealKey(tenant, events.UserScope(user)); err != nil || id != want {
			t.Errorf("%s's key is %s (%v), was %s", k, id, err, want)
		}
	}
}

// TestBadStoredKeyIsThatUsersOutcome: ann's key as stored is one byte (the
// admin writes it, as corruption would). Attacker's effect: ann's raw
// events are copied with their bodies withheld and ingest records each
// copy as rejected bad_key; a producer sealing at the edge for ann gets
// keys.ErrBadKey. Victims: bob's events of the same tenant are decided as
// ever, serve's stack keeps running, stops cleanly and starts again over
// the same data (it crashed on every restart), and goes on deciding.
func TestBadStoredKeyIsThatUsersOutcome(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	views := filepath.Join(dir, "views")
	start := func() (*bus.Bus, *Stack, chan error) {
		b, err := bus.OpenWithKeys(ctx, bus.Config{DataDir: dir, Listen: "127.0.0.1:-1", Name: "keys-test"})
		if err != nil {
			t.Fatal(err)
		}
		s, err := Start(ctx, Config{Bus: b, ViewsDir: views, Components: []string{assembler.IngestName, assembler.Name}})
		if err != nil {
			b.Close()
			t.Fatalf("the stack did not start with a bad key stored: %v", err)
		}
		done := make(chan error, 1)
		go func() { done <- s.Wait() }()
		return b, s, done
	}
	b, s, done := start()
	kv, err := b.JS.KeyValue(ctx, keys.Bucket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, keyName("acme", "ann"), []byte{1}); err != nil {
		t.Fatal(err)
	}
	acme := auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}
	producer := func(b *bus.Bus) *client.Client {
		c, err := client.Connect(ctx, client.WithURL(b.ClientURL()), client.WithCredsFile(bustest.Creds(t, b, acme)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	stream := func(file string) []byte {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "streams", file))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	pc := producer(b)
	// At the edge: sealing for ann is a typed error the producer sees.
	if _, err := pc.Publish(ctx, bytes.NewReader(stream("openai-chat-deepseek-weather.jsonl")), client.WithStream(client.Stream{
		Tenant: "acme", ID: "edge-ann", Format: "openai-chat", User: "ann"})); !errors.Is(err, keys.ErrBadKey) {
		t.Fatalf("a producer sealing for ann: %v, want keys.ErrBadKey", err)
	}
	raw := func(c *client.Client, id, user, file, format string) {
		t.Helper()
		if _, err := c.Publish(ctx, bytes.NewReader(stream(file)), client.WithRaw(), client.WithStream(client.Stream{
			Tenant: "acme", ID: id, Format: format, User: user, Raw: true})); err != nil {
			t.Fatalf("raw stream %s of %s: %v", id, user, err)
		}
	}
	raw(pc, "s-ann", "ann", "openai-responses-azure-weather.jsonl", "openai-responses")
	raw(pc, "s-bob", "bob", "openai-chat-deepseek-weather.jsonl", "openai-chat")

	// bob's call is decided (sealed under bob's key, readable); ann's
	// raw events cannot be sealed: ingest refuses each copy bad_key (and
	// keeps her clear raw events, for TS_IN's retention to remove).
	decided := func(b *bus.Bus, user string, n int) {
		t.Helper()
		var got int
		for deadline := time.Now().Add(time.Minute); got < n && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			got = 0
			err := b.Read(ctx, logread.Config{Stream: events.StreamCalls, Filter: "ts.call.acme.>"}, func(batch []*logread.Msg) error {
				for _, m := range batch {
					if ev, err := events.DecodeAtWith(m.Subject, m.Data, b.Keys); err == nil && ev.User == user {
						got++
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		if got < n {
			t.Fatalf("%d decisions on %s's calls, want %d", got, user, n)
		}
	}
	decided(b, "bob", 1)
	ing, _ := s.Runner(assembler.IngestName)
	var annSeqs []uint64
	err = b.Read(ctx, logread.Config{Stream: events.StreamIn, Filter: "ts.raw.acme.>"}, func(batch []*logread.Msg) error {
		for _, m := range batch {
			if env, err := events.Envelope(m.Data); err == nil && env.User == "ann" {
				annSeqs = append(annSeqs, m.Seq)
			}
		}
		return nil
	})
	if err != nil || len(annSeqs) == 0 {
		t.Fatalf("ann's sealed raw events: %d, %v", len(annSeqs), err)
	}
	for _, seq := range annSeqs {
		if code := rejectionCode(ctx, t, ing, seq); code != events.ReasonBadKey {
			t.Fatalf("ingest on ann's sealed raw event %d: rejection %q, want %q", seq, code, events.ReasonBadKey)
		}
	}
	select {
	case err := <-done:
		t.Fatalf("the stack stopped: %v", err)
	default:
	}

	// A restart over the same data: it starts, and goes on.
	s.Stop()
	if err := <-done; err != nil {
		t.Fatalf("the stack stopped with %v", err)
	}
	pc.Close()
	b.Close()
	b, s, done = start()
	defer b.Close()
	defer s.Stop()
	raw(producer(b), "s-bob-2", "bob", "anthropic-weather.jsonl", "anthropic")
	decided(b, "bob", 2)
	select {
	case err := <-done:
		t.Fatalf("the stack stopped after the restart: %v", err)
	default:
	}
}
