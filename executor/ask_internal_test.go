package executor

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestABucketRequestTakesNoForeignAnswer: what a forged answer to the
// bucket's requests would change, and that none is taken. The attackers
// are tenant acme's producer and the reader, each with its own credential
// on the real server; neither may publish into the executor's inbox, but
// each has the server answer there: the producer's publishes of its model
// events with the executor's reply subject (the log's acknowledgement, or
// its refusal under a wrong expected sequence), the reader's direct gets
// (a model event whose body the producer wrote as an acknowledgement of
// the bucket, another tenant's call record). Here the attackers are told
// each request's reply subject before it goes (asker.sent), which no one
// is in the product (the inbox is a secret, each request's token sixteen
// random bytes: TestTheBucketsRepliesShareNoInboxAnOutcomeShows), so each
// forged answer arrives before the real one. Each is waited past: the
// record is written at its real revision, a compare-and-set lost is lost,
// one won is won, a record read is the key's own. With the asker's checks
// taken out (accept always true) each case fails: a write refused read as
// won (two executors holding one lease: a call run twice), a write won
// read as lost (a lease taken, then given up: outcome_unknown), globex's
// record read as acme's, TS_MODEL's fifth message as its first (tried).
func TestABucketRequestTakesNoForeignAnswer(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := b.JS.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: BucketDefault, History: 1})
	if err != nil {
		t.Fatal(err)
	}
	js := bustest.RoleJS(t, b, auth.Identity{Role: auth.RoleExecutor})
	exec := js.Conn()
	producer := bustest.RoleJS(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}).Conn()
	reader := bustest.RoleJS(t, b, auth.Identity{Role: auth.RoleReader}).Conn()
	kv, err := js.KeyValue(ctx, BucketDefault)
	if err != nil {
		t.Fatal(err)
	}
	s := &store{kv: kv, retry: fastRetry, bound: 10 * time.Second, nc: exec, direct: directGetPrefix(js, BucketDefault),
		timeout: 2 * time.Second, ask: newAsker(exec, 2*time.Second), stream: "KV_" + BucketDefault, subjects: "$KV." + BucketDefault + "."}
	defer s.ask.close()

	// The producer's model event whose body is an acknowledgement of the
	// bucket (stored a few times, so TS_MODEL's sequences are not the
	// bucket's), and globex's record: what the reader's direct gets send.
	var ack *nats.Msg
	for range 5 {
		ack, err = producer.Request("ts.model.acme.forged.x", []byte(`{"stream":"KV_ts_exec","seq":99}`), 5*time.Second)
		if err != nil || !ackAnswer("TS_MODEL")(ack) {
			t.Fatalf("the producer's model event: %v %v", ack, err)
		}
	}
	var stored jetstream.PubAck
	if err := readPubAckTo(ack.Data, &stored); err != nil {
		t.Fatal(err)
	}
	globex := &record{Key: "globex/-/r/c", State: stateDone, Name: "their.tool"}
	if _, err := admin.Create(ctx, recordKey("globex", globex.Key), globex.marshal()); err != nil {
		t.Fatal(err)
	}

	reflectAck := func(reply string) error {
		return producer.PublishMsg(&nats.Msg{Subject: "ts.model.acme.reflect.x", Reply: reply, Data: []byte(`{}`)})
	}
	reflectRefusal := func(reply string) error {
		m := &nats.Msg{Subject: "ts.model.acme.reflect.x", Reply: reply, Data: []byte(`{}`), Header: nats.Header{}}
		m.Header.Set(jetstream.ExpectedLastSubjSeqHeader, "999999")
		return producer.PublishMsg(m)
	}
	reflectStoredAck := func(reply string) error {
		return reader.PublishRequest("$JS.API.DIRECT.GET.TS_MODEL", reply, fmt.Appendf(nil, `{"seq":%d}`, stored.Sequence))
	}
	reflectGlobex := func(reply string) error {
		return reader.PublishRequest(s.direct+recordKey("globex", globex.Key), reply, nil)
	}
	// forge makes the next request's first answer forged's.
	forge := func(forged func(reply string) error) {
		s.ask.sent = func(reply string) {
			s.ask.sent = nil
			if err := exec.Flush(); err != nil { // the asker's subscription is the server's
				t.Error(err)
			}
			if err := forged(reply); err != nil {
				t.Errorf("forging: %v", err)
				return
			}
			deadline := time.Now().Add(10 * time.Second)
			for {
				s.ask.mu.Lock()
				n := len(s.ask.waiting[reply])
				s.ask.mu.Unlock()
				if n > 0 {
					return
				}
				if time.Now().After(deadline) {
					t.Errorf("the forged answer did not arrive")
					return
				}
				time.Sleep(time.Millisecond)
			}
		}
	}
	// real is the key's revision, as the admin reads it (a write the
	// executor sent may still be on its way).
	real := func(key string) uint64 {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
			e, err := admin.Get(ctx, recordKey("acme", key))
			if err == nil {
				return e.Revision()
			}
			if time.Now().After(deadline) {
				t.Fatal(err)
			}
		}
	}

	mine := &record{Key: "acme/-/r/c", State: stateRunning, Name: "my.tool", Owner: "me"}
	for _, tc := range []struct {
		name string
		run  func() error
	}{
		{"an acknowledgement of TS_MODEL is not the record created", func() error {
			forge(reflectAck)
			rev, err := s.put(ctx, "acme", mine, 0)
			if err != nil || rev != real(mine.Key) {
				return fmt.Errorf("create: revision %d, %v; want %d", rev, err, real(mine.Key))
			}
			return nil
		}},
		{"a stored body naming the bucket wins no compare-and-set lost", func() error {
			forge(reflectStoredAck)
			stale := real(mine.Key) - 1
			if rev, err := s.put(ctx, "acme", mine, stale); !errors.Is(err, errConflict) {
				return fmt.Errorf("a write at a stale revision: revision %d, %v; want errConflict", rev, err)
			}
			return nil
		}},
		{"a refusal of TS_MODEL loses no compare-and-set won", func() error {
			forge(reflectRefusal)
			rev, err := s.put(ctx, "acme", mine, real(mine.Key))
			if err != nil || rev != real(mine.Key) {
				return fmt.Errorf("a write at the current revision: revision %d, %v; want %d", rev, err, real(mine.Key))
			}
			return nil
		}},
		{"another tenant's record is not this key's", func() error {
			forge(reflectGlobex)
			rec, rev, err := s.get(ctx, "acme", mine.Key)
			if err != nil || rec == nil || rec.Key != mine.Key || rev != real(mine.Key) {
				return fmt.Errorf("get: %+v at %d, %v; want %s at %d", rec, rev, err, mine.Key, real(mine.Key))
			}
			return nil
		}},
		{"another message of the log is not the one asked", func() error {
			forge(reflectStoredAck)
			m, err := s.ask.getMsg(ctx, "TS_MODEL", 1, "")
			if err != nil || m.Sequence != 1 || m.Subject != "ts.model.acme.forged.x" {
				return fmt.Errorf("TS_MODEL's first message: %+v, %v", m, err)
			}
			return nil
		}},
	} {
		before := s.ask.foreign.Load()
		if err := tc.run(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if n := s.ask.foreign.Load() - before; n != 1 {
			t.Errorf("%s: %d foreign answers refused, want 1", tc.name, n)
		}
	}
}
