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
	// A refusal names its stream as an acknowledgement does: TS_OUT's is
	// this publish's answer (its subject taken), TS_IN's is a producer's
	// publish with a wrong expected sequence, reflected; an answer naming
	// no stream (a reader's direct get reflected: a 404, no body; a
	// foreign message) is none.
	const wrongLast = `"error":{"code":400,"err_code":10071,"description":"wrong last sequence: 5"}}`
	for data, want := range map[string]bool{
		`{"stream":"TS_OUT","seq":0,` + wrongLast: true,
		`{"stream":"TS_IN","seq":0,` + wrongLast:  false,
		`{` + wrongLast:                           false,
		``:                                        false,
		`{}`:                                      false,
		`{"seq":9}`:                               false,
	} {
		ack := jetstream.PubAck{Stream: "TS_OUT"} // what a reused decision held
		err := readPubAckTo([]byte(data), &ack)
		if got := ackedBy(&ack, subject); got != want {
			t.Errorf("ackedBy(%s, %s) = %t, want %t (%v)", data, subject, got, want, err)
		}
		if want && !wrongLastSeq(err) {
			t.Errorf("%s: %v, want the log's wrong last sequence", data, err)
		}
	}
	var ack jetstream.PubAck
	readPubAckTo([]byte(`{"stream":"ANY","seq":1}`), &ack)
	if !ackedBy(&ack, "elsewhere.x") {
		t.Error("a subject of no stream of the log is not checked")
	}
}
