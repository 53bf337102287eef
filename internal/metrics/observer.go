package metrics

import (
	"context"
	"fmt"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/logread"
)

// ObservedSubjects are the log subjects the observer reads: call and
// response outcomes, executions, approvals, results and answers. Never the
// model deltas: their volume is the assembler's business.
var ObservedSubjects = []string{events.AllCalls, events.AllResponses, events.AllExec, events.AllApprovals, events.AllResults, events.AllAnswers}

// pending is a call whose CallCompleted or result has been seen, not both.
// The observer follows each stream on its own, so a result (TS_OUT) may be
// read before the CallCompleted (TS_CALLS) it answers; the latency is taken
// from the messages' stream times whichever comes first.
type pending struct {
	tool      string
	completed time.Time // stream time of the CallCompleted
	started   time.Time // stream time of the last ExecutionStarted
	done      time.Time // stream time of the result, when read first
	outcome   string
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
		if p := o.entry(b.Key, b.Name); p.started.Before(at) {
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

// entry is the pending call of key, made if it is not there. Memory is
// bounded: past PendingMax the oldest half is forgotten, a few latencies
// unobserved.
func (o *observer) entry(key, tool string) *pending {
	if p := o.pending[key]; p != nil {
		return p
	}
	if len(o.pending) >= PendingMax {
		cut := o.order - uint64(len(o.pending))/2
		for k, p := range o.pending {
			if p.order <= cut {
				delete(o.pending, k)
			}
		}
	}
	o.order++
	p := &pending{tool: tool, order: o.order}
	o.pending[key] = p
	return p
}

func (o *observer) remember(key, tool string, at time.Time) {
	p := o.entry(key, tool)
	p.completed = at
	if !p.done.IsZero() {
		o.observeLatency(key, p)
	}
}

func (o *observer) done(key, tool, outcome string, at time.Time) {
	p := o.entry(key, tool)
	p.done, p.outcome = at, outcome
	if !p.completed.IsZero() {
		o.observeLatency(key, p)
	}
}

func (o *observer) observeLatency(key string, p *pending) {
	delete(o.pending, key)
	o.m.callSeconds.WithLabelValues(p.tool, p.outcome).Observe(p.done.Sub(p.completed).Seconds())
	if !p.started.IsZero() {
		o.m.execSeconds.WithLabelValues(p.tool, p.outcome).Observe(p.done.Sub(p.started).Seconds())
	}
}
