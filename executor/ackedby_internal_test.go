package executor

import (
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

// TestAckedByRefusesAReflectedAcknowledgement: the acknowledgement a
// producer has the log send to the executor's reply subject
// (internal/stack's TestReflectedAnswersReachTheExecutorsInbox: it
// publishes its raw events with that reply) names TS_IN, and is no answer
// to an outcome's publish on ts.result; TS_OUT's is.
func TestAckedByRefusesAReflectedAcknowledgement(t *testing.T) {
	const subject = "ts.result.acme.call_1"
	for data, want := range map[string]bool{
		`{"stream":"TS_OUT","seq":7}`:                   true,
		`{"stream":"TS_OUT","seq":7,"duplicate": true}`: true,
		`{"stream":"TS_IN","seq":1}`:                    false,
		`{"stream":"TS_IN","seq":1,"duplicate": true}`:  false,
		`{"stream":"KV_ts_keys","seq":3}`:               false,
	} {
		var ack jetstream.PubAck
		if err := readPubAckTo([]byte(data), &ack); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		if got := ackedBy(&ack, subject); got != want {
			t.Errorf("ackedBy(%s, %s) = %t, want %t", data, subject, got, want)
		}
	}
	var ack jetstream.PubAck
	readPubAckTo([]byte(`{"stream":"ANY","seq":1}`), &ack)
	if !ackedBy(&ack, "elsewhere.x") {
		t.Error("a subject of no stream of the log is not checked")
	}
}
