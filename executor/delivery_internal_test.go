package executor

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestDeliveryReadsTheServersSubjects: what deliveryOf reads of messages a
// real server delivers, first and again after a nak, is what nats.go's
// Metadata reads.
func TestDeliveryReadsTheServersSubjects(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	if _, err := b.JS.CreateStream(ctx, jetstream.StreamConfig{Name: "DELIV", Subjects: []string{"deliv.>"}}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := b.JS.Publish(ctx, "deliv.a", []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	c, err := b.JS.CreateConsumer(ctx, "DELIV", jetstream.ConsumerConfig{Durable: "d", AckPolicy: jetstream.AckExplicitPolicy})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for round := range 2 {
		batch, err := c.Fetch(3, jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		for m := range batch.Messages() {
			seen++
			md, err := m.Metadata()
			if err != nil {
				t.Fatal(err)
			}
			d, err := deliveryOf(m)
			if err != nil {
				t.Fatalf("%s: %v", m.Reply(), err)
			}
			if d.seq != md.Sequence.Stream || d.delivered != md.NumDelivered || d.delivered != uint64(round+1) {
				t.Fatalf("%s: read %+v, nats.go reads seq %d delivered %d (round %d)", m.Reply(), d, md.Sequence.Stream, md.NumDelivered, round)
			}
			if round == 0 {
				m.Nak()
			} else {
				m.Ack()
			}
		}
	}
	if seen != 6 {
		t.Fatalf("%d deliveries, want 6", seen)
	}
}

// TestDeliveryRefusesWhatNatsGoRefuses: a reply that is no acknowledgement
// subject has no delivery, as for nats.go's Metadata.
func TestDeliveryRefusesWhatNatsGoRefuses(t *testing.T) {
	for _, reply := range []string{"", "_INBOX.x", "$JS.ACK.S.C.1.2.3.4", "$JS.ACK.D.S.C.1.2.3.4.5", "$JS.NAK.S.C.1.2.3.4.5"} {
		if _, err := parseDelivery(reply); !errors.Is(err, jetstream.ErrNotJSMessage) {
			t.Errorf("%q: %v, want ErrNotJSMessage", reply, err)
		}
		if _, err := natsGoDelivery(reply); err == nil {
			t.Errorf("%q: nats.go reads it", reply)
		}
	}
	for reply, want := range map[string]delivery{
		"$JS.ACK.S.C.2.17.3.4.5":                   {seq: 17, delivered: 2},
		"$JS.ACK._.HASH.S.C.1.18.3.4.5.tok":        {seq: 18, delivered: 1},
		"$JS.ACK.hub.HASH.S.C.3.19.3.4.5":          {seq: 19, delivered: 3},
		"$JS.ACK.hub.HASH.S.C.3.20.3.4.5.t.u":      {seq: 20, delivered: 3},
		"$JS.ACK.S.C.x.1a.3.4.5":                   {},
		"$JS.ACK.S.C.18446744073709551615.1.1.1.1": {seq: 1, delivered: 18446744073709551615},
	} {
		got, err := parseDelivery(reply)
		if err != nil || got != want {
			t.Errorf("%q: %+v %v, want %+v", reply, got, err, want)
		}
	}
}

// natsGoDelivery is what nats.go's own parser reads of reply.
func natsGoDelivery(reply string) (delivery, error) {
	m := &nats.Msg{Reply: reply, Sub: &nats.Subscription{}}
	md, err := m.Metadata()
	if err != nil {
		return delivery{}, err
	}
	return delivery{seq: md.Sequence.Stream, delivered: md.NumDelivered}, nil
}

// FuzzDeliveryAgreesWithNatsGo: for any reply subject, parseDelivery
// accepts exactly what nats.go's parser accepts and reads the same
// sequence and delivery count.
func FuzzDeliveryAgreesWithNatsGo(f *testing.F) {
	for _, s := range []string{"$JS.ACK.S.C.2.17.3.4.5", "$JS.ACK._.HASH.S.C.1.18.3.4.5.tok", "$JS.ACK.S.C.1.2.3.4", "$JS.ACK.a.b.c.d.e.f.g.h.i.j.k.l.m", "$JS.ACK..........", "x", "$JS.ACK.S.C.٣.1.1.1.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		if reply == "" {
			return // nats.go refuses it earlier (no reply), as does handleCallMsg
		}
		want, werr := natsGoDelivery(reply)
		got, err := parseDelivery(reply)
		if (err == nil) != (werr == nil) || got != want {
			t.Fatalf("%q: read %+v (%v), nats.go %+v (%v)", reply, got, err, want, werr)
		}
	})
}
