package events_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestMsgID: in the streams a tenant writes the message id is a tag of
// the subject and event id under the key, the same for the same key,
// subject and id and different when any of them differs, and it names
// nothing of either (a refused Nats-Expected-Last-Msg-Id shows it to any
// producer); elsewhere it is the id.
func TestMsgID(t *testing.T) {
	k1, k2 := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	model, in := "ts.model.globex.r1.i1", "ts.in.globex.openai.s1"
	id := events.EdgeEventID("globex", "s1", 3, 0)
	a := events.MsgID(k1, model, id)
	if !strings.HasPrefix(a, events.MsgIDTagPrefix) || len(a) != 1+22 {
		t.Fatalf("tagged id %q", a)
	}
	for _, tag := range []string{a, events.MsgID(k2, model, id), events.MsgID(k1, in, "raw:globex/payroll.jsonl/0")} {
		for _, named := range []string{"globex", "s1", "payroll", "edge", "raw"} {
			if strings.Contains(tag, named) {
				t.Errorf("tag %q names %q", tag, named)
			}
		}
	}
	if events.MsgID(k1, model, id) != a {
		t.Error("not stable")
	}
	for _, other := range []string{events.MsgID(k2, model, id), events.MsgID(k1, "ts.model.globex.r1.i2", id), events.MsgID(k1, model, id+"x")} {
		if other == a {
			t.Errorf("%q: another key, subject or id gives the same tag", other)
		}
	}
	if got := events.MsgID(k1, in, "raw:globex/s1/0"); !strings.HasPrefix(got, events.MsgIDTagPrefix) || got == events.MsgID(k1, in, "raw:globex/s1/1") {
		t.Errorf("TS_IN: %q", got)
	}
	if got := events.MsgID(k1, events.ModelClockSubject, "tick:1"); got == "tick:1" {
		t.Errorf("the clock's ticks in TS_MODEL are not tagged")
	}
	for _, subj := range []string{"ts.call.globex.lookup", "ts.result.globex.c1", "ts.mem.globex.ann"} {
		if got := events.MsgID(k1, subj, "x"); got != "x" {
			t.Errorf("%s: %q, want the id as it is", subj, got)
		}
	}
	if got := events.MsgID(nil, model, id); got != id {
		t.Errorf("no key: %q", got)
	}
	if !events.SameSubject(model, model) || !events.SameSubject(model, model+".3") || events.SameSubject(model, model+".3.4") ||
		events.SameSubject("ts.model.acme.r1.i1", model) || events.SameSubject("ts.in.a.b", "ts.in.a.b.c") {
		t.Error("SameSubject")
	}
}

// TestMsgIDsIsMsgID: a MsgIDs gives MsgID's id for every key, subject and
// id, called one after the other (its HMAC is reset between ids).
func TestMsgIDsIsMsgID(t *testing.T) {
	subjects := []string{"ts.model.globex.r1.i1", "ts.in.globex.openai.s1", "ts.call.globex.c1", "not a subject"}
	for _, key := range [][]byte{nil, bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{7}, 32)} {
		ids := events.NewMsgIDs(key)
		for n := range 3 {
			for _, subj := range subjects {
				id := events.EdgeEventID("globex", "s1", int64(n), n)
				if got, want := ids.MsgID(subj, id), events.MsgID(key, subj, id); got != want {
					t.Errorf("key %x, %s, %s: MsgIDs %q, MsgID %q", key, subj, id, got, want)
				}
				if key != nil && strings.HasPrefix(subj, "ts.in.") {
					mac := hmac.New(sha256.New, key)
					mac.Write([]byte(subj + "\x00" + id))
					want := events.MsgIDTagPrefix + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:16])
					if got := ids.MsgID(subj, id); got != want {
						t.Errorf("key %x, %s, %s: %q, want the HMAC tag %q", key, subj, id, got, want)
					}
				}
			}
		}
	}
}
