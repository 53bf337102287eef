package stack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/erasure"
	"github.com/toolstream/toolstream/internal/keys"
)

// The hostile-tenant holes of the shared ingress streams (docs/security.md,
// "Known holes", A, B and C, found by review rev10), tried through the real
// server with the tenants' producer credentials, on the layout with
// per-tenant ingress streams (bus.Config.TenantStreams). On the shared
// layout each of these fails: the server evaluates the publish headers on
// the stream every tenant writes.

// tenantLayout starts a log with acme's and globex's ingress streams,
// ingest and the assembler, and returns acme's and globex's producer
// connections.
func tenantLayout(t *testing.T) (context.Context, *bus.Bus, jetstream.JetStream, jetstream.JetStream) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	b := bustest.StartTenants(t, "acme", "globex")
	startAssembler(ctx, t, b)
	return ctx, b, forger(t, b, "acme"), forger(t, b, "globex")
}

// publishNamed stores one model event on tenant's response resp under a
// message id of the producer's choosing.
func publishNamed(ctx context.Context, t *testing.T, js jetstream.JetStream, tenant, resp, msgID string) {
	t.Helper()
	subj, _ := events.ModelSubject(tenant, resp, "i1")
	m := nats.NewMsg(subj)
	m.Data = []byte("x")
	m.Header.Set(jetstream.MsgIDHeader, msgID)
	if _, err := js.PublishMsg(ctx, m); err != nil {
		t.Fatal(err)
	}
}

// TestProbesLearnNothingOfAnotherTenant (hole A): acme publishes on its
// own subject expecting a last sequence of globex's subjects (all of them,
// the response globex wrote, one it did not). Each probe is answered as the
// same probe naming a tenant that does not exist: acme learns neither that
// globex exists nor what it wrote.
func TestProbesLearnNothingOfAnotherTenant(t *testing.T) {
	ctx, b, acme, globex := tenantLayout(t)
	publishNamed(ctx, t, globex, "globex", "secret-7", "g1")
	last, err := b.LastSeq(ctx, events.StreamModel)
	if err != nil {
		t.Fatal(err)
	}
	own, _ := events.ModelSubject("acme", "probe", "i1")
	probe := func(filter, expect string) string {
		m := nats.NewMsg(own)
		m.Data = []byte("x")
		m.Header.Set("Nats-Expected-Last-Subject-Sequence", expect)
		m.Header.Set("Nats-Expected-Last-Subject-Sequence-Subject", filter)
		if _, err := acme.PublishMsg(ctx, m); err != nil {
			return err.Error()
		}
		return "stored"
	}
	for _, tc := range []struct{ filter, expect string }{
		{"ts.model.%s.>", "0"}, {"ts.model.%s.secret-7.>", "0"}, {"ts.model.%s.never.>", "0"},
		{"ts.model.%s.>", fmt.Sprint(last)}, {"ts.model.%s.secret-7.>", "1"}, {"ts.in.%s.>", "0"},
	} {
		got, want := probe(fmt.Sprintf(tc.filter, "globex"), tc.expect), probe(fmt.Sprintf(tc.filter, "nobody"), tc.expect)
		if got != want {
			t.Errorf("probe %s expecting %s: %q; the same probe of a tenant that does not exist: %q", fmt.Sprintf(tc.filter, "globex"), tc.expect, got, want)
		}
	}
}

// TestRefusalNamesNoOtherTenantsMessageID (hole B, its full form): globex's
// producer sets a message id naming itself and its file; acme's publish
// expecting another last message id is refused naming acme's own last id,
// never globex's.
func TestRefusalNamesNoOtherTenantsMessageID(t *testing.T) {
	ctx, _, acme, globex := tenantLayout(t)
	publishNamed(ctx, t, acme, "acme", "r1", "acme-own-1")
	publishNamed(ctx, t, globex, "globex", "secret-7", "edge:globex/payroll-export.jsonl/0/0")
	own, _ := events.ModelSubject("acme", "probe", "i1")
	m := nats.NewMsg(own)
	m.Data = []byte("x")
	m.Header.Set("Nats-Expected-Last-Msg-Id", "none")
	_, err := acme.PublishMsg(ctx, m)
	if err == nil {
		t.Fatal("a publish expecting a last message id that is not the last was stored")
	}
	if strings.Contains(err.Error(), "globex") || strings.Contains(err.Error(), "payroll") {
		t.Errorf("acme's refusal: %v: globex's message id shown to acme", err)
	}
	if !strings.Contains(err.Error(), "acme-own-1") {
		t.Errorf("acme's refusal: %v; want it to name acme's own last id", err)
	}
}

// batch publishes one message of batch id on subject as a request and
// returns the server's answer.
func batch(t *testing.T, js jetstream.JetStream, subject, id string, commit bool) string {
	t.Helper()
	m := nats.NewMsg(subject)
	m.Data = []byte("y")
	m.Header.Set("Nats-Batch-Id", id)
	m.Header.Set("Nats-Batch-Sequence", "1")
	if commit {
		m.Header.Set("Nats-Batch-Commit", "1")
	}
	r, err := js.Conn().RequestMsg(m, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return string(r.Data)
}

// TestOpenBatchesStallOnlyTheirTenant (hole C): acme's producer opens 60
// atomic batches on its own model subject and never commits them; globex's
// one-message batch is still stored, and reaches TS_MODEL (the server
// strips the batch headers when it sources it); acme's own next batch is
// what is refused: acme stalls only acme.
func TestOpenBatchesStallOnlyTheirTenant(t *testing.T) {
	ctx, b, acme, globex := tenantLayout(t)
	own, _ := events.ModelSubject("acme", "hog", "i1")
	for i := range 60 {
		m := nats.NewMsg(own)
		m.Data = []byte("x")
		m.Header.Set("Nats-Batch-Id", fmt.Sprintf("hog%03d", i))
		m.Header.Set("Nats-Batch-Sequence", "1")
		if err := acme.Conn().PublishMsg(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := acme.Conn().FlushTimeout(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	// acme's own batch is refused once its stream's slots are full (the
	// hog's 60 reached the server before it: one connection, in order).
	if r := batch(t, acme, own, "acme-next", true); !strings.Contains(r, `"error"`) {
		t.Errorf("acme's batch after its own 60 open ones: %s; want it refused", r)
	}
	subj, _ := events.ModelSubject("globex", "r1", "i1")
	if r := batch(t, globex, subj, "globex-1", true); strings.Contains(r, `"error"`) {
		t.Fatalf("globex's one-message batch after acme's 60 open ones: %s", r)
	}
	waitStored(ctx, t, b.Stream(events.StreamModel), func(m *jetstream.RawStreamMsg) bool {
		return strings.HasPrefix(m.Subject, subj) && m.Header.Get("Nats-Batch-Id") == ""
	})
}

// waitStored polls stream until a message matching ok is stored.
func waitStored(ctx context.Context, t *testing.T, st jetstream.Stream, ok func(*jetstream.RawStreamMsg) bool) {
	t.Helper()
	for seq := uint64(1); ; {
		m, err := st.GetMsg(ctx, seq)
		switch {
		case err == nil:
			if ok(m) {
				return
			}
			seq++
			continue
		case errors.Is(err, jetstream.ErrMsgNotFound):
			if info, ierr := st.Info(ctx); ierr == nil && seq < info.State.LastSeq {
				seq++ // deleted
				continue
			}
		default:
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no such message stored: %v", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// scan returns the messages stream holds (deleted ones skipped).
func scan(ctx context.Context, t *testing.T, st jetstream.Stream) []*jetstream.RawStreamMsg {
	t.Helper()
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []*jetstream.RawStreamMsg
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && seq > 0; seq++ {
		m, err := st.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// holding counts the messages of the log's ingress streams (TS_IN and
// acme's) whose data holds secret.
func holding(ctx context.Context, t *testing.T, b *bus.Bus, secret string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, name := range []string{events.StreamIn, bus.TenantStream("acme")} {
		st := b.Stream(name)
		if st == nil {
			t.Fatalf("no stream %s", name)
		}
		for _, m := range scan(ctx, t, st) {
			if bytes.Contains(m.Data, []byte(secret)) {
				out[name]++
			}
		}
	}
	return out
}

// noFileHolds fails t if a file under dir holds secret.
func noFileHolds(t *testing.T, dir string, secrets ...string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, s := range secrets {
			if bytes.Contains(data, []byte(s)) {
				t.Errorf("%s holds %q", path, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// publishRaw publishes lines verbatim on acme's raw stream s with
// acme's producer credentials, with headers (key, value pairs).
func publishRaw(ctx context.Context, t *testing.T, js jetstream.JetStream, stream string, lines [][]byte, headers ...string) {
	t.Helper()
	subj, _ := events.IngestSubject("acme", "openai-responses", stream)
	for _, line := range lines {
		m := nats.NewMsg(subj)
		m.Data = line
		for i := 0; i+1 < len(headers); i += 2 {
			m.Header.Set(headers[i], headers[i+1])
		}
		if _, err := js.PublishMsg(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
}

// TestIngestDeletesBothClearCopies (invariant 8): with tenant streams a
// raw event sits in the clear in TS_IN and in the tenant's stream; once
// ingest has sealed and normalised it (both calls decided), neither
// stream, nor any file of the server's store, holds it.
func TestIngestDeletesBothClearCopies(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	b := bustest.StartTenantsIn(t, dir, "acme")
	startAssembler(ctx, t, b)
	acme := forger(t, b, "acme")
	const noUserSecret, annSecret = "tenantraw-nouser-5c2e", "tenantraw-ann-91d0"
	publishRaw(ctx, t, acme, "s1", rawResponse("resp_s1", noUserSecret))
	publishRaw(ctx, t, acme, "s2", rawResponse("resp_s2", annSecret), erasure.HeaderUser, "ann")
	if _, err := bustest.WaitEvents(ctx, b, []string{"ts.call.acme.>"}, func(evs []*events.Event) bool { return len(evs) == 2 }); err != nil {
		t.Fatalf("the calls were not decided: %v", err)
	}
	for _, secret := range []string{noUserSecret, annSecret} {
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
			h := holding(ctx, t, b, secret)
			if len(h) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("clear copies of %q left: %v", secret, h)
			}
		}
	}
	noFileHolds(t, dir, noUserSecret, annSecret)
}

// TestErasureDeletesBothClearCopies (invariant 8): erasing a user deletes
// the user's raw events still in the clear from TS_IN and from the
// tenant's stream, and no other's.
func TestErasureDeletesBothClearCopies(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	b := bustest.StartTenantsIn(t, dir, "acme") // no ingest: the raw events stay in the clear
	acme := forger(t, b, "acme")
	const otherSecret, annSecret = "tenanterase-other-33aa", "tenanterase-ann-7e01"
	publishRaw(ctx, t, acme, "s1", [][]byte{[]byte(`{"q":"` + otherSecret + `"}`)})
	publishRaw(ctx, t, acme, "s2", [][]byte{[]byte(`{"q":"` + annSecret + `"}`)}, erasure.HeaderUser, "ann")
	waitStored(ctx, t, b.Stream(events.StreamIn), func(m *jetstream.RawStreamMsg) bool { return bytes.Contains(m.Data, []byte(annSecret)) })
	want := map[string]int{events.StreamIn: 1, bus.TenantStream("acme"): 1}
	if h := holding(ctx, t, b, annSecret); fmt.Sprint(h) != fmt.Sprint(want) {
		t.Fatalf("before erasure ann's raw event is in %v, want %v", h, want)
	}
	res, err := erasure.User(ctx, b, b.Keys.(*keys.Store), "acme", "ann")
	if err != nil || res.Raw != 1 {
		t.Fatalf("erasure: %+v, %v", res, err)
	}
	if h := holding(ctx, t, b, annSecret); len(h) != 0 {
		t.Errorf("after erasing ann her raw event is in %v", h)
	}
	if h := holding(ctx, t, b, otherSecret); fmt.Sprint(h) != fmt.Sprint(want) {
		t.Errorf("after erasing ann the user-less raw event is in %v, want %v", h, want)
	}
	noFileHolds(t, dir, annSecret)
}

// TestAnotherTenantsMsgIDLosesNoSourcedEvent (finding D, rev12): a
// producer that sets its own Nats-Msg-Id claims nothing of another
// tenant's. Each tenant in turn publishes first, under an id the other then
// uses for its own event, on ts.model and on ts.in, with the stock CLI
// (acme claiming) and nats.go (globex claiming); each victim's event is
// acknowledged new by its own stream and reaches the shared stream (its
// raw event sealed by ingest into TS_IN, its model event in TS_MODEL); the
// victim's own retry is still a duplicate in its own stream, stored once.
// Before, TS_MODEL's and TS_IN's duplicate window dropped the second
// sourced copy: TS_MODEL held nothing on ts.model.globex.> (10037).
func TestAnotherTenantsMsgIDLosesNoSourcedEvent(t *testing.T) {
	ctx, b, acme, globex := tenantLayout(t)
	conns := map[string]jetstream.JetStream{"acme": acme, "globex": globex}
	var modelSubjects []string
	for _, c := range []struct{ claimer, victim string }{{"acme", "globex"}, {"globex", "acme"}} {
		for _, kind := range []string{"model", "in"} {
			id := c.victim + "-order-1-" + kind
			subj := func(tenant string) string {
				if kind == "in" {
					s, _ := events.IngestSubject(tenant, "openai-chat", "orders-"+c.claimer)
					return s
				}
				s, _ := events.ModelSubject(tenant, "r9"+c.claimer, "i1")
				return s
			}
			ev := []byte(`{"id":"chatcmpl-g1","choices":[{"index":0,"delta":{"role":"assistant","content":"hi"}}]}`)
			if c.claimer == "acme" {
				natsPub(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}, subj("acme"), ev, jetstream.MsgIDHeader+":"+id)
			} else {
				m := nats.NewMsg(subj(c.claimer))
				m.Data = ev
				m.Header.Set(jetstream.MsgIDHeader, id)
				if _, err := conns[c.claimer].PublishMsg(ctx, m); err != nil {
					t.Fatal(err)
				}
			}
			for try := range 2 {
				own := nats.NewMsg(subj(c.victim))
				own.Data = ev
				own.Header.Set(jetstream.MsgIDHeader, id)
				ack, err := conns[c.victim].PublishMsg(ctx, own)
				if err != nil {
					t.Fatal(err)
				}
				if ack.Stream != bus.TenantStream(c.victim) || ack.Duplicate != (try == 1) {
					t.Errorf("%s's %s publish %d: %+v", c.victim, kind, try, ack)
				}
			}
			shared, prefix := b.Stream(events.StreamModel), subj(c.victim)
			if kind == "in" {
				shared, prefix = b.Stream(events.StreamIn), "ts.raw."+c.victim+"."
			}
			waitStored(ctx, t, shared, func(m *jetstream.RawStreamMsg) bool { return strings.HasPrefix(m.Subject, prefix) })
			if kind == "model" {
				modelSubjects = append(modelSubjects, subj(c.claimer), subj(c.victim))
			}
		}
	}
	for _, subj := range modelSubjects {
		if n := storedOn(ctx, t, b.Stream(events.StreamModel), subj); n != 1 {
			t.Errorf("TS_MODEL holds %d messages on %s, want 1 (a tenant's retry is a duplicate in its own stream)", n, subj)
		}
	}
}

// storedOn is how many messages st holds on subj (or on its partitions).
func storedOn(ctx context.Context, t *testing.T, st jetstream.Stream, subj string) uint64 {
	t.Helper()
	var n uint64
	for _, f := range []string{subj, subj + ".>"} {
		info, err := st.Info(ctx, jetstream.WithSubjectFilter(f))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range info.State.Subjects {
			n += c
		}
	}
	return n
}
