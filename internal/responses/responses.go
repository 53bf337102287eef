package responses

import (
	"errors"
	"fmt"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
	"github.com/vmihailenco/msgpack/v5"
)

// Name is the projection's name.
const Name = "responses"

// Response is one response in the index.
type Response struct {
	Tenant   string `msgpack:"t" json:"tenant"`
	ID       string `msgpack:"id" json:"response_id"`
	Provider string `msgpack:"p,omitempty" json:"provider,omitempty"`
	Model    string `msgpack:"m,omitempty" json:"model,omitempty"`
	Status   string `msgpack:"s" json:"status"` // open | completed | incomplete | failed
	Reason   string `msgpack:"r,omitempty" json:"reason,omitempty"`
	Items    int    `msgpack:"ni" json:"items"`
	Events   int    `msgpack:"ne" json:"events"`
	FirstSeq uint64 `msgpack:"fs" json:"first_seq"`
	LastSeq  uint64 `msgpack:"ls" json:"last_seq"`
	FirstAt  int64  `msgpack:"fa" json:"first_at"`
	LastAt   int64  `msgpack:"la" json:"last_at"`
}

// Projection indexes responses.
type Projection struct{}

// Name implements projector.Projection.
func (Projection) Name() string { return Name }

// Subjects implements projector.Projection.
// The projection reads the model events only (TS_MODEL); the assembler's
// verdict on a response, ResponseOutcome, lives with the outcomes (TS_OUT).
func (Projection) Subjects() []string { return []string{events.AllModel} }

// bodyKinds are the kinds whose body Apply reads: the provider and model,
// the stop reason, the reason cut short, the failure's code.
var bodyKinds = map[events.Kind]bool{events.KindResponseStarted: true, events.KindResponseCompleted: true,
	events.KindResponseIncomplete: true, events.KindResponseFailed: true}

func key(tenant, id string) ([]byte, error) { return projector.TenantKey(tenant, "r", id) }

// Apply implements projector.Projection.
//
// Of most kinds (argument and text deltas, items added and done) the row
// takes only the envelope (kind, response, time): their bodies are neither
// opened nor decoded (projector.Msg.Envelope); only the kinds whose body it
// keeps (bodyKinds) are decoded whole. An event whose key was destroyed
// changes nothing either way.
func (Projection) Apply(tx *projector.Tx, m *projector.Msg) error {
	ev, err := m.Envelope()
	if err == nil && bodyKinds[ev.Kind] {
		ev, err = m.Event()
	}
	if err != nil {
		return err
	}
	if ev.Response == "" {
		if ev.Kind == events.KindTick {
			return nil
		}
		return fmt.Errorf("%w: %s without response id", events.ErrMissingField, ev.Kind)
	}
	k, err := key(ev.Tenant, ev.Response)
	if err != nil {
		return err
	}
	r := Response{Tenant: ev.Tenant, ID: ev.Response, Status: "open", FirstSeq: m.Seq, FirstAt: ev.At}
	if b, ok, err := tx.Get(k); err != nil {
		return err
	} else if ok {
		if err := msgpack.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("responses: corrupt row %q: %w", k, err)
		}
	}
	r.Events++
	r.LastSeq, r.LastAt = m.Seq, ev.At
	if ev.Kind == events.KindOutputItemAdded {
		r.Items++
	}
	switch b := ev.Body.(type) {
	case *events.ResponseStarted:
		r.Provider, r.Model = b.Provider, b.Model
	case *events.ResponseCompleted:
		r.Status, r.Reason = "completed", b.StopReason
	case *events.ResponseIncomplete:
		r.Status, r.Reason = "incomplete", string(b.Reason)
	case *events.ResponseFailed:
		r.Status, r.Reason = "failed", b.Code
	}
	v, err := msgpack.Marshal(&r)
	if err != nil {
		return err
	}
	return tx.Set(k, v)
}

// List returns a tenant's responses in id order.
// It returns projector.ErrNoTenant for an empty tenant.
func List(rd projector.Reader, tenant string) ([]Response, error) {
	if err := events.ValidTenant(tenant); err != nil {
		return nil, fmt.Errorf("%w: %v", projector.ErrNoTenant, err)
	}
	prefix, err := projector.TenantKey(tenant, "r", "")
	if err != nil {
		return nil, err
	}
	var out []Response
	err = rd.Scan(prefix, func(_, v []byte) error {
		var r Response
		if err := msgpack.Unmarshal(v, &r); err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

// ErrNotFound is returned by Get for an unknown response.
var ErrNotFound = errors.New("responses: not found")

// Get returns one response of a tenant; ErrNotFound or projector.ErrNoTenant.
func Get(rd projector.Reader, tenant, id string) (Response, error) {
	if err := events.ValidTenant(tenant); err != nil {
		return Response{}, fmt.Errorf("%w: %v", projector.ErrNoTenant, err)
	}
	k, _ := key(tenant, id)
	b, ok, err := rd.Get(k)
	if err != nil {
		return Response{}, err
	}
	if !ok {
		return Response{}, ErrNotFound
	}
	var r Response
	return r, msgpack.Unmarshal(b, &r)
}
