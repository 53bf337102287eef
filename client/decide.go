package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
)

// ErrAlreadyDecided: a call's approval was already decided (the first
// decision stands).
var ErrAlreadyDecided = errors.New("client: already decided")

// Approval is a call that asked for approval: a tool whose contract says
// approval: required waits until someone approves or denies it.
type Approval struct {
	Meta
	Tool      string
	Arguments json.RawMessage
	Key       string // the call's idempotency key, tenant/run/step/call
}

// Approvals iterates over the calls of tenant that asked for approval, in
// log order (decided or not). Acknowledgement and errors as Calls.
func (c *Client) Approvals(ctx context.Context, tenant string, opts ...ReadOption) iter.Seq2[Approval, error] {
	return readKind(ctx, c, "exec", tenant, opts, func(ev *events.Event, m Meta) (Approval, bool) {
		ar, ok := ev.Body.(*events.ApprovalRequested)
		if !ok {
			return Approval{}, false
		}
		return Approval{Meta: m, Tool: ar.Name, Arguments: ar.Arguments, Key: ar.Key}, true
	})
}

// DecideOption configures Approve and Deny.
type DecideOption func(*decision)

type decision struct{ by, reason string }

// By records who decided; default "client".
func By(who string) DecideOption { return func(d *decision) { d.by = who } }

// Because records why an approval was given (a denial's reason is Deny's
// argument).
func Because(reason string) DecideOption { return func(d *decision) { d.reason = reason } }

// Approve lets a call of tenant that waits for approval run. call is its
// idempotency key (Approval.Key: only that call's events are read, a
// direct get by subject) or its provider call id (looked up among every
// approval request of the tenant: slower as the log grows). The decision
// is an event in the log: it survives restarts. It returns ErrNotFound
// when no call of tenant asked for approval under call, ErrAlreadyDecided
// when it was decided already, ErrPermissionDenied for an identity that
// may not decide (only the operator and the admin may), ErrBadInput for a
// bad tenant or a key of another tenant.
func (c *Client) Approve(ctx context.Context, tenant, call string, opts ...DecideOption) (key string, err error) {
	d := decision{by: "client"}
	for _, o := range opts {
		o(&d)
	}
	return c.decide(ctx, tenant, call, &events.ApprovalGranted{By: d.by, Reason: d.reason})
}

// Deny ends a call that waits for approval with approval_denied; reason
// tells the model why and is required (ErrBadInput without). Otherwise as
// Approve.
func (c *Client) Deny(ctx context.Context, tenant, call, reason string, opts ...DecideOption) (key string, err error) {
	if reason == "" {
		return "", fmt.Errorf("%w: a denial needs a reason", ErrBadInput)
	}
	d := decision{by: "client"}
	for _, o := range opts {
		o(&d)
	}
	return c.decide(ctx, tenant, call, &events.ApprovalDenied{By: d.by, Reason: reason})
}

// decide publishes a decision about a call on its approval subject, under
// a message id tagged with this client's key (events.OwnedMsgID: no other
// identity can claim it first); ErrAlreadyDecided when this identity's
// decision is there already or another decision is first on the subject.
func (c *Client) decide(ctx context.Context, tenant, call string, body events.Body) (string, error) {
	if err := events.ValidTenant(tenant); err != nil || tenant == events.SystemTenant {
		return "", fmt.Errorf("%w: tenant %q", ErrBadInput, tenant)
	}
	key, err := c.approvalKey(ctx, tenant, call)
	if err != nil {
		return "", err
	}
	_, run, step, callID, ok := events.SplitIdempotencyKey(key)
	if !ok {
		return "", fmt.Errorf("%w: %q is not a call key", ErrBadInput, key)
	}
	subj, err := events.ApprovalSubject(tenant, key)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	ev := &events.Event{ID: events.ApprovalID(key), Tenant: tenant, Run: run, Step: step, CallID: callID, At: c.o.now().UnixNano(), Body: body}
	data, err := events.Encode(ev)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	mark := c.mark()
	ctx, cancel := c.requestContext(ctx)
	defer cancel()
	ack, err := c.js.Publish(ctx, subj, data, jetstream.WithMsgID(events.OwnedMsgID(c.o.msgIDKey, subj, ev.ID)))
	if err != nil {
		return "", fmt.Errorf("client: %s %s: %w", body.Kind(), key, c.refused(mark, err))
	}
	first, err := c.firstOn(ctx, ack.Stream, subj)
	if err != nil {
		return key, fmt.Errorf("client: %s %s: stored at %d, but which decision is first: %w", body.Kind(), key, ack.Sequence, err)
	}
	if ack.Duplicate || first.Sequence != ack.Sequence {
		return key, fmt.Errorf("%w: %s was %s", ErrAlreadyDecided, key, decided(first))
	}
	return key, nil
}

// firstOn returns the first message stream holds on subj. A decision's
// message id is tagged under its decider's key, so two operators'
// decisions are both stored; the first on the call's approval subject is
// the decision (the executor takes it alone).
func (c *Client) firstOn(ctx context.Context, stream, subj string) (*jetstream.RawStreamMsg, error) {
	s, err := c.js.Stream(ctx, stream)
	if err != nil {
		return nil, err
	}
	return s.GetMsg(ctx, 1, jetstream.WithGetMsgSubject(subj))
}

// decided says what the decision m holds and when it was stored ("approved
// by cli at …"); its sequence alone when it does not decode.
func decided(m *jetstream.RawStreamMsg) string {
	at := fmt.Sprintf("at sequence %d, %s", m.Sequence, m.Time.UTC().Format(time.DateTime+" UTC"))
	ev, err := events.Decode(m.Data)
	if err != nil {
		return "decided " + at
	}
	what, by, reason := "decided", "", ""
	switch b := ev.Body.(type) {
	case *events.ApprovalGranted:
		what, by, reason = "approved", b.By, b.Reason
	case *events.ApprovalDenied:
		what, by, reason = "denied", b.By, b.Reason
	}
	if by != "" {
		what += " by " + by
	}
	if reason != "" {
		what += fmt.Sprintf(" (%q)", reason)
	}
	return what + " " + at
}

// approvalKey finds the call of tenant that asked for approval under call
// and returns its key. A call key names one call: only that call's
// execution subject is read (a direct get by subject, whatever the size
// of the tenant's log); a key of another tenant is ErrBadInput. A provider
// call id is looked up among the tenant's approval requests, in log order.
func (c *Client) approvalKey(ctx context.Context, tenant, call string) (string, error) {
	var opts []ReadOption
	if t, _, _, id, ok := events.SplitIdempotencyKey(call); ok {
		if t != tenant || id == "" {
			return "", fmt.Errorf("%w: %q is not a call key of tenant %s", ErrBadInput, call, tenant)
		}
		subj, err := events.ExecSubject(tenant, call)
		if err != nil {
			return "", fmt.Errorf("%w: %w", ErrBadInput, err)
		}
		opts = append(opts, onSubject(subj))
	}
	for a, err := range c.Approvals(ctx, tenant, opts...) {
		var me *MalformedError
		if errors.As(err, &me) {
			continue // not a request anyone can decide
		}
		if err != nil {
			return "", err
		}
		if a.Key == call || a.CallID == call {
			return a.Key, nil
		}
	}
	return "", fmt.Errorf("%w: no call of tenant %s asked for approval under %q", ErrNotFound, tenant, call)
}

// requestContext bounds ctx by the request timeout unless it ends sooner.
func (c *Client) requestContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Deadline(); ok && time.Until(d) < c.o.requestTimeout {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, c.o.requestTimeout)
}
