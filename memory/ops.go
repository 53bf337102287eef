package memory

import (
	"fmt"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/memory/memapi"
	"github.com/toolstream/toolstream/projector"
)

// Op is one memory operation as JSON: a line of `toolstream memory run`,
// or a request to the memory service (memapi.Op, whose fields it has),
// with the methods that apply it.
type Op memapi.Op

func parseOpTime(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, fmt.Errorf("time %q: want RFC 3339: %w", s, err)
	}
	return t.UnixNano(), nil
}

// Event turns a write op — observe, correct or forget — into the event it
// publishes. n is the op's line, so the event id is deterministic for the
// file. A message is several events: Engine.MessageEvents.
func (o *Op) Event(n int) (*events.Event, error) {
	at, err := parseOpTime(o.Time)
	if err != nil {
		return nil, err
	}
	obs := events.Observation{ID: o.ID, Kind: o.Kind, Subject: o.Subject, Attribute: o.Attribute, Value: o.Value,
		Polarity: o.Polarity, Scope: o.Scope, Text: o.Text, Confidence: o.Confidence, Permission: o.Permission}
	if obs.ValidUntil, err = parseOpTime(o.ValidUntil); err != nil {
		return nil, err
	}
	if o.TTL != "" {
		d, err := time.ParseDuration(o.TTL)
		if err != nil {
			return nil, fmt.Errorf("ttl %q: want a Go duration such as 72h: %w", o.TTL, err)
		}
		obs.TTL = int64(d)
	}
	ev := &events.Event{ID: events.MemoryOpID(o.Tenant, o.User, n), Tenant: o.Tenant, User: o.User, At: at}
	switch o.Op {
	case "observe":
		ev.Body = &events.MemoryObserved{Observation: obs}
	case "correct":
		ev.Body = &events.MemoryCorrected{Observation: obs, ExpectedVersion: o.ExpectedVersion}
	case "forget":
		ev.Body = &events.MemoryForgotten{ID: o.ID}
	default:
		return nil, fmt.Errorf("unknown op %q", o.Op)
	}
	return ev, nil
}

// RecallOut is a recall's answer as `memory run` and the service print it;
// RecallHit one record it found.
type (
	RecallOut = memapi.RecallOut
	RecallHit = memapi.RecallHit
)

func hits(hs []Hit) []RecallHit {
	out := make([]RecallHit, 0, len(hs))
	for _, h := range hs {
		rh := RecallHit{ID: h.Record.ID, Version: h.Record.Version, Kind: string(h.Record.Kind),
			Status: string(h.Record.Status), Text: h.Record.Text, Score: h.Score}
		if h.Record.ReviewAt != 0 {
			rh.ReviewAt = fmtTime(h.Record.ReviewAt)
		}
		out = append(out, rh)
	}
	return out
}

func (o *Op) ToQuery() (Query, error) {
	at, err := parseOpTime(o.Time)
	if err != nil {
		return Query{}, err
	}
	asOf, err := parseOpTime(o.AsOf)
	if err != nil {
		return Query{}, err
	}
	if o.BudgetTokens < 0 {
		return Query{}, fmt.Errorf("budget_tokens %d: want 0 or more: %w", o.BudgetTokens, ErrInvalid)
	}
	return Query{Tenant: o.Tenant, User: o.User, Text: o.Query, At: at, AsOf: asOf, K: o.K, History: o.History, Scopes: o.Scopes,
		BudgetTokens: o.BudgetTokens}, nil
}

// Answer runs a recall op against a view.
func (e *Engine) Answer(rd projector.Reader, o *Op) RecallOut {
	return e.answer(rd, o, nil, "", nil, nil)
}

// answer runs a recall op with the query's vector by model, if any, or
// its matcher.
func (e *Engine) answer(rd projector.Reader, o *Op, vec []float32, model string, m Matcher, bg [][]float32) RecallOut {
	out := RecallOut{Op: "recall", Query: o.Query, Results: []RecallHit{}, Conflicts: []RecallHit{}}
	q, err := o.ToQuery()
	q.Vector, q.Model, q.Matcher, q.Background = vec, model, m, bg
	if err == nil {
		var res Result
		res, err = e.Recall(rd, q)
		out.Results, out.Conflicts = hits(res.Records), hits(res.Conflicts)
	}
	if err != nil {
		out.Error = err.Error()
	}
	return out
}
