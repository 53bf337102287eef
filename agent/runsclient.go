package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/runs"
)

// runsClient asks the runs service (tsv.runs.<verb>.<tenant>) as any
// producer's loop does.
type runsClient struct {
	nc      *nats.Conn
	timeout time.Duration
}

// errNoRun: the service knows no such run (yet).
var errNoRun = errors.New("agent: no such run yet")

func (c *runsClient) ask(ctx context.Context, verb, tenant string, req runs.Request, out any) error {
	data, err := json.Marshal(req)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	m, err := c.nc.RequestWithContext(ctx, runs.ServiceSubject(verb, tenant), data)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrRunsService, verb, err)
	}
	switch code := m.Header.Get(micro.ErrorCodeHeader); code {
	case "":
	case runs.CodeNotFound:
		return errNoRun
	default:
		return fmt.Errorf("%w: %s: %s %s", ErrRunsService, verb, code, m.Header.Get(micro.ErrorHeader))
	}
	if err := json.Unmarshal(m.Data, out); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrRunsService, verb, err)
	}
	return nil
}

// state is a run and its rounds as the runs view has them; a run the view
// does not know yet is the zero state.
type state struct {
	Run    runs.Run
	Rounds []runs.Round
	Known  bool
}

func (c *runsClient) state(ctx context.Context, tenant, run string) (*state, error) {
	// The run and its rounds are two requests: the rounds are taken as of
	// the run's version only when the run reads the same before and after
	// them (every change of a run raises its version), so a decision never
	// pairs a settled round with the run as it was before it settled.
	for {
		st := &state{}
		err := c.ask(ctx, "get", tenant, runs.Request{Run: run}, &st.Run)
		if errors.Is(err, errNoRun) {
			return st, nil
		}
		if err != nil {
			return nil, err
		}
		st.Known = true
		if err := c.ask(ctx, "rounds", tenant, runs.Request{Run: run}, &st.Rounds); err != nil && !errors.Is(err, errNoRun) {
			return nil, err
		}
		var after runs.Run
		if err := c.ask(ctx, "get", tenant, runs.Request{Run: run}, &after); err != nil {
			return nil, err
		}
		if after.Version == st.Run.Version {
			return st, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
}

func (c *runsClient) history(ctx context.Context, tenant, run string, o runs.HistoryOptions) (*runs.History, error) {
	var h runs.History
	err := c.ask(ctx, "history", tenant, runs.Request{Run: run, HistoryOptions: o}, &h)
	if errors.Is(err, errNoRun) {
		return &runs.History{Format: o.Format, Messages: json.RawMessage("[]")}, nil
	}
	if err != nil {
		return nil, err
	}
	return &h, nil
}

// lastEvent reads the last event on subject from the log, opened with
// keys; nil when there is none.
func lastEvent(ctx context.Context, js jetstream.JetStream, keys events.Keyring, subject string) (*events.Event, error) {
	name, err := events.StreamOf(subject)
	if err != nil {
		return nil, err
	}
	s, err := js.Stream(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("agent: stream %s: %w", name, err)
	}
	m, err := s.GetLastMsgForSubject(ctx, subject)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("agent: read %s: %w", subject, err)
	}
	return events.DecodeAtWith(m.Subject, m.Data, keys)
}
