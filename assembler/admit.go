package assembler

import (
	"context"
	"fmt"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
)

// Admission (Config.Quotas; docs/design.md, "Fair to every tenant").
//
// Every model event of a tenant is charged against the tenant's rates
// before anything else is done with it. An event over them refuses its
// whole response: the calls still open become CallIncomplete and the
// response ResponseOutcome incomplete, both quota_exceeded, at once; the
// events of a decided response are ignored, so the rest of a refused
// response costs a lookup each. A call opened while the tenant has
// OpenCallsMax calls open is CallRejected quota_exceeded and its later
// events are ignored. Nothing is dropped unseen: the events stay in the
// log, each is counted in the tenant's Usage, and the outcomes say why.
//
// All of it is decided from the view and the event (its time, its size),
// never the wall clock, so a replay refuses exactly what the live view
// did.

// quotaKey is a tenant's quota row: <tenant>\0q.
func quotaKey(tenant string) ([]byte, error) { return projector.TenantKey(tenant, "q") }

// tenantQuota is a tenant's quota row and its quota, as the cache holds
// them.
type tenantQuota struct {
	quotaRow
	q Quota
}

// quota returns the tenant's quota state; nil when there are no quotas.
func (a *Assembler) quota(r projector.Reader, tenant string) (*tenantQuota, error) {
	if a.cfg.Quotas == nil {
		return nil, nil
	}
	if t := a.quotas[tenant]; t != nil {
		a.before(tenant, t)
		return t, nil
	}
	k, err := quotaKey(tenant)
	if err != nil {
		return nil, err
	}
	t := &tenantQuota{q: a.cfg.Quotas.For(tenant)}
	if v, ok, err := r.Get(k); err != nil {
		return nil, err
	} else if ok {
		if err := t.unmarshal(v); err != nil {
			return nil, fmt.Errorf("%w %q", err, k)
		}
	}
	if len(a.quotas) >= cacheMax && len(a.touched) == 0 {
		clear(a.quotas) // a cache: rebuilt from the view on demand
	}
	a.quotas[tenant] = t
	a.before(tenant, t)
	return t, nil
}

// before keeps the tenant's row as it was before the message being applied
// first asked for it, so a message whose Tx is dropped can be undone.
func (a *Assembler) before(tenant string, t *tenantQuota) {
	if _, ok := a.undo[tenant]; !ok {
		a.undo[tenant] = t.quotaRow
	}
}

// touch marks a tenant's quota row changed since the batch's Flush.
func (a *Assembler) touch(tenant string, t *tenantQuota) { a.touched[tenant] = t }

// Flush implements projector.Flusher: the open responses' rows (finish)
// and the quota rows the batch changed are written once, when it ends (every model event changes its tenant's row:
// writing it per event was a Pebble write and an encoding per delta).
func (a *Assembler) Flush(_ context.Context, tx *projector.Tx) error {
	if err := a.flushResponses(tx); err != nil {
		return err
	}
	for tenant, t := range a.touched { // distinct keys: the order changes nothing
		k, err := quotaKey(tenant)
		if err != nil {
			return err
		}
		a.qbuf = t.marshal(a.qbuf[:0])
		if err := tx.Set(k, a.qbuf); err != nil {
			return err
		}
	}
	clear(a.touched)
	a.previewAfterCommit(tx)
	return nil
}

// applied ends a message whose Tx is kept: its changes stay for Flush.
func (a *Assembler) applied() { clear(a.undo) }

// dropQuotas undoes what a message whose Tx is dropped changed.
func (a *Assembler) dropQuotas() {
	for tenant, row := range a.undo {
		if t := a.quotas[tenant]; t != nil {
			t.quotaRow = row
		}
	}
	clear(a.undo)
}

// admit charges ev (size bytes in the log) to its tenant and reports
// whether it is within the tenant's rates. Event time is the event's own
// (ingest gives a raw event's stream time; the stream time of a model
// event relayed during a catch-up would crowd a tenant's past into a
// moment), but never later than the log's time of the message: a producer
// that dates its events ahead would otherwise move its tenant's clock
// forward and be given a new burst with every jump. An event without a
// time takes the log's.
func (a *Assembler) admit(tx *projector.Tx, m *projector.Msg, ev *events.Event) (bool, error) {
	t, err := a.quota(tx, ev.Tenant)
	if err != nil || t == nil {
		return true, err
	}
	at := m.Time
	if ev.At > 0 && (ev.At < at || at == 0) {
		at = ev.At
	}
	a.touch(ev.Tenant, t)
	size := uint64(len(m.Data))
	burst := int64(a.cfg.Quotas.burst())
	if t.admit(at, len(m.Data), t.q, burst) {
		t.Admitted++
		t.AdmittedBytes += size
		if o, over := a.over[ev.Tenant]; over && at-o.last >= burst {
			delete(a.over, ev.Tenant)
			a.log.Info("tenant within its quota again", "tenant", ev.Tenant, "refused", t.Refused-o.refused)
		}
		return true, nil
	}
	t.Refused++
	t.RefusedBytes += size
	if o, over := a.over[ev.Tenant]; over {
		o.last = at
		a.over[ev.Tenant] = o
	} else {
		a.over[ev.Tenant] = overQuota{refused: t.Refused - 1, last: at}
		a.log.Warn("tenant over its quota: refusing its responses", "tenant", ev.Tenant, "quota", t.q.String(),
			"burst", a.cfg.Quotas.burst(), "seq", m.Seq)
	}
	return false, nil
}

// overQuota is a tenant refused since it went over its rates, for the log
// lines only: its refusals when it went over, and the event time of its
// last refusal. A tenant at its rate's edge is admitted and refused in
// turn, event by event, as its bucket refills: it is back within its quota
// only once a burst's time passed with no refusal, so the log says so once
// a bout, not once an event (a replay of a flood wrote two lines an event).
type overQuota struct {
	refused uint64
	last    int64
}

// refuse decides the response over its tenant's rates: its open calls
// become incomplete and the response too, quota_exceeded.
func (s *step) refuse() error {
	t, err := s.a.quota(s.tx, s.ev.Tenant)
	if err != nil {
		return err
	}
	t.Refusals++
	detail := fmt.Sprintf("tenant %s is over its quota (%s per second, burst %s): the response is refused from log sequence %d on; its events stay in the log",
		s.ev.Tenant, t.q, s.a.cfg.Quotas.burst(), s.seq)
	return s.endResponse(events.StatusIncomplete, events.ReasonQuotaExceeded, detail, "", "")
}

// openRoom takes one of the tenant's open calls for a call opening now;
// false (and the call is refused) when the tenant has OpenCallsMax open.
func (s *step) openRoom() (bool, error) {
	t, err := s.a.quota(s.tx, s.ev.Tenant)
	if err != nil || t == nil {
		return true, err
	}
	if t.q.OpenCallsMax > 0 && t.open >= uint64(t.q.OpenCallsMax) {
		return false, nil
	}
	t.open++
	s.a.touch(s.ev.Tenant, t)
	return true, nil
}

// closed gives back the open call of a call just decided.
func (s *step) closed() error {
	t, err := s.a.quota(s.tx, s.ev.Tenant)
	if err != nil || t == nil {
		return err
	}
	if t.open > 0 { // a view written before quotas did not count its open calls
		t.open--
	}
	s.a.touch(s.ev.Tenant, t)
	return nil
}

// refuseCall decides a call opening past its tenant's OpenCallsMax:
// CallRejected quota_exceeded, at once; its later events are ignored.
func (s *step) refuseCall(key []byte, name string, index int) error {
	ev := s.ev
	t, err := s.a.quota(s.tx, ev.Tenant)
	if err != nil {
		return err
	}
	t.CallsRefused++
	c := call{Name: name, CallID: ev.CallID, Index: index, Order: s.re.row.Calls, State: stateDecided, Outcome: "rejected", Env: envOf(ev),
		From: events.Provenance{FirstSeq: s.seq, LastSeq: s.seq, OpenedAt: ev.At}}
	s.re.row.Calls++
	s.re.row.Decided++
	s.dirty = true
	s.re.noteCall(ev.Item, true)
	if err := store(s.tx, key, &c); err != nil {
		return err
	}
	subj, err := events.CallSubject(ev.Tenant, c.Name)
	if err != nil {
		return err
	}
	detail := fmt.Sprintf("tenant %s has %d calls open, its quota: the call is refused; its events stay in the log", ev.Tenant, t.q.OpenCallsMax)
	return s.tx.Emit(subj, s.event(events.RejectedID(ev.Tenant, ev.Response, ev.Item), ev.Item, c.CallID, c.Env,
		&events.CallRejected{Name: c.Name, Index: c.Index, Reason: events.ReasonQuotaExceeded, Detail: detail, Order: c.Order, From: c.From}))
}

// AssemblerUsage returns what an assembler view took and refused of
// tenant, and the tenant's calls open now; zero when the view keeps no
// quotas (Config.Quotas nil) or the tenant sent nothing. r should be a
// snapshot (Runner.View).
func AssemblerUsage(r projector.Reader, tenant string) (u Usage, open int, err error) {
	k, err := quotaKey(tenant)
	if err != nil {
		return Usage{}, 0, err
	}
	v, ok, err := r.Get(k)
	if err != nil || !ok {
		return Usage{}, 0, err
	}
	var row quotaRow
	if err := row.unmarshal(v); err != nil {
		return Usage{}, 0, err
	}
	return row.Usage, int(row.open), nil
}

// DefaultQuotas are the quotas serve enforces unless told otherwise: every
// tenant gets the package defaults.
func DefaultQuotas() *Quotas { return &Quotas{Burst: BurstDefault} }
