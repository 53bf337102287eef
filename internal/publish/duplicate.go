package publish

import (
	"bytes"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
)

// SameMessage reports whether stored, the message the log holds under a
// message id, is the message being published under it (subject and
// data), as a duplicate acknowledgement claims: the same subject (or it
// with its partition token, events.SameSubject) and the same bytes or,
// sealed anew, an event of the same id and tenant. A publisher that
// writes its message again gets a duplicate acknowledgement for its own;
// one that finds another's stored under its id first gets one too, and
// SameMessage is false (the caller's ErrDuplicateNotOurs). The bus and the
// client check duplicates with it (Ordered.Duplicate).
func SameMessage(subject string, data []byte, stored *jetstream.RawStreamMsg) bool {
	if stored == nil || !events.SameSubject(subject, stored.Subject) {
		return false
	}
	if bytes.Equal(stored.Data, data) {
		return true
	}
	a, err := events.Envelope(stored.Data)
	if err != nil {
		return false
	}
	b, err := events.Envelope(data)
	return err == nil && a.ID == b.ID && a.Tenant == b.Tenant
}
