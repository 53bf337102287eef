package runs

import (
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
)

// CallsName is the name of the projection that copies call decisions into
// the runs' stream.
const CallsName = "runs-calls"

// Calls is the projection that copies what the runs projection needs of
// TS_CALLS into TS_OUT, where the results are: each call the assembler
// decided (CallCompleted, CallRejected, CallIncomplete) and each approval
// asked for or granted becomes a RunCall on its run's subject. A
// projection reads one stream; the round needs both.
//
// Its view is the approvals it has seen by idempotency key: an approval
// decision names its call by key alone (no response, no item), and a
// decision may come before the request.
type Calls struct{}

var _ projector.Projection = Calls{}

// Name implements projector.Projection.
func (Calls) Name() string { return CallsName }

// Subjects implements projector.Projection.
func (Calls) Subjects() []string {
	return []string{events.AllCalls, events.AllExec, events.AllApprovals}
}

// approval is what the view keeps of a call that asked for approval.
type approval struct {
	Requested bool   `msgpack:"rq,omitempty"`
	Granted   bool   `msgpack:"gr,omitempty"`
	Denied    bool   `msgpack:"dn,omitempty"`
	Run       string `msgpack:"run,omitempty"`
	Response  string `msgpack:"r,omitempty"`
	Item      string `msgpack:"i,omitempty"`
	CallID    string `msgpack:"c,omitempty"`
	User      string `msgpack:"u,omitempty"`
	Session   string `msgpack:"ss,omitempty"`
}

func approvalKey(tenant, key string) ([]byte, error) { return projector.TenantKey(tenant, "ap", key) }

// Apply implements projector.Projection.
func (Calls) Apply(tx *projector.Tx, m *projector.Msg) error {
	ev, err := m.Event()
	if err != nil {
		return err
	}
	var rc *events.RunCall
	switch b := ev.Body.(type) {
	case *events.CallCompleted:
		rc = &events.RunCall{Verdict: events.CallVerdictCompleted, Name: b.Name, Order: b.Order, Arguments: b.Arguments, Bytes: b.From.Bytes, DependsOn: b.DependsOn,
			ClientRuns: b.ClientRuns, Builtin: b.Builtin}
		if b.Builtin {
			// Its outcome comes from the run's driver under the key an
			// executor would use (executor.CallKey).
			step, call := ev.Step, ev.CallID
			if step == "" {
				step = ev.Response
			}
			if call == "" {
				call = ev.Item
			}
			rc.Key = events.IdempotencyKey(ev.Tenant, ev.Run, step, call)
		}
	case *events.CallRejected:
		rc = &events.RunCall{Verdict: events.CallVerdictRejected, Name: b.Name, Order: b.Order, Reason: b.Reason, Detail: b.Detail, Arguments: b.Arguments, Bytes: b.From.Bytes}
	case *events.CallIncomplete:
		n := b.From.Bytes
		if n == 0 {
			n = len(b.Partial)
		}
		rc = &events.RunCall{Verdict: events.CallVerdictIncomplete, Name: b.Name, Order: b.Order, Reason: b.Reason, Detail: b.Detail, Bytes: n}
	case *events.ApprovalRequested:
		return approvalRequested(tx, ev, b)
	case *events.ApprovalGranted:
		return approvalGranted(tx, ev)
	case *events.ApprovalDenied:
		return approvalDenied(tx, ev)
	default:
		return nil // executions started, ticks
	}
	if ev.Response == "" {
		return nil // a call event without a response names no round
	}
	return emitRunCall(tx, ev, ev.Item, rc)
}

// emitRunCall emits rc on the run of ev's envelope, named by the call's
// identity (what: the item, or the key for approvals).
func emitRunCall(tx *projector.Tx, ev *events.Event, what string, rc *events.RunCall) error {
	run := events.RunOf(ev)
	subj, err := events.RunSubject(ev.Tenant, run)
	if err != nil {
		return err
	}
	out := &events.Event{ID: events.RunCallID(ev.Tenant, ev.Response, what, rc.Verdict), Tenant: ev.Tenant, User: ev.User,
		Session: ev.Session, Run: ev.Run, Step: ev.Step, Response: ev.Response, Item: ev.Item, CallID: ev.CallID, At: ev.At, Body: rc}
	return tx.Emit(subj, out)
}

func approvalRequested(tx *projector.Tx, ev *events.Event, b *events.ApprovalRequested) error {
	if b.Key == "" || ev.Response == "" {
		return nil
	}
	k, err := approvalKey(ev.Tenant, b.Key)
	if err != nil {
		return err
	}
	var ap approval
	if _, err := load(tx, k, &ap); err != nil {
		return err
	}
	if ap.Requested {
		return nil // asked again (a redelivered call): announced once
	}
	ap.Requested, ap.Run, ap.Response, ap.Item, ap.CallID, ap.User, ap.Session = true, ev.Run, ev.Response, ev.Item, ev.CallID, ev.User, ev.Session
	if err := store(tx, k, &ap); err != nil {
		return err
	}
	if err := emitRunCall(tx, ev, b.Key, &events.RunCall{Verdict: events.CallVerdictApproval, Name: b.Name, Key: b.Key}); err != nil {
		return err
	}
	if ap.Granted { // the decision came first
		return emitRunCall(tx, ev, b.Key, &events.RunCall{Verdict: events.CallVerdictApproved, Key: b.Key})
	}
	return nil
}

// approvalDecided records the first decision about ev's call (granted or
// denied) and returns the key, the approval as it now stands and whether
// ev's decision is that first one. Decisions are each decider's
// (events.OwnedMsgID), so the log may hold several: the first stands.
func approvalDecided(tx *projector.Tx, ev *events.Event, granted bool) (string, approval, bool, error) {
	key := events.IdempotencyKey(ev.Tenant, ev.Run, ev.Step, ev.CallID)
	var ap approval
	k, err := approvalKey(ev.Tenant, key)
	if err != nil {
		return key, ap, false, err
	}
	if _, err := load(tx, k, &ap); err != nil {
		return key, ap, false, err
	}
	if ap.Granted || ap.Denied {
		return key, ap, false, nil
	}
	ap.Granted, ap.Denied = granted, !granted
	return key, ap, true, store(tx, k, &ap)
}

func approvalGranted(tx *projector.Tx, ev *events.Event) error {
	key, ap, first, err := approvalDecided(tx, ev, true)
	if err != nil || !first || !ap.Requested {
		return err // a later decision, or announced when the request comes
	}
	call := &events.Event{Tenant: ev.Tenant, User: ap.User, Session: ap.Session, Run: ap.Run, Response: ap.Response, Item: ap.Item, CallID: ap.CallID, At: ev.At}
	return emitRunCall(tx, call, key, &events.RunCall{Verdict: events.CallVerdictApproved, Key: key})
}

// approvalDenied records a denial as the call's first decision, if it is:
// a grant after it is not the call's (the denial itself shows with the
// executor's CallFailed).
func approvalDenied(tx *projector.Tx, ev *events.Event) error {
	_, _, _, err := approvalDecided(tx, ev, false)
	return err
}
