package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/registry"
	"go.opentelemetry.io/otel/trace"
)

// attempt makes one invocation under ctx: hooks, counters, the
// invocation under the contract's timeout and the output schema check. abandoned reports that ctx ended
// (the lease was lost, or the executor is stopping): the result does not
// count.
func (j *job) attempt(ctx context.Context, tool *registry.Tool, impl Tool, args []byte, attempt int) (json.RawMessage, *ToolError, bool) {
	call := j.call(tool, args, attempt)
	if h := j.e.cfg.Hooks; h != nil && h.BeforeInvoke != nil {
		h.BeforeInvoke(call)
	}
	j.e.stats.invoked.Add(1)
	j.span = j.startAttempt(tool, args, attempt)
	result, terr, abandoned := j.invoke(ctx, impl, tool, call)
	if h := j.e.cfg.Hooks; h != nil && h.AfterInvoke != nil {
		h.AfterInvoke(call)
	}
	if abandoned {
		j.endAttempt(j.span, nil, nil, true)
		j.e.stats.dropped.Add(1)
		return nil, nil, true
	}
	if terr == nil {
		if d := tool.ValidateResult(result); d != "" {
			terr = Errorf(events.ErrToolError, "%s returned a result that does not match its output_schema: %s", tool.Name, d)
		}
	}
	j.endAttempt(j.span, result, terr, false)
	return result, terr, false
}

// outcomeOfAttempt turns an attempt's result into the call's outcome and
// tells the circuit breaker.
func (j *job) outcomeOfAttempt(tool *registry.Tool, result json.RawMessage, terr *ToolError, attempt int, msg string) (*outcome, error) {
	if terr == nil {
		j.e.breaker.record(j.tenant, tool.Name, "")
		return j.succeeded(tool, result, attempt)
	}
	j.e.breaker.record(j.tenant, tool.Name, terr.Type)
	if msg == "" {
		msg = terr.Message
	}
	return j.failed(tool, terr.Type, msg, attempt), nil
}

// runFree runs a call of a tool without side effect and without retries
// with no lease: invoking it twice is harmless, so only the outcome needs
// the compare-and-set (first recorded wins, as always). It saves the lease
// write, its renewals and ExecutionStarted (which records an attempt taken
// under a lease) for read-only tools. The tenant slot is given back
// (release) as soon as the tool has returned: the slot bounds the tenant's
// invocations at once, and recording the outcome (a look at the bucket and
// a publish waited for) invokes nothing, so the tenant's next call runs
// meanwhile. Held across those round trips, the slots of a tenant's burst
// of quick calls were mostly waits for the log.
func (j *job) runFree(next *record, rev uint64, tool *registry.Tool, impl Tool, args []byte, s *slot) error {
	next.Attempt++
	result, terr, abandoned := j.attempt(j.e.hard, tool, impl, args, next.Attempt)
	s.release()
	if abandoned {
		return errHandBack
	}
	out, err := j.outcomeOfAttempt(tool, result, terr, next.Attempt, "")
	if err != nil {
		return err
	}
	return j.decide(next, rev, out) // errConflict: decided meanwhile; the loop settles the recorded outcome
}

// execute invokes the tool under the lease l, retrying as the contract
// says, and records the outcome. The record already says Invoked for the
// first attempt.
func (j *job) execute(l *lease, tool *registry.Tool, impl Tool, args []byte) error {
	for {
		rec := l.snapshot()
		j.publishStarted(tool, rec.Attempt)
		result, terr, abandoned := j.attempt(l.ctx, tool, impl, args, rec.Attempt)
		if abandoned {
			// The lease was lost (another executor took over and decides) or
			// the executor is stopping: the record still says Invoked, so
			// whoever comes next knows an invocation may have happened.
			j.logger().Warn("invocation abandoned; its result, if any, is dropped", "attempt", rec.Attempt, "lease_lost", l.lost())
			j.settled = true // leave the carrier to its newer delivery, or to AckWait
			return nil
		}
		tries := rec.Failed + 1
		if terr == nil || !tool.RetryOn(terr.Type) || tries >= tool.Retry.MaxAttempts {
			msg := ""
			if terr != nil && tool.Retry.MaxAttempts > 1 && tool.RetryOn(terr.Type) {
				msg = fmt.Sprintf("%s (after %d attempts)", terr.Message, tries)
			}
			out, err := j.outcomeOfAttempt(tool, result, terr, rec.Attempt, msg)
			if err != nil {
				return err
			}
			return j.finish(l, out)
		}
		j.e.breaker.record(j.tenant, tool.Name, terr.Type)
		j.logger().Info("attempt failed; retrying as the contract says", "attempt", tries, "error", terr.Type, "backoff", tool.Retry.Backoff)
		if err := l.update(j.e.hard, func(r *record) { r.Failed++; r.Invoked = false }); err != nil {
			return j.lostOr(err)
		}
		if !j.sleep(tool.Retry.Backoff) {
			// Stopping: give the lease up at once so another executor goes on.
			l.giveUp(j.e.hard)
			return errHandBack
		}
		if ok, until := j.e.breaker.allow(j.tenant, tool.Name); !ok {
			return j.finish(l, j.unavailable(tool, until, rec.Attempt))
		}
		// Re-check the lease just before the side effect: this write
		// succeeds only if no other executor has taken the call over.
		if err := l.update(j.e.hard, func(r *record) { r.Attempt++; r.Invoked = true }); err != nil {
			return j.lostOr(err)
		}
	}
}

func (j *job) lostOr(err error) error {
	if errors.Is(err, errLeaseLost) {
		j.logger().Warn("lease lost; another executor decides this call")
		j.settled = true
		return nil
	}
	return err
}

// sleep waits d unless the executor is stopping.
func (j *job) sleep(d time.Duration) bool {
	if d <= 0 {
		return j.e.soft.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-j.e.soft.Done():
		return false
	}
}

// finish records the outcome under the lease, then settles. A lease lost
// by now means another executor took over: this result is late and is
// dropped, never overwriting the outcome the other records. A bucket that
// is briefly unavailable does not lose the result: l.update tries the
// write again as long as the lease may still hold.
func (j *job) finish(l *lease, out *outcome) error {
	err := l.update(j.e.hard, func(r *record) {
		r.State, r.Outcome, r.Invoked, r.Owner = stateDone, out, false, ""
	})
	if err != nil {
		if errors.Is(err, errLeaseLost) {
			j.logger().Warn("late result dropped: the lease was lost (another executor took the call over, or the bucket did not answer while it held)", "error", out.Error)
			j.e.stats.dropped.Add(1)
		}
		return j.lostOr(err)
	}
	if j.hold != nil {
		j.hold.release(j.key, out)
		j.hold = nil
	}
	j.count(out)
	return j.settle(out)
}

func (j *job) call(t *registry.Tool, args []byte, attempt int) Call {
	c := Call{
		Tenant: j.tenant, Name: t.Name, Version: t.Version, Args: args, Key: j.key, Attempt: attempt,
		Deadline: j.e.cfg.Clock().Add(t.Timeout),
		User:     j.ev.User, Session: j.ev.Session, Run: j.ev.Run, Step: j.ev.Step,
		Response: j.ev.Response, Item: j.ev.Item, CallID: j.ev.CallID,
	}
	if j.hold != nil {
		c.Object, c.ObjectVersion = j.hold.object, j.hold.rec.Version
	}
	return c
}

// publishStarted announces an attempt taken under a lease. It is
// informational (the record, not this event, is the truth), so it is
// published without waiting, and without asking for the log's
// acknowledgement at all: nobody would wait for it, and the log still
// stores it (its Nats-Msg-Id drops a repeat). It goes out on the
// connection that later publishes the outcome, so the log holds it before
// the outcome.
func (j *job) publishStarted(t *registry.Tool, attempt int) {
	subj, err := events.ExecSubject(j.tenant, j.key)
	if err != nil {
		return
	}
	ev := j.event(events.StartedID(j.key, attempt), &events.ExecutionStarted{
		Name: t.Name, Version: t.Version, Attempt: attempt, Executor: j.e.owner, Key: j.key,
	})
	data, err := events.Encode(ev)
	if err != nil {
		return
	}
	m := &nats.Msg{Subject: subj, Data: data, Header: nats.Header{jetstream.MsgIDHeader: []string{j.e.msgID(subj, ev.ID)}}}
	if err := j.e.cfg.JS.Conn().PublishMsg(m); err != nil {
		j.logger().Debug("execution started not published", "err", err)
	}
}

type invokeResult struct {
	out json.RawMessage
	err error
}

// invoke runs one invocation under the contract's timeout. It returns the
// canonical JSON result, or a typed error; abandoned reports that parent
// ended (the lease was lost or the executor is stopping), so the result
// does not count.
// A tool that ignores its context is not waited for past the timeout: its
// late result is dropped.
//
// The invocation's context is not derived from parent: every call in
// flight would register in parent's set of children, one lock and one map
// shared by a thousand invocations. It ends when invoke returns, which it
// does when parent ends (TestStoppingEndsARunningToolsContext).
func (j *job) invoke(parent context.Context, impl Tool, t *registry.Tool, call Call) (json.RawMessage, *ToolError, bool) {
	if _, ok := impl.(Immediate); ok {
		return j.invokeImmediate(parent, impl, t, call)
	}
	return j.invokeAside(parent, impl, t, call)
}

// invokeAside is invoke for a Tool that is not Immediate: on an invoker,
// under a context of its own. It is a function of its own so that call,
// captured by the invoker's closure, is moved to the heap only here, not
// on the Immediate path too.
func (j *job) invokeAside(parent context.Context, impl Tool, t *registry.Tool, call Call) (json.RawMessage, *ToolError, bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(parent), t.Timeout)
	defer cancel()
	if j.span != nil { // the tool's context carries its attempt's span
		ctx = trace.ContextWithSpan(ctx, j.span)
	}
	ch := make(chan invokeResult, 1)
	j.e.invokers.run(func() { ch <- invokeRecovered(ctx, impl, t, call) })
	var r invokeResult
	select {
	case r = <-ch:
	case <-ctx.Done():
	case <-parent.Done(): // the deferred cancel ends the tool's context
	}
	if parent.Err() != nil {
		return nil, nil, true
	}
	if ctx.Err() != nil {
		return nil, timedOut(t, call), false
	}
	return j.toolResult(t, r)
}

// invokeImmediate runs an Immediate tool on the calling goroutine, under
// parent itself (no context of its own: the tool returns at once), and
// reads its answer as invoke does. The contract's timeout is checked when
// the tool has returned: a result that took longer is dropped, and the
// call fails with provider_timeout as in invoke.
func (j *job) invokeImmediate(parent context.Context, impl Tool, t *registry.Tool, call Call) (json.RawMessage, *ToolError, bool) {
	ctx := parent
	if j.span != nil { // the tool's context carries its attempt's span
		ctx = trace.ContextWithSpan(ctx, j.span)
	}
	start := time.Now()
	r := invokeRecovered(ctx, impl, t, call)
	took := time.Since(start)
	if parent.Err() != nil {
		return nil, nil, true
	}
	if took > t.Timeout {
		return nil, timedOut(t, call), false
	}
	return j.toolResult(t, r)
}

// invokeRecovered calls impl, a panic becoming a tool_error.
func invokeRecovered(ctx context.Context, impl Tool, t *registry.Tool, call Call) (r invokeResult) {
	defer func() {
		if p := recover(); p != nil {
			r = invokeResult{err: Errorf(events.ErrToolError, "%s panicked: %v", t.Name, p)}
		}
	}()
	out, err := impl.Invoke(ctx, call)
	return invokeResult{out, err}
}

// timedOut is the failure of an invocation that did not answer within the
// contract's timeout.
func timedOut(t *registry.Tool, call Call) *ToolError {
	msg := fmt.Sprintf("%s did not answer within its timeout of %s (attempt %d)", t.Name, t.Timeout, call.Attempt)
	if t.AtMostOnce() {
		msg += "; its side effect may or may not have happened — check before calling it again"
	} else {
		msg += "; try again later or ask for less"
	}
	return Errorf(events.ErrProviderTimeout, "%s", msg)
}

// toolResult reads a tool's answer: the canonical JSON result or a typed
// error.
func (j *job) toolResult(t *registry.Tool, r invokeResult) (json.RawMessage, *ToolError, bool) {
	if r.err != nil {
		var te *ToolError
		if errors.As(r.err, &te) {
			if !toolErrorTypes[te.Type] {
				te = Errorf(events.ErrToolError, "%s (reported as %q)", te.Message, te.Type)
			}
			return nil, te, false
		}
		return nil, Errorf(events.ErrToolError, "%s failed: %v", t.Name, r.err), false
	}
	out := bytes.TrimSpace(r.out)
	if len(out) == 0 {
		out = []byte("null")
	}
	if len(out) > j.e.cfg.ResultBytesMax {
		return nil, Errorf(events.ErrToolError, "%s returned %d bytes, above the limit of %d; ask for less", t.Name, len(out), j.e.cfg.ResultBytesMax), false
	}
	var buf bytes.Buffer
	buf.Grow(len(out)) // compacting never lengthens: one allocation of the right size
	if err := json.Compact(&buf, out); err != nil {
		return nil, Errorf(events.ErrToolError, "%s returned something that is not JSON: %v", t.Name, err), false
	}
	return buf.Bytes(), nil, false
}
