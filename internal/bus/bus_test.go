package bus_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
)

// The tests of package bus run a real embedded nats-server in a temporary
// directory (bus.Open starts it), as serve does: no mock stands in for the
// server, its streams or its authentication.

// open opens a bus on an embedded server in dir, closed when t ends.
func open(t *testing.T, cfg bus.Config) *bus.Bus {
	t.Helper()
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:-1"
	}
	b, err := bus.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestOpenMakesTheLogsStreams: the log is one stream per family of
// subjects with the fields the bus manages (subjects, duplicate window,
// message size, direct gets, atomic batches, one replica on an embedded
// server, the raw retention on TS_IN only).
func TestOpenMakesTheLogsStreams(t *testing.T) {
	ctx := ctxT(t)
	b := open(t, bus.Config{DataDir: t.TempDir(), DuplicateWindow: 3 * time.Minute, RawRetention: 2 * time.Hour})
	for _, name := range events.Streams {
		s := b.Stream(name)
		if s == nil {
			t.Fatalf("no stream %s", name)
		}
		info, err := s.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		c := info.Config
		if !slices.Equal(c.Subjects, events.StreamSubjects[name]) || c.Duplicates != 3*time.Minute || c.MaxMsgSize != 8<<20 ||
			!c.AllowDirect || !c.AllowAtomicPublish || c.Replicas != 1 || c.Storage != jetstream.FileStorage {
			t.Errorf("%s: %+v", name, c)
		}
		wantAge := time.Duration(0)
		if name == events.StreamIn {
			wantAge = 2 * time.Hour
		}
		if c.MaxAge != wantAge {
			t.Errorf("%s: max age %s, want %s", name, c.MaxAge, wantAge)
		}
	}
	if b.Replicas() != 1 || b.Partitions() != 0 || !b.Embedded() {
		t.Errorf("replicas %d, partitions %d, embedded %v", b.Replicas(), b.Partitions(), b.Embedded())
	}
	if _, err := b.LastSeq(ctx, "NOPE"); !errors.Is(err, bus.ErrInvalidConfig) {
		t.Errorf("LastSeq of an unknown stream: %v", err)
	}
}

// TestReopenKeepsWhatTheOperatorSet: opening the log again writes only
// the managed fields back (a changed duplicate window is restored) and
// leaves the others as an operator set them (a message limit stays); the
// log's messages stay.
func TestReopenKeepsWhatTheOperatorSet(t *testing.T) {
	ctx := ctxT(t)
	dir := t.TempDir()
	b, err := bus.Open(ctx, bus.Config{DataDir: dir, Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	subj, _ := events.ResultSubject("acme", "c1")
	if _, err := b.Publish(ctx, subj, &events.Event{ID: "e1", Tenant: "acme", At: 1, Body: &events.CallFailed{Name: "weather", Message: "x"}}); err != nil {
		t.Fatal(err)
	}
	info, err := b.Stream(events.StreamOut).Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := info.Config
	c.MaxMsgs, c.Duplicates = 1000, time.Minute
	if _, err := b.JS.UpdateStream(ctx, c); err != nil {
		t.Fatal(err)
	}
	b.Close()

	b = open(t, bus.Config{DataDir: dir})
	info, err = b.Stream(events.StreamOut).Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Config.MaxMsgs != 1000 || info.Config.Duplicates != 10*time.Minute || info.State.Msgs != 1 {
		t.Errorf("after reopening: max msgs %d (want the operator's 1000), duplicates %s (want the managed 10m), %d messages (want 1)",
			info.Config.MaxMsgs, info.Config.Duplicates, info.State.Msgs)
	}
}

// TestOpenRefusesBadConfig: each unusable setting is ErrInvalidConfig
// before anything is started; a non-loopback address without TLS says
// how to give TLS.
func TestOpenRefusesBadConfig(t *testing.T) {
	ctx := ctxT(t)
	for _, c := range []struct {
		name string
		cfg  bus.Config
		msg  string
	}{
		{"negative replicas", bus.Config{Replicas: -1}, "replicas"},
		{"too many partitions", bus.Config{Partitions: bus.PartitionsMax + 1}, "partitions"},
		{"no port", bus.Config{Listen: "127.0.0.1"}, "listen"},
		{"plaintext on the network", bus.Config{Listen: "0.0.0.0:0"}, "--tls-cert"},
		{"bad sync", bus.Config{Listen: "127.0.0.1:-1", Sync: "sometimes"}, "sync"},
	} {
		c.cfg.DataDir = t.TempDir()
		b, err := bus.Open(ctx, c.cfg)
		if err == nil {
			b.Close()
			t.Errorf("%s: opened", c.name)
			continue
		}
		if !errors.Is(err, bus.ErrInvalidConfig) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want ErrInvalidConfig naming %q", c.name, err, c.msg)
		}
	}
}

// TestOldLayoutIsRefused: a server holding the single-stream log of the
// earlier layout is refused with ErrOldLayout, and nothing is created
// beside it.
func TestOldLayoutIsRefused(t *testing.T) {
	ctx := ctxT(t)
	dir := t.TempDir()
	b, err := bus.Open(ctx, bus.Config{DataDir: dir, Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range events.Streams {
		if err := b.JS.DeleteStream(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.JS.CreateStream(ctx, jetstream.StreamConfig{Name: "TOOLSTREAM", Subjects: []string{"ts.>"}}); err != nil {
		t.Fatal(err)
	}
	b.Close()
	b, err = bus.Open(ctx, bus.Config{DataDir: dir, Listen: "127.0.0.1:-1"})
	if err == nil {
		b.Close()
		t.Fatal("a log of the old layout was opened")
	}
	if !errors.Is(err, bus.ErrOldLayout) || !strings.Contains(err.Error(), "toolstream migrate") {
		t.Fatalf("%v, want ErrOldLayout saying what to run", err)
	}
}

// TestPublishStoresOnce: the same event published again is acknowledged
// as a duplicate of the stored one and stored once. Another event under
// an id the log already holds for another message (another subject) is
// ErrDuplicateNotOurs, not a silent success, and the log holds only the
// first, where ids are plain (TS_GW, the admin's alone); where they are
// tagged (every other stream: events.MsgID, events.OwnedMsgID) the tag
// names the subject, so the other subject's event is stored.
func TestPublishStoresOnce(t *testing.T) {
	ctx := ctxT(t)
	b := open(t, bus.Config{DataDir: t.TempDir()})
	weather, _ := events.CallSubject("acme", "weather")
	refund, _ := events.CallSubject("acme", "refund")
	ev := func() *events.Event {
		return &events.Event{ID: "completed:acme/r1/i1", Tenant: "acme", Response: "r1", Item: "i1", At: 1,
			Body: &events.CallCompleted{Name: "weather", Arguments: []byte(`{"city":"Paris"}`)}}
	}
	first, err := b.Publish(ctx, weather, ev())
	if err != nil || first.Duplicate {
		t.Fatalf("first publish: %+v %v", first, err)
	}
	again, err := b.Publish(ctx, weather, ev())
	if err != nil || !again.Duplicate || again.Sequence != first.Sequence {
		t.Fatalf("the same event again: %+v %v, want a duplicate of seq %d", again, err, first.Sequence)
	}
	if other, err := b.Publish(ctx, refund, ev()); err != nil || other.Duplicate {
		t.Fatalf("the same id on another call subject: %+v %v, want stored (tagged ids name their subject)", other, err)
	}
	s1, _ := events.GatewaySubject("acme", "chat", "s1")
	s2, _ := events.GatewaySubject("acme", "chat", "s2")
	gw, err := b.Publish(ctx, s1, ev())
	if err != nil || gw.Duplicate {
		t.Fatalf("first publish on %s: %+v %v", s1, gw, err)
	}
	if _, err := b.Publish(ctx, s2, ev()); !errors.Is(err, bus.ErrDuplicateNotOurs) {
		t.Fatalf("another message under a stored plain id: %v, want ErrDuplicateNotOurs", err)
	}
	if last, err := b.LastSeq(ctx, events.StreamGateway); err != nil || last != gw.Sequence {
		t.Fatalf("last sequence %d (%v), want %d: one message stored", last, err, gw.Sequence)
	}
}

// TestReadEventsAcrossStreams: ReadEvents returns the events on the
// subjects asked for, stream by stream in events.Streams order, each in
// its stream's order, and skips what does not decode or names another
// tenant than its subject.
func TestReadEventsAcrossStreams(t *testing.T) {
	ctx := ctxT(t)
	b := open(t, bus.Config{DataDir: t.TempDir()})
	result, _ := events.ResultSubject("acme", "c1")
	call, _ := events.CallSubject("acme", "weather")
	other, _ := events.CallSubject("globex", "weather")
	pub := func(subj, id, tenant string, body events.Body) {
		t.Helper()
		if _, err := b.Publish(ctx, subj, &events.Event{ID: id, Tenant: tenant, At: 1, Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	pub(result, "r-1", "acme", &events.CallFailed{Name: "weather", Message: "x"})
	pub(call, "c-1", "acme", &events.CallCompleted{Name: "weather", Arguments: []byte(`{}`)})
	pub(call, "c-2", "acme", &events.CallCompleted{Name: "weather", Arguments: []byte(`{}`)})
	pub(other, "c-3", "acme", &events.CallCompleted{Name: "weather", Arguments: []byte(`{}`)}) // names another tenant than its subject
	if _, err := b.JS.Publish(ctx, call, []byte("not an event")); err != nil {
		t.Fatal(err)
	}
	evs, err := b.ReadEvents(ctx, []string{events.AllCalls, "ts.result.>"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, ev := range evs {
		ids = append(ids, ev.ID)
	}
	want := []string{"c-1", "c-2", "r-1"} // TS_CALLS before TS_OUT
	if events.StreamCalls != "TS_CALLS" || !slices.Equal(ids, want) {
		t.Fatalf("read %v, want %v", ids, want)
	}
}

// TestSealedInTheLogOpenedOnRead: with the data keys (OpenWithKeys), an
// event holding personal data is in the log only sealed — its text is in
// no stored byte — and ReadEvents opens it again.
func TestSealedInTheLogOpenedOnRead(t *testing.T) {
	ctx := ctxT(t)
	b, err := bus.OpenWithKeys(ctx, bus.Config{DataDir: t.TempDir(), Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Keys == nil {
		t.Fatal("OpenWithKeys opened no keys")
	}
	body := &events.UserMessage{ID: "m1", Text: "my passport number is X1234567"}
	if !events.Sealed(body.Kind()) {
		t.Fatalf("%s is not a sealed kind: pick one that is", body.Kind())
	}
	subj, _ := events.MemorySubject("acme", "alice")
	ack, err := b.Publish(ctx, subj, &events.Event{ID: "mem:acme/alice/1", Tenant: "acme", User: "alice", At: 1, Body: body})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := b.Stream(events.StreamMemory).GetMsg(ctx, ack.Sequence)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw.Data, []byte("X1234567")) {
		t.Fatal("the text is readable in the log")
	}
	evs, err := b.ReadEvents(ctx, []string{subj})
	if err != nil || len(evs) != 1 {
		t.Fatalf("read %d events: %v", len(evs), err)
	}
	if got, ok := evs[0].Body.(*events.UserMessage); !ok || got.Text != body.Text {
		t.Fatalf("read back %#v", evs[0].Body)
	}
}

// TestPartitionsMapModelSubjects: with Partitions the model stream stores
// each model subject with a partition token, every event of one response
// in one partition and the tenant still the third token; opening with
// another number changes the mapping in the stream.
func TestPartitionsMapModelSubjects(t *testing.T) {
	ctx := ctxT(t)
	dir := t.TempDir()
	b, err := bus.Open(ctx, bus.Config{DataDir: dir, Listen: "127.0.0.1:-1", Partitions: 4})
	if err != nil {
		t.Fatal(err)
	}
	if b.Partitions() != 4 {
		t.Fatalf("partitions %d", b.Partitions())
	}
	parts := map[string]string{} // response → partition token
	for i, resp := range []string{"r1", "r2", "r3", "r1", "r2", "r3"} {
		subj, _ := events.ModelSubject("acme", resp, "i"+string(rune('a'+i)))
		ack, err := b.Publish(ctx, subj, &events.Event{ID: "m" + string(rune('a'+i)), Tenant: "acme", Response: resp, At: 1, Body: &events.ArgumentsDone{}})
		if err != nil {
			t.Fatal(err)
		}
		m, err := b.Stream(events.StreamModel).GetMsg(ctx, ack.Sequence)
		if err != nil {
			t.Fatal(err)
		}
		tok := strings.Split(m.Subject, ".")
		if len(tok) != 6 || tok[2] != "acme" || !strings.HasPrefix(m.Subject, subj+".") || tok[5] < "0" || tok[5] > "3" {
			t.Fatalf("%s stored as %s", subj, m.Subject)
		}
		if p, seen := parts[resp]; seen && p != tok[5] {
			t.Fatalf("response %s in partitions %s and %s", resp, p, tok[5])
		}
		parts[resp] = tok[5]
	}
	b.Close()
	b = open(t, bus.Config{DataDir: dir, Partitions: 8})
	if b.Partitions() != 8 {
		t.Fatalf("reopened with 8: partitions %d", b.Partitions())
	}
}

// TestOnlyKnownIdentitiesConnect: the embedded server refuses a client
// without credentials (an attacker on the network: nats.go with no user
// gets an authorization error and the log is unchanged), and lets in an
// identity the bus's material issues (UserOptions).
func TestOnlyKnownIdentitiesConnect(t *testing.T) {
	ctx := ctxT(t)
	b := open(t, bus.Config{DataDir: t.TempDir()})
	before, err := b.LastSeq(ctx, events.StreamIn)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(b.ClientURL(), nats.MaxReconnects(0))
	if err == nil {
		nc.Close()
		t.Fatal("an anonymous client connected")
	}
	if !errors.Is(err, nats.ErrAuthorization) && !strings.Contains(strings.ToLower(err.Error()), "authorization") {
		t.Fatalf("anonymous client: %v, want an authorization error", err)
	}
	opts, err := b.UserOptions(auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	nc, err = nats.Connect(b.ClientURL(), opts...)
	if err != nil {
		t.Fatalf("acme's producer: %v", err)
	}
	nc.Close()
	if after, err := b.LastSeq(ctx, events.StreamIn); err != nil || after != before {
		t.Fatalf("the log changed: %d → %d (%v)", before, after, err)
	}
}

// TestOpenWithKeysByIdentity: the admin's bus makes the key bucket of an
// embedded server and reads it; a processor's (the executor's, over the
// network with its own credentials) reaches no bucket and asks the keys
// service, so what one seals the other opens; a producer's bus that only
// connects opens no keys.
func TestOpenWithKeysByIdentity(t *testing.T) {
	ctx := ctxT(t)
	admin, err := bus.OpenWithKeys(ctx, bus.Config{DataDir: t.TempDir(), Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	svc, nc, err := admin.StartKeys(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { svc.Stop(); nc.Close() }()

	as := func(id auth.Identity, connectOnly bool) (*bus.Bus, error) {
		opts, err := admin.UserOptions(id)
		if err != nil {
			t.Fatal(err)
		}
		return bus.OpenWithKeys(ctx, bus.Config{NATSURL: admin.ClientURL(), Options: opts, Identity: id, ConnectOnly: connectOnly})
	}
	exec, err := as(auth.Identity{Role: auth.RoleExecutor}, false)
	if err != nil {
		t.Fatalf("the executor's bus: %v", err)
	}
	defer exec.Close()
	if exec.Keys == nil {
		t.Fatal("the executor's bus has no keys")
	}
	subj, _ := events.MemorySubject("acme", "bob")
	body := &events.UserMessage{ID: "m1", Text: "call me on 0612345678"}
	if _, err := admin.Publish(ctx, subj, &events.Event{ID: "mem:acme/bob/1", Tenant: "acme", User: "bob", At: 1, Body: body}); err != nil {
		t.Fatal(err)
	}
	evs, err := exec.ReadEvents(ctx, []string{subj})
	if err != nil || len(evs) != 1 {
		t.Fatalf("the executor read %d events: %v", len(evs), err)
	}
	if got, ok := evs[0].Body.(*events.UserMessage); !ok || got.Text != body.Text {
		t.Fatalf("the executor read %#v: the keys service did not open it", evs[0].Body)
	}

	prod, err := as(auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}, true)
	if err != nil {
		t.Fatalf("acme's producer: %v", err)
	}
	defer prod.Close()
	if prod.Keys != nil {
		t.Fatal("a producer's connect-only bus opened keys")
	}
}
