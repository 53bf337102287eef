package executor

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

// recordKeyWith encodes a key in pieces; the pieces must join to the
// key's whole encoding, whatever its length, and entrySubjects' record key
// must be the one the bucket is written at.
func TestRecordKeysAreTheWholeKeysEncoding(t *testing.T) {
	for _, key := range []string{
		"", "a", "ab", "abc", "acme/run/step/call-1",
		strings.Repeat("k", 47), strings.Repeat("k", 48), strings.Repeat("k", 49),
		strings.Repeat("ключ/", 40), "\x00\xff/+=",
	} {
		want := "c.acme." + base64.RawURLEncoding.EncodeToString([]byte(key))
		if got := recordKey("acme", key); got != want {
			t.Fatalf("recordKey(%q) = %q, want %q", key, got, want)
		}
		if got := recordKeyWith("$KV.calls", "acme", key); got != "$KV.calls."+want {
			t.Fatalf("recordKeyWith(%q) = %q, want %q", key, got, "$KV.calls."+want)
		}
		full, subj := entrySubjects("$JS.API.DIRECT.GET.KV_calls.$KV.calls.", "acme", key)
		if full != "$KV.calls."+want || subj != want {
			t.Fatalf("entrySubjects(%q) = %q, %q", key, full, subj)
		}
		if full, subj := entrySubjects("elsewhere.", "acme", key); full != "" || subj != want {
			t.Fatalf("entrySubjects of no bucket's prefix (%q) = %q, %q", key, full, subj)
		}
	}
}

// plainPubAckTo sets the whole acknowledgement it reads into, whatever the
// one it reuses held (a window's decisions are reused).
func TestPlainPubAckToSetsTheWholeAck(t *testing.T) {
	ack := jetstream.PubAck{Stream: "OTHER", Sequence: 9, Duplicate: true, Domain: "d"}
	if !plainPubAckTo([]byte(`{"stream":"TS_OUT","seq":12}`), &ack) {
		t.Fatal("not read")
	}
	if ack != (jetstream.PubAck{Stream: "TS_OUT", Sequence: 12}) {
		t.Fatalf("read %+v", ack)
	}
	if !plainPubAckTo([]byte(`{"stream":"TS_OUT","seq":13,"duplicate": true}`), &ack) || ack != (jetstream.PubAck{Stream: "TS_OUT", Sequence: 13, Duplicate: true}) {
		t.Fatalf("read %+v", ack)
	}
	if plainPubAckTo([]byte(`{"stream":"TS_OUT","seq":14,"domain":"x"}`), &ack) {
		t.Fatal("a domain was read as a plain acknowledgement")
	}
	if err := readPubAckTo([]byte(`{"stream":"TS_OUT","seq":14,"domain":"x"}`), &ack); err != nil || ack != (jetstream.PubAck{Stream: "TS_OUT", Sequence: 14, Domain: "x"}) {
		t.Fatalf("read %+v, %v", ack, err)
	}
	if err := readPubAckTo([]byte(`{"error":{"code":400,"err_code":10071,"description":"wrong last sequence: 3"}}`), &ack); !wrongLastSeq(err) {
		t.Fatalf("an expected-sequence refusal read as %v", err)
	}
}
