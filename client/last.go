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

// CallResult returns the outcome of the call with idempotency key key
// (Meta.CallKey): its CallSucceeded or CallFailed, the executor's or, for
// a built-in tool's call, the driver's (events.BuiltinResultSubject);
// ErrNotFound while it has none.
func (c *Client) CallResult(ctx context.Context, tenant, key string) (Result, error) {
	for _, subject := range []func(string, string) (string, error){events.ResultSubject, events.BuiltinResultSubject} {
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
