package executor

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
)

// Approvals. A call to a tool with approval: required records
// awaiting_approval, publishes ApprovalRequested on
// events.ExecSubject(tenant, key) and acknowledges its input: the wait is
// durable (the record and the log), so it survives restarts. A person
// decides with Approve or Deny, which publish ApprovalGranted or
// ApprovalDenied on events.ApprovalSubject(tenant, key). Executors consume
// decisions as competing consumers: the first decision recorded in the
// call's record wins, and the decision's message carries the call from
// there (run, or fail with approval_denied).

// Approve lets the waiting call with idempotency key callKey (the Key of its
// ApprovalRequested: tenant/run/step/call) run. by and reason are recorded.
// It returns ErrInvalidKey when callKey is not one of tenant's keys and
// ErrAlreadyDecided when another decision is first on the call's approval
// subject (the executor takes the first alone). A decision may
// come before the call is seen; it is kept for it.
func Approve(ctx context.Context, js jetstream.JetStream, tenant, callKey, by, reason string) error {
	return decide(ctx, js, tenant, callKey, &events.ApprovalGranted{By: by, Reason: reason})
}

// Deny ends the waiting call with approval_denied; reason tells the model
// why. Errors as Approve.
func Deny(ctx context.Context, js jetstream.JetStream, tenant, callKey, by, reason string) error {
	return decide(ctx, js, tenant, callKey, &events.ApprovalDenied{By: by, Reason: reason})
}

func decide(ctx context.Context, js jetstream.JetStream, tenant, callKey string, body events.Body) error {
	if err := events.ValidTenant(tenant); err != nil || tenant == events.SystemTenant {
		return fmt.Errorf("executor: %s: %w: tenant %q", body.Kind(), ErrInvalidKey, tenant)
	}
	run, step, call, ok := splitKey(tenant, callKey)
	if !ok {
		return fmt.Errorf("%w: %q is not a call key of tenant %s (want %s/run/step/call)", ErrInvalidKey, callKey, tenant, tenant)
	}
	subj, err := events.ApprovalSubject(tenant, callKey)
	if err != nil {
		return err
	}
	ev := &events.Event{ID: events.ApprovalID(callKey), Tenant: tenant, Run: run, Step: step, CallID: call, At: time.Now().UnixNano(), Body: body}
	data, err := events.Encode(ev)
	if err != nil {
		return err
	}
	// A key of this decision's own: its message id is one no other identity
	// can claim first (events.OwnedMsgID); which decision stands is the
	// first on the subject.
	key := make([]byte, events.MsgIDKeyBytes)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	ack, err := js.Publish(ctx, subj, data, jetstream.WithMsgID(events.OwnedMsgID(key, subj, ev.ID)))
	if err != nil {
		return fmt.Errorf("executor: publish %s: %w", body.Kind(), err)
	}
	s, err := js.Stream(ctx, ack.Stream)
	if err != nil {
		return fmt.Errorf("executor: %s %s stored at %d, but which decision is first: %w", body.Kind(), callKey, ack.Sequence, err)
	}
	first, err := s.GetMsg(ctx, 1, jetstream.WithGetMsgSubject(subj))
	if err != nil {
		return fmt.Errorf("executor: %s %s stored at %d, but which decision is first: %w", body.Kind(), callKey, ack.Sequence, err)
	}
	if first.Sequence != ack.Sequence {
		return fmt.Errorf("%w: %s", ErrAlreadyDecided, callKey)
	}
	return nil
}

// handleApprovalMsg records a decision in the call's record and, when the
// call is waiting for it, carries the call on.
func (e *Executor) handleApprovalMsg(m jetstream.Msg) {
	ev, err := events.DecodeAtWith(m.Subject(), m.Data(), e.cfg.Keys)
	if err != nil {
		reason := events.ReasonOf(err)
		e.log.Warn("approval event refused", "reason", reason, "subject", m.Subject(), "err", err)
		m.TermWithReason(string(reason))
		return
	}
	decision, by, reason := "", "", ""
	switch b := ev.Body.(type) {
	case *events.ApprovalGranted:
		decision, by, reason = approvalGranted, b.By, b.Reason
	case *events.ApprovalDenied:
		decision, by, reason = approvalDenied, b.By, b.Reason
	default:
		m.Ack()
		return
	}
	key, ok := approvalKey(m.Subject(), ev.Tenant)
	if !ok {
		// Tenants never meet: a decision names a call of its own tenant.
		e.log.Warn("approval for a call of another tenant ignored", "tenant", ev.Tenant, "subject", m.Subject())
		m.TermWithReason("tenant mismatch")
		return
	}
	log := e.log.With("tenant", ev.Tenant, "key", key)
	if first, err := e.firstDecision(m); err != nil {
		log.Warn("cannot read the call's first decision; handing this one back", "err", err)
		m.NakWithDelay(e.cfg.Heartbeat)
		return
	} else if !first {
		log.Info("approval decision ignored: another is first on the call's subject", "decision", decision)
		m.Ack()
		return
	}
	if !e.claimActive(key, m) {
		m.NakWithDelay(e.cfg.Heartbeat)
		return
	}
	rec, err := e.recordDecision(ev.Tenant, key, decision, by, reason)
	e.releaseActive(key)
	if err != nil {
		log.Warn("cannot record approval decision; handing it back", "err", err)
		m.NakWithDelay(e.cfg.Heartbeat)
		return
	}
	if rec.State == stateDone {
		log.Info("approval decision ignored: the call has finished", "decision", decision)
		m.Ack()
		return
	}
	if rec.Approval != decision {
		log.Info("approval decision ignored: the call was decided already, or is past its gate", "decision", decision, "recorded", rec.Approval)
		m.Ack()
		return
	}
	if rec.State != stateAwaiting && rec.State != stateRunning {
		m.Ack() // the call sees the decision when it reaches its gate
		return
	}
	// Waiting: this decision carries the call on. Running: this message may
	// be the call's carrier (redelivered after a crash), so it is settled
	// like one — never acknowledged before the call is decided.
	raw, err := e.readMsg(e.hard, e.stream, e.streamName, rec.InputSeq, "")
	if err != nil {
		log.Warn("cannot read the waiting call; handing the decision back", "seq", rec.InputSeq, "err", err)
		m.NakWithDelay(e.cfg.Heartbeat)
		return
	}
	cev, err := events.DecodeAtWith(raw.Subject, raw.Data, e.cfg.Keys)
	var cc *events.CallCompleted
	isCall := false
	if err == nil {
		cc, isCall = events.As[*events.CallCompleted](cev)
	}
	if !isCall || cev.Tenant != ev.Tenant || CallKey(cev) != key {
		log.Error("the waiting call's input is not its CallCompleted", "seq", rec.InputSeq, "err", err)
		m.Ack()
		return
	}
	e.newJob(m, rec.InputSeq, cev, cc, true).process()
}

// firstDecision reports whether m is the first message on its approval
// subject. Decisions' message ids are tagged under each decider's key, so
// the log may hold several about one call (two operators deciding); the
// first is the decision, whichever executor's consumer sees which first.
func (e *Executor) firstDecision(m jetstream.Msg) (bool, error) {
	md, err := m.Metadata()
	if err != nil {
		return false, err
	}
	var raw *jetstream.RawStreamMsg
	err = retryUntil(e.hard, e.store.retry, e.store.deadline(), func(ctx context.Context) error {
		raw, err = e.readMsg(ctx, e.stream, e.streamName, 1, m.Subject())
		return err
	})
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return false, nil // m itself is gone (erased): nothing to decide by
	}
	if err != nil {
		return false, err
	}
	return raw.Sequence == md.Sequence.Stream, nil
}

// recordDecision writes the first decision about a call into its record
// (creating a pending record when the call is not known yet) and returns
// the record as it now stands. A call already running or done keeps its
// record untouched.
func (e *Executor) recordDecision(tenant, key, decision, by, reason string) (*record, error) {
	for range conflictsMax {
		rec, rev, err := e.store.get(e.hard, tenant, key)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			if rec, err = e.loggedRecord(e.hard, tenant, key); err != nil || rec != nil {
				return rec, err // decided in the log alone: done
			}
			rec = &record{Key: key, State: statePending}
		}
		// A running or finished call is past its gate: writing to its record
		// would only break the lease of whoever runs it.
		if rec.Approval != "" || rec.State == stateDone || rec.State == stateRunning {
			return rec, nil
		}
		next := rec.clone()
		next.Approval, next.ApprovalBy, next.ApprovalReason = decision, by, reason
		_, err = e.store.put(e.hard, tenant, next, rev)
		if errors.Is(err, errConflict) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return next, nil
	}
	return nil, errConflict
}

// approvalKey returns the call key of a decision's subject
// (ts.approval.<tenant>.<key>) if it is a key of tenant.
func approvalKey(subject, tenant string) (string, bool) {
	parts := strings.SplitN(subject, ".", 4)
	if len(parts) != 4 || parts[2] != tenant {
		return "", false
	}
	key, err := events.Untoken(parts[3])
	if err != nil {
		return "", false
	}
	_, _, _, ok := splitKey(tenant, key)
	return key, ok
}
