package metrics

import (
	"context"
	"fmt"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/logread"
)

// ObservedSubjects are the log subjects the observer reads: call and
// response outcomes, executions, approvals, results and answers. Never the
// model deltas: their volume is the assembler's business.
var ObservedSubjects = []string{"ts.call.>", "ts.resp.>", "ts.exec.>", "ts.approval.>", "ts.result.>", "ts.answer.>"}

// pending is a call between its CallCompleted and its result.
type pending struct {
	tool      string
	completed time.Time // stream time of the CallCompleted
	started   time.Time // stream time of the last ExecutionStarted
	order     uint64
}

// observer turns events into counters and latencies. One goroutine.
type observer struct {
	m       *Metrics
	pending map[string]*pending // by idempotency key
	order   uint64
}

// Run reads the log from its end (the messages stored after Run starts)
// and counts what happens until ctx ends; it returns nil then, or an error
// if the consumer cannot be set up.
func (m *Metrics) Run(ctx context.Context) error {
	m.observing.Store(true)
	defer m.observing.Store(false)
	o := &observer{m: m, pending: map[string]*pending{}}
	err := m.src.Bus.ReadAcross(ctx, logread.Config{Subjects: ObservedSubjects, Follow: true}, true, func(_ string, batch []*logread.Msg) error {
		for _, msg := range batch {
			ev, err := events.DecodeAtWith(msg.Subject, msg.Data, m.src.Bus.Keys)
			if err != nil {
				continue // the projections record bad input
			}
			m.observed.Inc()
			o.observe(ev, time.Unix(0, msg.Time))
		}
		return nil
	})
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("metrics: observer: %w", err)
	}
	return nil
}

func (o *observer) observe(ev *events.Event, at time.Time) {
	m := o.m
	switch b := ev.Body.(type) {
	case *events.CallCompleted:
		m.callOutcomes.WithLabelValues("completed", "", b.Name).Inc()
		o.remember(executor.CallKey(ev), b.Name, at)
	case *events.CallRejected:
		m.callOutcomes.WithLabelValues("rejected", string(b.Reason), b.Name).Inc()
	case *events.CallIncomplete:
		m.callOutcomes.WithLabelValues("incomplete", string(b.Reason), b.Name).Inc()
	case *events.ResponseOutcome:
		m.responseOutcomes.WithLabelValues(string(b.Status), string(b.Reason)).Inc()
	case *events.ExecutionStarted:
		m.attempts.WithLabelValues(b.Name).Inc()
		if p := o.pending[b.Key]; p != nil {
			p.started = at
		}
	case *events.ApprovalRequested:
		m.approvals.WithLabelValues("requested").Inc()
	case *events.ApprovalGranted:
		m.approvals.WithLabelValues("granted").Inc()
	case *events.ApprovalDenied:
		m.approvals.WithLabelValues("denied").Inc()
	case *events.CallSucceeded:
		m.results.WithLabelValues("succeeded", "", b.Name).Inc()
		o.done(b.Key, b.Name, "succeeded", at)
	case *events.CallFailed:
		m.results.WithLabelValues("failed", string(b.Error), b.Name).Inc()
		o.done(b.Key, b.Name, "failed", at)
	case *events.AnswerVerified:
		m.answers.WithLabelValues(b.Policy).Inc()
		for _, c := range b.Claims {
			m.claims.WithLabelValues(string(c.Verdict)).Inc()
		}
	}
}

func (o *observer) remember(key, tool string, at time.Time) {
	if len(o.pending) >= PendingMax {
		// forget the oldest half: bounded memory, a few latencies unobserved
		cut := o.order - uint64(len(o.pending))/2
		for k, p := range o.pending {
			if p.order <= cut {
				delete(o.pending, k)
			}
		}
	}
	o.order++
	o.pending[key] = &pending{tool: tool, completed: at, order: o.order}
}

func (o *observer) done(key, tool, outcome string, at time.Time) {
	p := o.pending[key]
	if p == nil {
		return // completed before the observer started, or forgotten
	}
	delete(o.pending, key)
	o.m.callSeconds.WithLabelValues(tool, outcome).Observe(at.Sub(p.completed).Seconds())
	if !p.started.IsZero() {
		o.m.execSeconds.WithLabelValues(tool, outcome).Observe(at.Sub(p.started).Seconds())
	}
}
