package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/runs"
)

// The runs service (tsv.runs.<verb>.<tenant>), asked through the Go
// client as any producer's loop asks it.

// runsErr is err of a request to the runs service, as ErrRunsService.
func runsErr(verb string, err error) error {
	return fmt.Errorf("%w: %s: %w", ErrRunsService, verb, err)
}

// state is a run and its rounds as the runs view has them; a run the view
// does not know yet is the zero state.
type state struct {
	Run    runs.Run
	Rounds []runs.Round
	Known  bool
}

func (d *Driver) state(ctx context.Context, tenant, run string, c *runCache) (*state, error) {
	// The run and its rounds are two requests: the rounds are taken as of
	// the run's version only when the run reads the same before and after
	// them (every change of a run raises its version), so a decision never
	// pairs a settled round with the run as it was before it settled.
	//
	// A drive keeps what it read (c): a run whose version did not move is
	// the state it had, and otherwise only the rounds from the first one
	// still open (else the last, which its answer's late events may still
	// change) are read again, so a read costs the same in the run's 50th
	// round as in its first. Settled rounds before them are taken as read.
	//
	// A drive's first read waits for the view to have applied the log as it
	// is then (RunCurrent), and so does a read that finds the run older than
	// the drive read it before: a view restarted from its checkpoint may
	// lack a round another driver (this process before a crash) saw, and a
	// round that is not in the view would be asked of the model again —
	// without the results of the calls it made, which may have run.
	for {
		get := d.runs.RunCurrent
		if c.current {
			get = d.runs.Run
		}
		r, err := get(ctx, tenant, run)
		if (errors.Is(err, client.ErrNotFound) || err == nil && c.st != nil && r.Version < c.st.Run.Version) && c.current && c.st != nil {
			c.current = false // the view went back: read it again once it caught up
			continue
		}
		if errors.Is(err, client.ErrNotFound) {
			c.current = true
			return &state{}, nil
		}
		if err != nil {
			return nil, runsErr("get", err)
		}
		c.current = true
		if c.st != nil && r.Version == c.st.Run.Version {
			return c.st, nil
		}
		from := c.rereadFrom()
		var rounds []runs.Round
		if from > 0 {
			rounds, err = d.runs.RoundsFrom(ctx, tenant, run, from)
		} else {
			rounds, err = d.runs.Rounds(ctx, tenant, run)
		}
		if err != nil && !errors.Is(err, client.ErrNotFound) {
			return nil, runsErr("rounds", err)
		}
		after, err := d.runs.Run(ctx, tenant, run)
		if err != nil {
			return nil, runsErr("get", err)
		}
		if after.Version == r.Version {
			st := &state{Run: r, Known: true, Rounds: rounds}
			if from > 0 {
				kept := c.st.Rounds
				i := len(kept)
				for i > 0 && kept[i-1].Turn >= from {
					i--
				}
				st.Rounds = append(kept[:i:i], rounds...)
			}
			c.st = st
			return st, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
}

// runCache is what one drive read of its run: the last state, and the
// history's messages through a turn. It lives as long as the drive (a
// restarted or another driver reads the run whole once).
type runCache struct {
	// current: a read of this drive waited for the view to apply the log
	// (RunCurrent); later reads take the view as it is.
	current bool
	st      *state
	hist    []jsonRaw // the history's messages through turn histTo
	histTo  int
}

// rereadFrom is the turn from which the rounds are read again: the first
// round still open, else the last round; 0 (all) when none was read.
func (c *runCache) rereadFrom() int {
	if c.st == nil || len(c.st.Rounds) == 0 {
		return 0
	}
	for _, r := range c.st.Rounds {
		if r.Status == "" {
			return r.Turn
		}
	}
	return c.st.Rounds[len(c.st.Rounds)-1].Turn
}

// historyMessages returns the run's history messages (all of them, the
// client's leading ones included). Without a budget and with every round
// of st settled, only the entries after those kept in c are read and
// appended; otherwise the whole history is read (and c forgets its own).
//
// budget bounds the history's tokens (0: none).
func (d *Driver) historyMessages(ctx context.Context, tenant, run, format string, st *state, c *runCache, budget int) ([]jsonRaw, error) {
	o := runs.HistoryOptions{Format: format, BudgetTokens: budget}
	open := false
	for _, r := range st.Rounds {
		if r.Status == "" {
			open = true
			break
		}
	}
	if o.BudgetTokens > 0 || open || !st.Known {
		c.hist, c.histTo = nil, 0
		h, err := d.history(ctx, tenant, run, o)
		if err != nil {
			return nil, err
		}
		var msgs []jsonRaw
		if err := json.Unmarshal(h.Messages, &msgs); err != nil {
			return nil, fmt.Errorf("agent: history is not an array: %w", err)
		}
		return msgs, nil
	}
	h, err := d.runs.HistoryFrom(ctx, tenant, run, c.histTo+1, o)
	if err != nil {
		return nil, runsErr("history", err)
	}
	var msgs []jsonRaw
	if err := json.Unmarshal(h.Messages, &msgs); err != nil {
		return nil, fmt.Errorf("agent: history is not an array: %w", err)
	}
	c.hist = append(c.hist, msgs...)
	c.histTo = max(h.Through, c.histTo)
	return c.hist, nil
}

func (d *Driver) history(ctx context.Context, tenant, run string, o runs.HistoryOptions) (*runs.History, error) {
	h, err := d.runs.History(ctx, tenant, run, o)
	if errors.Is(err, client.ErrNotFound) {
		return &runs.History{Format: o.Format, Messages: json.RawMessage("[]")}, nil
	}
	if err != nil {
		return nil, runsErr("history", err)
	}
	return &h, nil
}
