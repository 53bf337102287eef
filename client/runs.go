package client

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"sync"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/events/runsapi"
)

// The runs service (tsv.runs.<verb>.<tenant>, package runs): a run's state
// and history, and the writes a producer's own loop makes. A producer's
// identity may ask about its own tenant's runs.

// Run returns the state of a run: status, version, counters, plan. It
// returns ErrNotFound for a run the tenant does not have.
func (c *Client) Run(ctx context.Context, tenant, run string) (runsapi.Run, error) {
	var out runsapi.Run
	err := c.runsRequest(ctx, "get", tenant, &runsapi.Request{Run: run}, &out)
	return out, err
}

// RunCurrent is Run answered once the runs view has applied all the log
// held when it was asked: what a reader acting on what the view lacks
// reads (a view restarted from its checkpoint may be behind what it
// answered before). It costs the service a look at the log's end and the
// wait; ErrNotFound as Run.
func (c *Client) RunCurrent(ctx context.Context, tenant, run string) (runsapi.Run, error) {
	var out runsapi.Run
	err := c.runsRequest(ctx, "get", tenant, &runsapi.Request{Run: run, Current: true}, &out)
	return out, err
}

// Runs lists the tenant's runs.
func (c *Client) Runs(ctx context.Context, tenant string) ([]runsapi.Run, error) {
	var out []runsapi.Run
	err := c.runsRequest(ctx, "list", tenant, &runsapi.Request{}, &out)
	return out, err
}

// Rounds returns a run's rounds, oldest first.
func (c *Client) Rounds(ctx context.Context, tenant, run string) ([]runsapi.Round, error) {
	var out []runsapi.Round
	err := c.runsRequest(ctx, "rounds", tenant, &runsapi.Request{Run: run}, &out)
	return out, err
}

// RoundsFrom returns a run's rounds at turn from and after (a round's
// Turn), oldest first: a reader that keeps the rounds it read asks only for
// the ones that may have changed, and the service reads only those.
func (c *Client) RoundsFrom(ctx context.Context, tenant, run string, from int) ([]runsapi.Round, error) {
	var out []runsapi.Round
	err := c.runsRequest(ctx, "rounds", tenant, &runsapi.Request{Run: run, From: from}, &out)
	return out, err
}

// HistoryFrom returns the messages of a run's history entries at turn from
// and after, every one verbatim, up to the first round still open; the
// reply's Through is the last turn they cover, to ask from Through+1 next
// and append. opts may not set a budget (ErrBadInput): compacting older
// rounds needs the whole run (History).
func (c *Client) HistoryFrom(ctx context.Context, tenant, run string, from int, opts runsapi.HistoryOptions) (runsapi.History, error) {
	var out runsapi.History
	err := c.runsRequest(ctx, "history", tenant, &runsapi.Request{Run: run, From: from, HistoryOptions: opts}, &out)
	return out, err
}

// History returns a run's conversation so far in a provider's shape (the
// request's messages, input or contents), within opts' token budget.
// It returns ErrNotFound for an unknown run, ErrBadInput for an unknown
// format.
func (c *Client) History(ctx context.Context, tenant, run string, opts runsapi.HistoryOptions) (runsapi.History, error) {
	var out runsapi.History
	err := c.runsRequest(ctx, "history", tenant, &runsapi.Request{Run: run, HistoryOptions: opts}, &out)
	return out, err
}

// WritePlan writes a run's plan (a JSON object: goal, steps, blockers,
// recovery) made from the run's version expected. A write against a
// version that is no longer the run's is refused, never merged: it
// returns a *StaleError (ErrStaleVersion) carrying the current version,
// to read again from; an invalid plan is ErrBadInput. It returns the
// run's version after the write.
func (c *Client) WritePlan(ctx context.Context, tenant, run string, plan json.RawMessage, expected uint64, by string) (uint64, error) {
	var out runsapi.WriteReply
	if err := c.runsRequest(ctx, "plan", tenant, &runsapi.Request{Run: run, Plan: plan, ExpectedVersion: expected, By: by}, &out); err != nil {
		return 0, err
	}
	switch {
	case out.Applied:
		return out.Version, nil
	case out.Reason == runsapi.RefusedStale:
		return out.Version, &StaleError{Current: out.Version, Reason: out.Detail}
	}
	return out.Version, fmt.Errorf("%w: plan of %s/%s refused: %s %s", ErrBadInput, tenant, run, out.Reason, out.Detail)
}

// Say writes a user's message into a run (the next request's input).
// id names it so that a retry is stored once ("" makes one); format is
// the run's provider shape ("" keeps the run's). It returns the run's
// version after it.
func (c *Client) Say(ctx context.Context, tenant, run, user, id, text, format string) (uint64, error) {
	var out runsapi.WriteReply
	req := &runsapi.Request{Run: run, User: user, ID: id, Text: text}
	req.Format = format
	if err := c.runsRequest(ctx, "message", tenant, req, &out); err != nil {
		return 0, err
	}
	if !out.Applied {
		return out.Version, fmt.Errorf("%w: message to %s/%s refused: %s %s", ErrBadInput, tenant, run, out.Reason, out.Detail)
	}
	return out.Version, nil
}

// Lease takes the lease on a run for driver: whoever drives a run holds
// it, renews it before it expires, and stops starting rounds when a
// renewal fails. It returns the run as the new driver takes it over, or
// ErrConflict when another driver holds it.
func (c *Client) Lease(ctx context.Context, tenant, run, driver string) (runsapi.LeaseReply, error) {
	var out runsapi.LeaseReply
	err := c.runsRequest(ctx, "lease", tenant, &runsapi.Request{Run: run, Driver: driver}, &out)
	return out, err
}

// Renew renews a lease Lease or Renew returned, and returns it renewed;
// ErrConflict when it was lost.
func (c *Client) Renew(ctx context.Context, l runsapi.Lease) (runsapi.Lease, error) {
	var out runsapi.LeaseReply
	err := c.runsRequest(ctx, "renew", l.Tenant, &runsapi.Request{Run: l.Run, Driver: l.Driver, Epoch: l.Epoch, Revision: l.Revision}, &out)
	return out.Lease, err
}

// Release gives a lease up.
func (c *Client) Release(ctx context.Context, l runsapi.Lease) error {
	return c.runsRequest(ctx, "release", l.Tenant, &runsapi.Request{Run: l.Run, Driver: l.Driver, Epoch: l.Epoch, Revision: l.Revision}, nil)
}

func (c *Client) runsRequest(ctx context.Context, verb, tenant string, req *runsapi.Request, out any) error {
	if err := events.ValidTenant(tenant); err != nil {
		return fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	return c.request(ctx, runsapi.ServiceSubject(verb, tenant), req, out)
}

// RunChange is an event of one of a tenant's runs (ts.run), received live:
// the run it belongs to changed.
type RunChange struct {
	Meta
	Run string // the run (events.RunOf: its Run, else its Response)
}

// WatchOption narrows what WatchRuns yields.
type WatchOption func(*watchConfig)

type watchConfig struct {
	run string // "": every run of the tenant
}

// WatchRun watches one run: the subscription is to that run's subject
// alone, so the server sends no other run's changes (a caller that waits
// on one run is not woken by the tenant's others).
func WatchRun(run string) WatchOption { return func(w *watchConfig) { w.run = run } }

// WatchRuns subscribes to the events of tenant's runs and returns once the
// server has the subscription: every event written after WatchRuns
// returns is received. A caller that lists the runs (Runs) after it
// returns, then relists on each change, misses no change between its first
// listing and the changes. The changes are received live (Meta.Seq is 0;
// none is delivered twice; beyond 4096 not taken the server drops them);
// an event that does not decode comes as a *MalformedError and the
// iteration goes on. The subscription ends when ctx ends or the iteration
// stops; iterate once. ErrPermissionDenied for an identity that may not
// subscribe to the tenant's runs, ErrBadInput for a bad tenant or run.
func (c *Client) WatchRuns(ctx context.Context, tenant string, opts ...WatchOption) (iter.Seq2[RunChange, error], error) {
	var w watchConfig
	for _, o := range opts {
		o(&w)
	}
	filter, err := events.TenantFilter("run", tenant)
	if w.run != "" {
		filter, err = events.RunSubject(tenant, w.run)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	kr, err := c.keyring(ctx, tenant)
	if err != nil {
		return nil, err
	}
	ch, unsubscribe, err := c.subscribeLive(ctx, []string{filter})
	if err != nil {
		return nil, err
	}
	var once sync.Once
	stop := func() { once.Do(unsubscribe) }
	context.AfterFunc(ctx, stop)
	return func(yield func(RunChange, error) bool) {
		defer stop()
		takeLive(ctx, ch, func(stream string, seq uint64, subject string, stored int64, data []byte) bool {
			ev, err := events.DecodeAtWith(subject, data, kr)
			if err != nil {
				return yield(RunChange{}, &MalformedError{Stream: stream, Seq: seq, Subject: subject, Err: err})
			}
			return yield(RunChange{Meta: metaOf(stream, seq, subject, stored, ev), Run: events.RunOf(ev)}, nil)
		})
	}, nil
}
