package projector

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// echo stores each event's text and emits a copy.
type echo struct{}

func (echo) Name() string       { return "echo" }
func (echo) Subjects() []string { return []string{"ts.model.>"} }
func (echo) Apply(tx *Tx, m *Msg) error {
	ev, err := m.Event()
	if err != nil {
		return err
	}
	k, err := TenantKey(ev.Tenant, ev.ID)
	if err != nil {
		return err
	}
	if err := tx.Set(k, m.Data); err != nil {
		return err
	}
	return tx.Emit("ts.ctl."+ev.Tenant+".echo", &events.Event{ID: "echo:" + ev.ID, Tenant: ev.Tenant, Body: &events.Tick{}})
}

func dumpAll(t *testing.T, r *Runner) string {
	var buf bytes.Buffer
	it, _ := r.db.NewIter(nil)
	for ok := it.First(); ok; ok = it.Next() {
		buf.Write(it.Key())
		buf.WriteByte('=')
		buf.Write(it.Value())
		buf.WriteByte('\n')
	}
	it.Close()
	return buf.String()
}

func TestRedeliveryChangesNothing(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	for i := 0; i < 20; i++ {
		if _, err := b.Publish(ctx, "ts.model.acme.r.i", &events.Event{ID: "e" + string(rune('a'+i)), Tenant: "acme", Body: &events.TextDelta{Text: "x"}}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := New(Config{JS: b.JS, Keys: b.Keys, Dir: filepath.Join(t.TempDir(), "v"), Mode: ModeHold}, echo{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c, err := b.JS.OrderedConsumer(ctx, events.StreamModel, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	batch, err := c.FetchNoWait(100)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []delivery
	for m := range batch.Messages() {
		msgs = append(msgs, deliveryOf(m))
	}
	if len(msgs) != 20 {
		t.Fatalf("fetched %d", len(msgs))
	}
	if _, err := r.applyBatch(ctx, msgs[:12]); err != nil {
		t.Fatal(err)
	}
	if _, err := r.applyBatch(ctx, msgs[12:]); err != nil {
		t.Fatal(err)
	}
	before := dumpAll(t, r)
	// Redeliver everything, in one batch and in pieces.
	if _, err := r.applyBatch(ctx, msgs); err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if _, err := r.applyBatch(ctx, []delivery{m}); err != nil {
			t.Fatal(err)
		}
	}
	if after := dumpAll(t, r); after != before {
		t.Fatalf("redelivery changed the view or outbox:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if n, _ := r.countOutbox(); n != 20 {
		t.Fatalf("outbox rows = %d, want 20", n)
	}
}
