package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/constraint"
)

// An answer checked against its user's constraints in force: before the
// driver reads the verifier's verdict on a run's answer, it asks memory
// for the constraints of the run's tenant and user that held at the
// answer's event time (client.Constraints, as_of the ResponseOutcome's
// time, never the wall clock), checks the answer against them
// (verifier/constraint) and records what it found on the check's own
// subject (events.ConstraintCheckSubject; the driver role may publish
// there and not on the answer's, where verdicts are) as an
// events.ConstraintsChecked, sealed under the user's key, under an id of
// the answer: a driver that checks again publishes a duplicate the log
// drops. The verifier applies it to its verdict (violates_constraint,
// treated as a contradiction by the tenant's policy) and publishes the
// verdict again, marked ConstraintsChecked; the driver waits for that one.
//
// Only the run's own tenant and user are asked (the memory service answers
// for them and no other), so no other user's or tenant's constraint is
// ever read. A run without memory (no user, memory off, no memory service)
// or a user with no constraint in force checks nothing and records
// nothing. A failure to read the constraints fails the request, as a
// failed recall does: an answer let through unchecked might go against
// them.

// checkConstraints checks the answer text of response (said at at)
// against the user's constraints in force then and records the check. It
// reports whether it recorded one (the verdict to wait for is then the
// one that applies it).
func (d *Driver) checkConstraints(ctx context.Context, spec *Spec, response, text string, at time.Time) (bool, error) {
	if !d.memoryOn(*spec) {
		return false, nil
	}
	recs, err := d.runs.Constraints(ctx, spec.Tenant, spec.User, at)
	if d.memoryUnreachable(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%w: the user's constraints in force: %w", ErrMemory, err)
	}
	if len(recs) == 0 {
		return false, nil
	}
	cs := make([]constraint.Constraint, len(recs))
	for i, r := range recs {
		cs[i] = constraint.Constraint{Record: r.ID, Version: r.Version, Subject: r.Subject, Attribute: r.Attribute, Value: r.Value,
			Negative: r.Polarity == "negative"}
	}
	body := &events.ConstraintsChecked{AsOf: at.UnixNano(), InForce: len(recs)}
	for _, v := range d.constraints.Check(text, cs) {
		body.Violations = append(body.Violations, events.ConstraintViolation{Start: v.Start, End: v.End,
			Constraint: events.ConstraintRef{Record: v.Record, Version: v.Version}, Reason: v.Reason})
	}
	ev := &events.Event{ID: events.ConstraintsCheckedID(spec.Tenant, response), Tenant: spec.Tenant, User: spec.User,
		Session: spec.Session, Run: spec.Run, Response: response, At: at.UnixNano(), Body: body}
	data, err := events.EncodeSealed(ev, d.cfg.Keys, "")
	if errors.Is(err, events.ErrBadKey) {
		data, err = events.EncodeWithheld(ev, "")
	}
	if err != nil {
		return false, fmt.Errorf("agent: encode the constraint check of %s: %w", response, err)
	}
	subj, err := events.ConstraintCheckSubject(spec.Tenant, response)
	if err != nil {
		return false, err
	}
	if _, err := d.cfg.JS.Publish(ctx, subj, data, jetstream.WithMsgID(events.OwnedMsgID(d.cfg.MsgIDKey, subj, ev.ID))); err != nil {
		return false, fmt.Errorf("agent: publish the constraint check of %s: %w", response, err)
	}
	return true, nil
}
