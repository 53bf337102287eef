package client

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/logread"
)

// The latest word on one call or response: one direct get of the last
// event on its subject (the server's subject index finds it, whatever the
// size of the log), for a caller that polls one thing (the gateway's run
// driver) instead of reading a tenant's events.

// Decided returns the decision about the call with idempotency key key
// (Approval.Key); ErrNotFound while none was made.
func (c *Client) Decided(ctx context.Context, tenant, key string) (Decision, error) {
	subj, err := events.ApprovalSubject(tenant, key)
	if err != nil {
		return Decision{}, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	a, err := c.last(ctx, tenant, subj)
	if err != nil {
		return Decision{}, err
	}
	if a.Decision == nil {
		return Decision{}, fmt.Errorf("%w: no decision about %s", ErrNotFound, key)
	}
	return *a.Decision, nil
}

// Closed returns how the assembler closed response; ErrNotFound while it
// is open.
func (c *Client) Closed(ctx context.Context, tenant, response string) (Response, error) {
	subj, err := events.ResponseSubject(tenant, response)
	if err != nil {
		return Response{}, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	a, err := c.last(ctx, tenant, subj)
	if err != nil {
		return Response{}, err
	}
	if a.Response == nil {
		return Response{}, fmt.Errorf("%w: response %s not closed", ErrNotFound, response)
	}
	return *a.Response, nil
}

// LastVerdict returns the latest event about response's answer when it is
// a verdict (the verifier's, Verified, or a judge's, Judged); ErrNotFound
// while the answer waits for one (or none was submitted).
func (c *Client) LastVerdict(ctx context.Context, tenant, response string) (Verdict, error) {
	subj, err := events.AnswerSubject(tenant, response)
	if err != nil {
		return Verdict{}, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	a, err := c.last(ctx, tenant, subj)
	if err != nil {
		return Verdict{}, err
	}
	if a.Verdict == nil {
		return Verdict{}, fmt.Errorf("%w: no verdict on the answer of %s", ErrNotFound, response)
	}
	return *a.Verdict, nil
}

// last is the last event on subject, one of tenant's, as an Activity;
// ErrNotFound when there is none, a *MalformedError when it does not
// decode.
func (c *Client) last(ctx context.Context, tenant, subject string) (Activity, error) {
	stream, err := events.StreamOf(subject)
	if err != nil {
		return Activity{}, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	kr, err := c.keyring(ctx, tenant)
	if err != nil {
		return Activity{}, err
	}
	ctx, cancel := c.requestContext(ctx)
	defer cancel()
	mark := c.mark()
	m, err := logread.Last(ctx, c.nc, stream, subject)
	if errors.Is(err, logread.ErrNoMessage) {
		return Activity{}, fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	if err != nil {
		return Activity{}, fmt.Errorf("client: read %s: %w", subject, c.refused(mark, err))
	}
	ev, err := events.DecodeAtWith(m.Subject, m.Data, kr)
	if err != nil {
		return Activity{}, &MalformedError{Stream: stream, Seq: m.Seq, Subject: m.Subject, Err: err}
	}
	a, _ := activityOf(ev, metaOf(stream, m.Seq, m.Subject, m.Time, ev))
	return a, nil
}

// CallResult returns the outcome of the call of tool with idempotency key
// key (Meta.CallKey; tool is the call's name, as its Call, Approval or
// ApprovalRequested says): its CallSucceeded or CallFailed; ErrNotFound
// while it has none. A real tool's outcome is read from the executor's
// subject alone (events.ResultSubject), which only the executor writes; a
// built-in tool's (events.IsBuiltinTool) from the driver's
// (events.BuiltinResultSubject), or the executor's where logs written
// before built-in subjects hold it. So an outcome another role put on the
// built-in subject of a real call's key is never a real call's outcome.
func (c *Client) CallResult(ctx context.Context, tenant, key, tool string) (Result, error) {
	subjects := []func(string, string) (string, error){events.ResultSubject}
	if events.IsBuiltinTool(tool) {
		subjects = []func(string, string) (string, error){events.BuiltinResultSubject, events.ResultSubject}
	}
	for _, subject := range subjects {
		subj, err := subject(tenant, key)
		if err != nil {
			return Result{}, fmt.Errorf("%w: %w", ErrBadInput, err)
		}
		a, err := c.last(ctx, tenant, subj)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return Result{}, err
		}
		if a.Result != nil {
			return *a.Result, nil
		}
	}
	return Result{}, fmt.Errorf("%w: no result of %s", ErrNotFound, key)
}
