package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/jstest"
	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/projector"
)

// The hostile tenant's attack on message ids (docs/security.md): acme's
// producer publishes junk on its own subjects under the message ids
// another tenant's publish will use, so that the server would drop that
// tenant's events as duplicates.

// claimer publishes junk as acme's producer would: nats.go with acme's
// credential, asynchronously.
type claimer struct {
	t  *testing.T
	js jetstream.JetStream
	n  int
}

func newClaimer(t *testing.T, b *bus.Bus, tenant string) *claimer {
	t.Helper()
	opts, err := b.UserOptions(auth.Identity{Role: auth.RoleProducer, Tenant: tenant})
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(b.ClientURL(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return &claimer{t: t, js: js}
}

// claim publishes junk on subject under each message id.
func (c *claimer) claim(ctx context.Context, subject string, ids ...string) {
	c.t.Helper()
	for _, id := range ids {
		if _, err := c.js.PublishAsync(subject, []byte(`{"junk":true}`), jetstream.WithMsgID(id)); err != nil {
			c.t.Fatal(err)
		}
		c.n++
	}
	select {
	case <-c.js.PublishAsyncComplete():
	case <-ctx.Done():
		c.t.Fatal(ctx.Err())
	}
}

// cliClaim publishes junk on subject under id with the stock nats CLI.
func cliClaim(t *testing.T, b *bus.Bus, id auth.Identity, subject, msgID string) {
	t.Helper()
	cmd := exec.Command(jstest.NatsCLI(t), "--server", b.ClientURL(), "--creds", bustest.Creds(t, b, id), "--inbox-prefix", id.InboxPrefix(),
		"--timeout", "20s", "pub", "--jetstream", "--header", "Nats-Msg-Id:"+msgID, subject, `{"junk":true}`)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nats pub %s: %v\n%s", subject, err, out)
	}
}

// TestClaimedIDsSwallowNothing: before globex publishes a recorded stream
// normalised at the edge and initech the same stream raw, acme's producer
// publishes junk on its own model and ingest subjects under every id they
// and ingest would use: the edge ids of globex's stream, initech's raw
// ids and its end marker, and the model ids ingest derives from the next
// raw sequences (with a forging nats.go client, and the first of each
// with the stock nats CLI), plain and with a made-up tag. Attacker: its
// junk is stored, under its own subjects, and changes nothing else.
// Victims: every event is stored (no duplicate acknowledgement, the
// model events in the log are those published), and the assembler
// decides both streams' calls and responses the same way. Writing the
// stream again from a new client of the same creds (a restarted
// producer) stores nothing twice.
func TestClaimedIDsSwallowNothing(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	n := stack.NewNode(b, t.TempDir(), nil)
	t.Cleanup(func() { n.Stop() })
	for _, p := range []projector.Projection{assembler.NewIngest(assembler.IngestConfig{}), assembler.New(assembler.Config{})} {
		if _, err := n.Start(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	rec := recordings(t)[0]
	acme := auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}
	attacker := newClaimer(t, b, "acme")
	acmeModel, _ := events.ModelSubject("acme", "junk", "i")
	acmeIn, _ := events.IngestSubject("acme", "openai", "junk")
	forged := func(id string) []string { return []string{id, events.MsgIDTagPrefix + id} } // the id, and a made-up tag

	var edge, raw, model []string
	for pos := int64(0); pos <= int64(len(rec.events))+1; pos++ {
		for k := 0; k < 8; k++ {
			edge = append(edge, forged(events.EdgeEventID("globex", "s1", pos, k))...)
		}
		raw = append(raw, forged(fmt.Sprintf("raw:initech/s1/%d", pos))...)
	}
	raw = append(raw, forged("raw:initech/s1/end")...)
	cliClaim(t, b, acme, acmeModel, edge[0])
	cliClaim(t, b, acme, acmeIn, raw[0])
	attacker.claim(ctx, acmeModel, edge...)
	attacker.claim(ctx, acmeIn, raw...)
	// The raw events land after the junk: claim the model ids ingest will
	// give the events normalised from the next raw sequences.
	last, err := b.LastSeq(ctx, events.StreamIn)
	if err != nil {
		t.Fatal(err)
	}
	for seq := last + 1; seq <= last+uint64(len(rec.events))+8; seq++ {
		for k := 0; k < 8; k++ {
			model = append(model, forged(events.ModelEventID("initech", "s1", seq, k))...)
		}
	}
	attacker.claim(ctx, acmeModel, model...)

	creds := map[string]string{}
	for _, tenant := range []string{"globex", "initech"} {
		creds[tenant] = bustest.Creds(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: tenant})
	}
	publish := func(tenant string, raw bool) client.Published {
		c, err := client.Connect(ctx, client.WithURL(b.ClientURL()), client.WithCredsFile(creds[tenant]))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		opts := []client.StreamOption{client.WithStream(client.Stream{Tenant: tenant, ID: "s1", Format: rec.provider, Raw: raw})}
		pub, err := c.Publish(ctx, bytes.NewReader(lines(rec.events)), opts...)
		if err != nil {
			t.Fatalf("%s: %v", tenant, err)
		}
		return pub
	}
	edgePub, rawPub := publish("globex", false), publish("initech", true)
	if edgePub.Duplicates != 0 || rawPub.Duplicates != 0 {
		t.Fatalf("acme's junk took the place of victims' events: %d of globex's, %d of initech's acknowledged as duplicates", edgePub.Duplicates, rawPub.Duplicates)
	}
	if got := countOn(ctx, t, b, events.StreamModel, "ts.model.globex.>"); got != uint64(edgePub.Model) {
		t.Fatalf("globex published %d model events, the log holds %d", edgePub.Model, got)
	}
	if got := countOn(ctx, t, b, events.StreamIn, "ts.in.initech.>"); got != uint64(rawPub.Model) || rawPub.Model != len(rec.events)+1 {
		t.Fatalf("initech published %d raw events and the end, the log holds %d", rawPub.Model, got)
	}
	for _, name := range []string{assembler.IngestName, assembler.Name} {
		if err := n.Settle(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	lines := decided(ctx, t, b)
	if len(lines["globex"]) == 0 || !slices.Equal(lines["globex"], lines["initech"]) {
		t.Fatalf("from the edge (globex)\n%s\nthrough ingest (initech)\n%s", strings.Join(lines["globex"], "\n"), strings.Join(lines["initech"], "\n"))
	}
	// (and ingest's rejections of its junk raw events besides)
	if got := countOn(ctx, t, b, events.StreamModel, "ts.model.acme.>"); got < uint64(len(edge)+len(model)+1) {
		t.Errorf("acme's junk on its model subject: %d stored, %d published", got, len(edge)+len(model)+1)
	}

	// A restarted producer (a new client of the same creds file) writing
	// the stream again: its ids are the same, every event a duplicate.
	again := publish("globex", false)
	if again.Duplicates != again.Model || again.Model != edgePub.Model {
		t.Fatalf("globex again: %+v, first %+v", again, edgePub)
	}
	if got := countOn(ctx, t, b, events.StreamModel, "ts.model.globex.>"); got != uint64(edgePub.Model) {
		t.Fatalf("globex written again: the log holds %d model events, %d published once", got, edgePub.Model)
	}
}

// TestDuplicateNotOursIsAnError: where the publisher may read the log, a
// duplicate acknowledgement for a message that is not its event is an
// error, never a success. A writer whose message-id key another identity
// knows (here: handed to the attacker) finds junk under its first event's
// id: Close returns ErrDuplicateNotOurs. The bus's Publish does the same
// when its key is known (junk under the plain id claims nothing), and a
// repeat of its own event is no error.
func TestDuplicateNotOursIsAnError(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	key := bytes.Repeat([]byte{7}, events.MsgIDKeyBytes)
	rec := recordings(t)[0]

	// The event the writer publishes first: the stream's first model event.
	probe, err := client.Connect(ctx, client.WithConn(b.Conn), client.WithKeys(b.Keys), client.WithMsgIDKey(bytes.Repeat([]byte{9}, 32)))
	if err != nil {
		t.Fatal(err)
	}
	w, err := probe.NewWriter(ctx, client.WithStream(client.Stream{Tenant: "probe", ID: "s1", Format: rec.provider}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.ReadFrom(ctx, bytes.NewReader(lines(rec.events))); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	evs, err := b.ReadEvents(ctx, []string{"ts.model.probe.>"})
	if err != nil || len(evs) == 0 {
		t.Fatalf("%d events, %v", len(evs), err)
	}
	first := evs[0]
	subj, _ := events.ModelSubject("globex", first.Response, first.Item)
	id := strings.Replace(first.ID, "edge:probe/", "edge:globex/", 1)
	newClaimer(t, b, "globex").claim(ctx, subj, events.MsgID(key, subj, id))

	c, err := client.Connect(ctx, client.WithConn(b.Conn), client.WithKeys(b.Keys), client.WithMsgIDKey(key))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Publish(ctx, bytes.NewReader(lines(rec.events)), client.WithStream(client.Stream{Tenant: "globex", ID: "s1", Format: rec.provider}))
	if !errors.Is(err, client.ErrDuplicateNotOurs) {
		t.Fatalf("a publish whose first event was swallowed by junk: %v, want ErrDuplicateNotOurs", err)
	}

	call, _ := events.CallSubject("acme", "lookup")
	ev := &events.Event{ID: "completed:acme/r1/i1", Tenant: "acme", Response: "r1", Item: "i1", Body: &events.CallCompleted{Name: "lookup", Arguments: []byte(`{}`)}}
	// Junk under the plain id claims nothing (the bus tags its id:
	// events.OwnedMsgID); under the bus's own tag (its key handed to the
	// attacker) it does, and that is an error.
	if _, err := b.JS.Publish(ctx, call, []byte("junk"), jetstream.WithMsgID(ev.ID)); err != nil {
		t.Fatal(err)
	}
	if ack, err := b.Publish(ctx, call, ev); err != nil || ack.Duplicate {
		t.Fatalf("bus: a publish after junk under its plain id: %+v, %v, want stored", ack, err)
	}
	ev.ID = "completed:acme/r3/i1"
	if _, err := b.JS.Publish(ctx, call, []byte("junk"), jetstream.WithMsgID(events.OwnedMsgID(b.MsgIDKey(), call, ev.ID))); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Publish(ctx, call, ev); !errors.Is(err, bus.ErrDuplicateNotOurs) {
		t.Fatalf("bus: a publish acknowledged as the duplicate of junk: %v, want ErrDuplicateNotOurs", err)
	}
	ev.ID = "completed:acme/r2/i1"
	for i := range 2 {
		if ack, err := b.Publish(ctx, call, ev); err != nil || ack.Duplicate != (i == 1) {
			t.Fatalf("bus: publish %d of the same event: %+v, %v", i, ack, err)
		}
	}
}

// decided is the assembler's decisions by tenant, as assembler.Line
// without the tenant, sorted.
func decided(ctx context.Context, t *testing.T, b *bus.Bus) map[string][]string {
	t.Helper()
	evs, err := b.ReadEvents(ctx, []string{"ts.call.>", "ts.resp.>"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, ev := range evs {
		if l, ok := assembler.LineOf(ev); ok {
			tenant := l.Tenant
			l.Tenant = ""
			j, _ := json.Marshal(l)
			got[tenant] = append(got[tenant], string(j))
		}
	}
	for _, l := range got {
		slices.Sort(l)
	}
	return got
}

// countOn is how many messages stream holds on filter.
func countOn(ctx context.Context, t *testing.T, b *bus.Bus, stream, filter string) uint64 {
	t.Helper()
	info, err := b.Stream(stream).Info(ctx, jetstream.WithSubjectFilter(filter))
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, c := range info.State.Subjects {
		n += c
	}
	return n
}
