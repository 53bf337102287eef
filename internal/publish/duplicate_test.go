package publish_test

import (
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/publish"
)

// TestSameMessage: a stored message is the one published under its id
// when it has its subject and its bytes, or an event of its id and tenant
// in other bytes (sealed anew); another subject, id or tenant, bytes that
// are no event, or nothing stored is another's.
func TestSameMessage(t *testing.T) {
	enc := func(id, tenant, by string) []byte {
		b, err := events.Encode(&events.Event{ID: id, Tenant: tenant, Body: &events.ApprovalGranted{By: by}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	const subj = "ts.approval.acme.k1"
	ours := enc("approval:k1", "acme", "ann")
	for _, c := range []struct {
		name   string
		data   []byte // published; nil: ours
		stored *jetstream.RawStreamMsg
		want   bool
	}{
		{"the same bytes", nil, &jetstream.RawStreamMsg{Subject: subj, Data: ours}, true},
		{"the same event in other bytes", nil, &jetstream.RawStreamMsg{Subject: subj, Data: enc("approval:k1", "acme", "bob")}, true},
		{"the same bytes, not an event", []byte("raw"), &jetstream.RawStreamMsg{Subject: subj, Data: []byte("raw")}, true},
		{"another subject", nil, &jetstream.RawStreamMsg{Subject: "ts.approval.acme.k2", Data: ours}, false},
		{"another id", nil, &jetstream.RawStreamMsg{Subject: subj, Data: enc("approval:k2", "acme", "ann")}, false},
		{"another tenant", nil, &jetstream.RawStreamMsg{Subject: subj, Data: enc("approval:k1", "globex", "ann")}, false},
		{"not an event", nil, &jetstream.RawStreamMsg{Subject: subj, Data: []byte("theirs")}, false},
		{"nothing stored", nil, nil, false},
	} {
		data := c.data
		if data == nil {
			data = ours
		}
		if got := publish.SameMessage(subj, data, c.stored); got != c.want {
			t.Errorf("%s: SameMessage = %v, want %v", c.name, got, c.want)
		}
	}
}
