package executor

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/registry"
	"go.opentelemetry.io/otel/trace"
)

// conflictsMax bounds how often one input re-reads a record that keeps
// changing under it before handing the input back.
const conflictsMax = 16

// job is one delivery of a call: the input that carries it (the
// CallCompleted, or the approval decision that resumes it) and the call.
// The carrier is acknowledged only once the call's record says what
// happens next (done, or waiting for an approval) and any event announcing
// it is published.
type job struct {
	e           *Executor
	carrier     jetstream.Msg
	viaApproval bool
	optimistic  bool // first delivery of a call without dependencies: create the record without reading it first
	depsOK      bool
	logTaken    bool           // the result subject held a message when this job published: decide in the bucket
	gw          *gatewayResult // the gateway's last answer (gateway.go): nil, or &gwv
	gwv         gatewayResult  // gw's storage, in the job's own allocation
	seq         uint64         // stream sequence of the CallCompleted
	ev          *events.Event
	cc          *events.CallCompleted
	key         string
	tenant      string
	log         *slog.Logger // made at first use: most calls log nothing
	settled     bool         // the carrier was acked or handed back
	span        trace.Span   // the attempt under way's span (otel.go); nil when not traced
	hold        *objectHold  // the object the call changes, while held (object.go)
	authorized  bool         // the contract's authorize service allowed the call (authorize.go)
}

func (e *Executor) newJob(m jetstream.Msg, seq uint64, ev *events.Event, cc *events.CallCompleted, viaApproval bool) *job {
	key := CallKey(ev)
	return &job{
		e: e, carrier: m, viaApproval: viaApproval, seq: seq, ev: ev, cc: cc, key: key, tenant: ev.Tenant,
	}
}

// logger is the executor's logger with the call's tenant, key and tool.
// A job runs on one goroutine.
func (j *job) logger() *slog.Logger {
	if j.log == nil {
		j.log = j.e.log.With("tenant", j.tenant, "key", j.key, "tool", j.cc.Name)
	}
	return j.log
}

// process decides and carries out the call, then settles the carrier.
// While it works, the executor's keepalive marks the carrier in progress
// every Heartbeat (Executor.keepalive), so it is not redelivered meanwhile.
func (j *job) process() {
	if !j.e.claimActive(j.key, j.carrier) {
		j.nak(j.e.retryDelay(j.carrier)) // this process is already on it
		return
	}
	defer j.e.releaseActive(j.key)
	for range conflictsMax {
		err := j.step()
		switch {
		case errors.Is(err, errConflict):
			j.optimistic = false
			continue
		case errors.Is(err, errHandBack):
			j.nak(j.e.busyDelay(j.carrier))
		case err != nil:
			j.logger().Warn("call handling failed; handing it back", "err", err)
			j.nak(j.e.retryDelay(j.carrier))
		}
		return
	}
	j.logger().Warn("call record kept changing; handing it back")
	j.nak(j.e.retryDelay(j.carrier))
}

func (j *job) ack() {
	if !j.settled {
		j.settled = true
		if err := j.carrier.Ack(); err != nil {
			j.logger().Debug("ack failed; the record decides on redelivery", "err", err)
		}
	}
}

func (j *job) nak(delay time.Duration) {
	if j.settled {
		return
	}
	j.settled = true
	if delay <= 0 {
		j.carrier.Nak()
	} else {
		j.carrier.NakWithDelay(delay)
	}
}

// step reads the call's record and takes the one step it calls for.
func (j *job) step() error {
	var rec *record
	var rev uint64
	if !j.optimistic {
		var err error
		if rec, rev, err = j.e.store.get(j.e.hard, j.tenant, j.key); err != nil {
			return err
		}
		if rec == nil { // decided in the log alone? (logrecord.go)
			if rec, err = j.e.loggedRecord(j.e.hard, j.tenant, j.key); err != nil {
				return err
			}
		}
	}
	if rec != nil && rec.State != statePending && rec.State != stateSkipped {
		other, err := j.otherCall(rec)
		if err != nil {
			return err
		}
		if other != "" {
			return j.refuse(other)
		}
		if !j.viaApproval && rec.InputSeq != 0 && rec.InputSeq != j.seq {
			j.e.stats.duplicates.Add(1) // another CallCompleted of the same call carries it
			j.ack()
			return nil
		}
	}
	state := ""
	if rec != nil {
		state = rec.State
	}
	switch state {
	case stateDone:
		if !j.viaApproval && rec.InputSeq == j.seq {
			j.e.stats.duplicates.Add(1)
		}
		if rec.logged {
			j.settleLogged() // the outcome is in the log: nothing to republish
			return nil
		}
		return j.settleAs(rec.Outcome, rec.InputSeq, rec.Name)
	case stateAwaiting:
		if rec.Approval != "" {
			return j.resume(rec, rev)
		}
		return j.announceApproval()
	case stateRunning:
		if wait := time.Duration(rec.LeaseUntil - j.e.cfg.Clock().UnixNano()); wait > 0 {
			j.nak(wait + j.e.retryDelay(j.carrier)) // another executor holds the lease
			return nil
		}
		return j.takeover(rec, rev)
	}
	return j.fresh(rec, rev)
}

// otherCall says how the call the record is about differs from the one
// this job carries: another response or item, another tool, or, for
// another input of the same item, other arguments. "" when they are one
// call (a duplicate input, or the same input again).
func (j *job) otherCall(rec *record) (string, error) {
	switch {
	case rec.Response == "":
		return "", nil
	case rec.Response != j.ev.Response || rec.Item != j.ev.Item:
		return fmt.Sprintf("response %s, item %s", rec.Response, rec.Item), nil
	case rec.Name != "" && rec.Name != j.cc.Name:
		return "tool " + rec.Name, nil
	case j.viaApproval || rec.InputSeq == 0 || rec.InputSeq == j.seq:
		return "", nil
	}
	// Another input of the same item is a duplicate only if it asks the
	// same. Rare (the assembler decides an item once), so the first input
	// is read back rather than kept in every record.
	raw, err := j.e.readMsg(j.e.hard, j.e.stream, j.e.streamName, rec.InputSeq, "")
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return "", nil // no longer in the log: nothing to compare with
	}
	if err != nil {
		return "", fmt.Errorf("executor: read the first input of %s: %w", j.key, err)
	}
	if ev, err := events.DecodeAtWith(raw.Subject, raw.Data, j.e.cfg.Keys); err == nil {
		if cc, ok := events.As[*events.CallCompleted](ev); ok && bytes.Equal(cc.Arguments, j.cc.Arguments) {
			return "", nil
		}
	}
	return fmt.Sprintf("other arguments, at stream sequence %d", rec.InputSeq), nil
}

// refuse answers a call whose idempotency key is already another call's
// with a CallFailed idempotency_conflict (never silence), under an id of
// its own input (events.ConflictID), and leaves the other call's record
// alone: running it would be the other call's side effect again, or none.
func (j *job) refuse(other string) error {
	j.logger().Warn("idempotency key already used by another call; this call is not run",
		"response", j.ev.Response, "item", j.ev.Item, "other", other)
	msg := fmt.Sprintf("the idempotency key %s already belongs to another call (%s); this call was not run — give each call its own call id (or step), then call again", j.key, other)
	body := &events.CallFailed{Name: j.cc.Name, Key: j.key, Error: events.ErrIdempotencyConflict, Message: msg}
	out := j.outcomeWithID(events.ConflictID(j.key, j.seq), body, events.ErrIdempotencyConflict, msg)
	j.count(out)
	return j.settle(out)
}

// refuseRan refuses a call that ran while another call under its key was
// decided in the log (the race in logrecord.go): its outcome, kept in its
// record, cannot be the key's.
func (j *job) refuseRan(other string, ran *outcome) error {
	j.logger().Warn("idempotency key taken by another call while this one ran; its outcome is in its record only",
		"response", j.ev.Response, "item", j.ev.Item, "other", other, "error", ran.Error)
	msg := fmt.Sprintf("the idempotency key %s was taken by another call (%s) while this call ran; this call's effect happened and its outcome is in the executor's record of the key (toolstream trace) — give each call its own call id (or step)", j.key, other)
	body := &events.CallFailed{Name: j.cc.Name, Key: j.key, Error: events.ErrIdempotencyConflict, Message: msg}
	out := j.outcomeWithID(events.ConflictID(j.key, j.seq), body, events.ErrIdempotencyConflict, msg)
	j.count(out)
	return j.settle(out)
}

// base returns the record to write next: a copy of rec carrying this
// call's identity.
func (j *job) base(rec *record) *record {
	var next *record
	if rec == nil || rec.State == stateSkipped {
		next = &record{Key: j.key}
	} else {
		next = rec.clone()
	}
	next.Name = j.cc.Name
	next.InputSeq = j.seq
	next.Response, next.Item = j.ev.Response, j.ev.Item
	return next
}

// fresh handles a call seen for the first time: gateway, dependencies,
// approval, then a lease and the invocation.
func (j *job) fresh(rec *record, rev uint64) error {
	next := j.base(rec)
	tool, impl, args, f := j.gateway(0)
	if tool != nil {
		next.Version = tool.Version
	}
	if f != nil {
		return j.decide(next, rev, j.failed(tool, f.Type, f.Message, 0))
	}
	if tool.Authorize != nil && !j.authorized {
		if f := j.authorize(tool, args); f != nil {
			return j.decide(next, rev, j.failed(tool, f.Type, f.Message, 0))
		}
		j.authorized = true
	}
	if len(j.cc.DependsOn)+len(j.cc.After) > 0 && !j.depsOK {
		f, err := j.waitDeps()
		if err != nil {
			return err
		}
		if f != nil {
			return j.decide(next, rev, j.failed(tool, f.Type, f.Message, 0))
		}
		j.depsOK = true
		return errConflict // the record may have changed while waiting: read it again
	}
	if tool.Approval == registry.ApprovalRequired {
		switch next.Approval {
		case approvalDenied:
			return j.decide(next, rev, j.deniedOutcome(tool, next))
		case "":
			if rev == 0 {
				if err := j.checkLog(); err != nil {
					return err
				}
			}
			next.State = stateAwaiting
			if _, err := j.e.store.put(j.e.hard, j.tenant, next, rev); err != nil {
				return err
			}
			return j.announceApproval()
		}
	}
	return j.start(next, rev, tool, impl, args)
}

// resume carries on with a call whose approval was decided.
func (j *job) resume(rec *record, rev uint64) error {
	next := j.base(rec)
	tool, impl, args, f := j.gateway(rec.Version)
	if rec.Approval == approvalDenied {
		return j.decide(next, rev, j.deniedOutcome(tool, rec))
	}
	if f != nil {
		return j.decide(next, rev, j.failed(tool, f.Type, f.Message, rec.Attempt))
	}
	return j.start(next, rev, tool, impl, args)
}

// takeover takes a call over from an executor whose lease ran out.
func (j *job) takeover(rec *record, rev uint64) error {
	next := j.base(rec)
	tool, impl, args, f := j.gateway(rec.Version)
	if rec.Invoked && (tool == nil || tool.AtMostOnce()) {
		j.logger().Warn("executor stopped during an invocation that must not be repeated", "previous_owner", rec.Owner, "attempt", rec.Attempt)
		return j.decide(next, rev, j.failed(tool, events.ErrOutcomeUnknown, fmt.Sprintf(
			"the executor running %s stopped during the invocation, and the tool cannot be safely re-run (idempotency: none, side_effect: %s); "+
				"a person must check whether its effect happened before it is called again", j.cc.Name, sideEffect(tool)), rec.Attempt))
	}
	if rec.Takeovers >= j.e.cfg.TakeoversMax {
		et, what := events.ErrUnavailable, "no invocation was running"
		if rec.Invoked {
			et, what = events.ErrOutcomeUnknown, "an invocation was running each time; check whether its effect happened"
		}
		return j.decide(next, rev, j.failed(tool, et, fmt.Sprintf("executors stopped %d times while handling %s (%s); it is not tried again", rec.Takeovers, j.cc.Name, what), rec.Attempt))
	}
	if f != nil {
		return j.decide(next, rev, j.failed(tool, f.Type, f.Message, rec.Attempt))
	}
	next.Takeovers++
	j.logger().Info("taking over a call", "previous_owner", rec.Owner, "attempt", rec.Attempt, "invoked", rec.Invoked)
	return j.start(next, rev, tool, impl, args)
}

func sideEffect(t *registry.Tool) string {
	if t == nil {
		return "unknown"
	}
	return t.SideEffect
}

// start takes a tenant slot and the lease, then runs the invocations.
func (j *job) start(next *record, rev uint64, tool *registry.Tool, impl Tool, args []byte) error {
	if ok, until := j.e.breaker.allow(j.tenant, tool.Name); !ok {
		return j.decide(next, rev, j.unavailable(tool, until, next.Attempt))
	}
	s, err := j.e.limiter.acquire(j.e.soft, j.tenant)
	if errors.Is(err, errTenantBusy) {
		j.nak(j.e.busyDelay(j.carrier))
		return nil
	}
	if err != nil {
		return errHandBack
	}
	defer s.release() // at most once: runFree gives the slot back sooner
	if tool.SideEffect == registry.SideEffectNone && tool.Retry.MaxAttempts <= 1 {
		return j.runFree(next, rev, tool, impl, args, s)
	}
	if tool.Object != "" {
		object, err := tool.ObjectKey(args)
		if err != nil { // Validate refuses such arguments: only a registry changed under the call gets here
			return j.decide(next, rev, j.failed(tool, events.ErrValidation, err.Error()+"; fix the arguments and call again", 0))
		}
		h, out, err := j.holdObject(tool, object)
		switch {
		case errors.Is(err, errObjectBusy):
			j.nak(j.e.cfg.Heartbeat) // wait for the holder: read again then
			return nil
		case err != nil:
			return err
		case out != nil:
			return j.decide(next, rev, out)
		}
		j.hold = h
		defer func() {
			if j.hold != nil { // not released: the hold runs out, or a takeover of this call takes it again
				j.hold.halt()
				j.hold = nil
			}
		}()
	}
	if rev == 0 {
		if err := j.checkLog(); err != nil {
			j.letObjectGo()
			return err
		}
	}
	next.State = stateRunning
	next.Attempt++
	next.Invoked = true // durable before the side effect: a crash from here on is an invocation that may have happened
	l, err := j.e.acquire(j.e.hard, j.tenant, next, rev)
	if err != nil {
		j.letObjectGo()
		return err
	}
	defer l.release()
	if next.Takeovers > 0 {
		j.e.stats.takeovers.Add(1)
	}
	return j.execute(l, tool, impl, args)
}

// decide records a final outcome over the record at rev, then settles. A
// decision over no record is recorded in the log alone (logrecord.go).
func (j *job) decide(next *record, rev uint64, out *outcome) error {
	if j.logRecordable(rev) {
		return j.recordInLog(out)
	}
	next.State = stateDone
	next.Outcome = out
	next.Owner, next.LeaseUntil, next.Invoked = "", 0, false
	if _, err := j.e.store.put(j.e.hard, j.tenant, next, rev); err != nil {
		return err
	}
	j.count(out)
	return j.settle(out)
}

func (j *job) count(out *outcome) {
	if out.Error == "" {
		j.e.stats.succeeded.Add(1)
	} else {
		j.e.stats.failed.Add(1)
		j.logger().Info("call failed", "error", out.Error, "message", out.Message)
	}
}

// settle publishes the recorded outcome (with its deterministic id, so a
// republish is dropped by the log) and only then acknowledges the carrier.
// When the log drops it as a duplicate, it checks whose outcome holds the
// id: another call's, decided in the log at the same time (logrecord.go),
// gets this call refused, saying that it ran.
func (j *job) settle(out *outcome) error { return j.settleAs(out, j.seq, j.cc.Name) }

// settleAs is settle for the outcome of the call whose input is at
// inputSeq and that names its tool name (the record's, when another input
// carries it).
func (j *job) settleAs(out *outcome, inputSeq uint64, name string) error {
	if h := j.e.cfg.Hooks; h != nil && h.BeforePublish != nil {
		h.BeforePublish(j.key)
	}
	ack, err := j.e.publish(j.e.hard, outcomeMsg(out, j.e.msgID(out.Subject, out.ID), inputSeq, name, false))
	if err != nil {
		return fmt.Errorf("executor: publish outcome %s: %w", out.ID, err)
	}
	if ack.Duplicate && out.ID == events.ResultID(j.key) {
		other, err := j.settledByOther(out)
		if err != nil {
			return err
		}
		if other != "" {
			return j.refuseRan(other, out)
		}
	}
	if h := j.e.cfg.Hooks; h != nil && h.BeforeAck != nil {
		h.BeforeAck(j.key)
	}
	j.ack()
	return nil
}

// announceApproval publishes ApprovalRequested for a call whose record
// waits for a decision, then acknowledges the carrier: from here the
// record and the approval subject carry the call, across restarts.
func (j *job) announceApproval() error {
	subj, err := events.ExecSubject(j.tenant, j.key)
	if err != nil {
		return err
	}
	ev := j.event(events.ApprovalRequestedID(j.key),
		&events.ApprovalRequested{Name: j.cc.Name, Arguments: j.cc.Arguments, Key: j.key})
	data, err := j.e.encode(ev)
	if err != nil {
		return err
	}
	m := &nats.Msg{Subject: subj, Data: data, Header: nats.Header{}}
	m.Header.Set(jetstream.MsgIDHeader, j.e.msgID(subj, ev.ID))
	if _, err := j.e.publish(j.e.hard, m); err != nil {
		return fmt.Errorf("executor: publish approval request: %w", err)
	}
	j.logger().Info("approval requested")
	j.ack()
	return nil
}

// event builds an event about this call: the call's identity, caused by
// the CallCompleted.
func (j *job) event(id string, body events.Body) *events.Event {
	return &events.Event{
		ID: id, Tenant: j.tenant, User: j.ev.User, Session: j.ev.Session, Run: j.ev.Run, Step: j.ev.Step,
		Response: j.ev.Response, Item: j.ev.Item, CallID: j.ev.CallID, Causation: j.ev.ID,
		At: j.e.cfg.Clock().UnixNano(), Body: body,
	}
}
