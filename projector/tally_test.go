package projector_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
)

// tally is the test projection: per tenant it counts events and sums their
// values, remembers each item's last text, and emits one event per input.
// Text "poison" is bad input.
type tally struct{}

func (tally) Name() string       { return "tally" }
func (tally) Subjects() []string { return []string{"ts.model.>"} }

func (tally) Apply(tx *projector.Tx, m *projector.Msg) error {
	ev, err := m.Event()
	if err != nil {
		return err
	}
	td, ok := events.As[*events.TextDelta](ev)
	if !ok {
		return fmt.Errorf("%w: tally wants text deltas, got %s", events.ErrBadInput, ev.Kind)
	}
	if strings.HasPrefix(td.Text, "poison") {
		return fmt.Errorf("%w: poison %q", events.ErrBadInput, td.Text)
	}
	key, err := projector.TenantKey(ev.Tenant, "count")
	if err != nil {
		return err
	}
	var n, sum uint64
	if v, ok, err := tx.Get(key); err != nil {
		return err
	} else if ok {
		n, sum = binary.BigEndian.Uint64(v), binary.BigEndian.Uint64(v[8:])
	}
	n++
	sum += uint64(td.Index)
	v := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, n), sum)
	if err := tx.Set(key, v); err != nil {
		return err
	}
	ik, _ := projector.TenantKey(ev.Tenant, "item", ev.Item)
	if err := tx.Set(ik, []byte(td.Text)); err != nil {
		return err
	}
	subj, err := events.ControlSubject(ev.Tenant, "tally")
	if err != nil {
		return err
	}
	return tx.Emit(subj, &events.Event{ID: "tally:" + ev.ID, Tenant: ev.Tenant, Item: ev.Item,
		Body: &events.TextDelta{Index: int(n), Text: td.Text}})
}

// Reject emits a typed rejection for refused input, as invariant 9 of docs/design.md wants.
func (tally) Reject(_ context.Context, tx *projector.Tx, m *projector.Msg, reason error) error {
	return tx.Emit("ts.ctl._system.rejected", &events.Event{
		ID: fmt.Sprintf("rejected:%d", m.Seq), Tenant: events.SystemTenant,
		Body: &events.ItemAborted{Reason: events.ReasonMalformedEvent, Detail: reason.Error()},
	})
}

func tallyState(v projector.Reader, tenant string) (n, sum uint64) {
	key, _ := projector.TenantKey(tenant, "count")
	b, ok, _ := v.Get(key)
	if !ok {
		return 0, 0
	}
	return binary.BigEndian.Uint64(b), binary.BigEndian.Uint64(b[8:])
}
