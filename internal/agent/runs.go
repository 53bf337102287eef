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

func (d *Driver) state(ctx context.Context, tenant, run string) (*state, error) {
	// The run and its rounds are two requests: the rounds are taken as of
	// the run's version only when the run reads the same before and after
	// them (every change of a run raises its version), so a decision never
	// pairs a settled round with the run as it was before it settled.
	for {
		st := &state{}
		var err error
		st.Run, err = d.runs.Run(ctx, tenant, run)
		if errors.Is(err, client.ErrNotFound) {
			return &state{}, nil
		}
		if err != nil {
			return nil, runsErr("get", err)
		}
		st.Known = true
		if st.Rounds, err = d.runs.Rounds(ctx, tenant, run); err != nil && !errors.Is(err, client.ErrNotFound) {
			return nil, runsErr("rounds", err)
		}
		after, err := d.runs.Run(ctx, tenant, run)
		if err != nil {
			return nil, runsErr("get", err)
		}
		if after.Version == st.Run.Version {
			return st, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
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
