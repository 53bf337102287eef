package executor

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestPlainPubAck: the fast reading of a publish acknowledgement agrees
// with the JSON decoder on what it accepts and declines everything else,
// so an error, a domain or a field a later server adds goes through the
// decoder, never past it.
func TestPlainPubAck(t *testing.T) {
	for _, tc := range []struct {
		in   string
		ok   bool
		want jetstream.PubAck
	}{
		{`{"stream":"TS_RESULTS","seq":1}`, true, jetstream.PubAck{Stream: "TS_RESULTS", Sequence: 1}},
		{`{"stream":"S","seq":18446744073709551615,"duplicate": true}`, true, jetstream.PubAck{Stream: "S", Sequence: 18446744073709551615, Duplicate: true}},
		{`{"stream":"S","seq":18446744073709551616}`, false, jetstream.PubAck{}},
		{`{"stream":"S","seq":7,"domain":"hub"}`, false, jetstream.PubAck{}},
		{`{"stream":"S","seq":7,"duplicate":false}`, false, jetstream.PubAck{}},
		{`{"stream":"S","seq":7,"duplicate":true}`, true, jetstream.PubAck{Stream: "S", Sequence: 7, Duplicate: true}},
		{`{"stream":"S","seq":7,"duplicate":true,"val":"x"}`, false, jetstream.PubAck{}},
		{`{"stream":"S","seq":7} `, false, jetstream.PubAck{}},
		{`{"stream":"S","seq":}`, false, jetstream.PubAck{}},
		{`{"stream":"","seq":3}`, false, jetstream.PubAck{}},
		{`{"stream":"a\"b","seq":3}`, false, jetstream.PubAck{}},
		{`{"error":{"code":400,"err_code":10071,"description":"wrong last sequence: 4"},"stream":"S","seq":0}`, false, jetstream.PubAck{}},
		{`{"stream": "S", "seq": 7}`, false, jetstream.PubAck{}},
		{``, false, jetstream.PubAck{}},
		{`{"stream":"S"`, false, jetstream.PubAck{}},
	} {
		got, ok := plainPubAck([]byte(tc.in))
		if ok != tc.ok {
			t.Fatalf("%s: ok %v, want %v", tc.in, ok, tc.ok)
		}
		if !ok {
			continue
		}
		if *got != tc.want {
			t.Fatalf("%s: %+v, want %+v", tc.in, *got, tc.want)
		}
		var dec jetstream.PubAck
		if err := json.Unmarshal([]byte(tc.in), &dec); err != nil || dec != *got {
			t.Fatalf("%s: the decoder reads %+v (%v), the fast path %+v", tc.in, dec, err, *got)
		}
	}
}

// TestPlainPubAckReadsTheServersAnswers: the acknowledgements a real
// server sends for a first publish and a duplicate are read by the fast
// path, and an expected-last-sequence refusal is not.
func TestPlainPubAckReadsTheServersAnswers(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	if _, err := b.JS.CreateStream(ctx, jetstream.StreamConfig{Name: "ACKS", Subjects: []string{"acks.>"}}); err != nil {
		t.Fatal(err)
	}
	ask := func(last string) []byte {
		m := &nats.Msg{Subject: "acks.a", Data: []byte("x"), Header: nats.Header{jetstream.MsgIDHeader: []string{"one"}}}
		if last != "" {
			m.Header.Set(jetstream.ExpectedLastSubjSeqHeader, last)
		}
		resp, err := b.Conn.RequestMsg(m, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return resp.Data
	}
	first, dup := ask(""), ask("")
	if a, ok := plainPubAck(first); !ok || a.Duplicate || a.Sequence != 1 || a.Stream != "ACKS" {
		t.Fatalf("first publish %s: %+v %v", first, a, ok)
	}
	if a, ok := plainPubAck(dup); !ok || !a.Duplicate || a.Sequence != 1 {
		t.Fatalf("duplicate %s: %+v %v", dup, a, ok)
	}
	m := &nats.Msg{Subject: "acks.a", Data: []byte("y"), Header: nats.Header{
		jetstream.MsgIDHeader: []string{"two"}, jetstream.ExpectedLastSubjSeqHeader: []string{"0"}}}
	resp, err := b.Conn.RequestMsg(m, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := plainPubAck(resp.Data); ok {
		t.Fatalf("a refusal %s read as %+v", resp.Data, a)
	}
}
