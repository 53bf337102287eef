package executor

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestTheWindowAcknowledgesOnlyInputsWhoseOutcomeLanded: a window's
// leader acknowledges the inputs of its decisions (ackInputs), and only
// those whose outcome the log acknowledged storing as new. Each case is a
// real input, delivered by a real consumer, carried into decideInLog: an
// outcome on an empty result subject is stored and its input acknowledged
// before decideInLog returns (settled); an outcome whose subject holds a
// message already (another decider's) or whose key has a record in the
// bucket is not stored, and its input stays unacknowledged for its job to
// decide (both stay pending on the consumer). Without ackInputs the first
// input is still pending (tried); acknowledging every decision's input
// takes the other two's (tried).
func TestTheWindowAcknowledgesOnlyInputsWhoseOutcomeLanded(t *testing.T) {
	b := bustest.Start(t)
	ctx := t.Context()
	e, err := NewContext(ctx, Config{JS: b.JS, Keys: b.Keys, ExecutorID: "acks"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.JS.CreateStream(ctx, jetstream.StreamConfig{Name: "INPUTS", Subjects: []string{"inputs.>"}}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, key string
		setup     func(subject string) // makes the decision's outcome not the first
		settled   bool
	}{
		{"an empty result subject", "fresh", nil, true},
		{"a result subject taken by another decider", "taken", func(subj string) {
			if _, err := b.JS.Publish(ctx, subj, []byte("another decider's outcome")); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"a record in the bucket", "leased", func(string) {
			if _, err := e.store.put(ctx, "acme", &record{Key: "leased", State: stateRunning}, 0); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, tc := range cases {
		if _, err := b.JS.Publish(ctx, "inputs."+tc.key, []byte(tc.key)); err != nil {
			t.Fatal(err)
		}
	}
	c, err := b.JS.CreateConsumer(ctx, "INPUTS", jetstream.ConsumerConfig{Durable: "inputs", AckPolicy: jetstream.AckExplicitPolicy})
	if err != nil {
		t.Fatal(err)
	}
	batch, err := c.Fetch(len(cases), jetstream.FetchMaxWait(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var inputs []jetstream.Msg
	for m := range batch.Messages() {
		inputs = append(inputs, m)
	}
	if len(inputs) != len(cases) {
		t.Fatalf("%d inputs delivered, want %d", len(inputs), len(cases))
	}
	for i, tc := range cases {
		subj, err := events.ResultSubject("acme", tc.key)
		if err != nil {
			t.Fatal(err)
		}
		if tc.setup != nil {
			tc.setup(subj)
		}
		out := &outcome{Subject: subj, ID: events.ResultID(tc.key), Data: []byte("outcome of " + tc.key)}
		found, dup, settled, err := e.decideInLog(ctx, "acme", tc.key, out, uint64(i+1), "tool", inputs[i])
		if settled != tc.settled {
			t.Errorf("%s: settled %v (found %v, duplicate %v, %v), want %v", tc.name, settled, found, dup, err, tc.settled)
		}
		if tc.settled && (found || dup || err != nil) {
			t.Errorf("%s: found %v, duplicate %v, %v; want the outcome stored", tc.name, found, dup, err)
		}
	}
	if err := b.Conn.Flush(); err != nil {
		t.Fatal(err)
	}
	// The consumer takes acknowledgements in its own time: read it until
	// it has them, or it is plain it never will.
	deadline := time.Now().Add(5 * time.Second)
	for {
		info, err := c.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pending, floor := info.NumAckPending, info.AckFloor.Stream
		if pending == 2 && floor == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the consumer holds %d inputs unacknowledged, its ack floor at stream sequence %d; want the two refused decisions' inputs (2, 3) pending and the first acknowledged", pending, floor)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
