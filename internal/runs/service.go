package runs

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/events/runsapi"
	"github.com/toolstream/toolstream/internal/lanes"
	"github.com/toolstream/toolstream/projector"
)

// ServicePrefix is the subject prefix of the runs service's endpoints
// (tsv.runs.<verb>.<tenant>), Verbs its endpoints, ServiceSubject the
// subject of one for a tenant; Request, WriteReply and LeaseReply its
// messages (package runsapi).
const ServicePrefix = runsapi.ServicePrefix

// Verbs are the service's endpoints.
var Verbs = runsapi.Verbs

// ServiceSubject is the subject of verb for tenant.
func ServiceSubject(verb, tenant string) string { return runsapi.ServiceSubject(verb, tenant) }

type (
	Request    = runsapi.Request
	WriteReply = runsapi.WriteReply
	LeaseReply = runsapi.LeaseReply
)

// Service answers the runs service from the runs projection's live view;
// writes are published as events to the log and answered once the
// projection applied them.
type Service struct {
	Runner *projector.Runner
	Leases *Leases // nil: no lease endpoints
	// Publish writes ev to subject (sealed under the event's user's key)
	// and returns its stream sequence (the original's for a duplicate).
	Publish func(ctx context.Context, subject string, ev *events.Event) (seq uint64, err error)
	// Timeout bounds one request; default 10s.
	Timeout time.Duration
	// Clock stamps messages; default time.Now.
	Clock func() time.Time

	lanes *lanes.Lanes
}

// The service answers in lanes (package lanes), one per verb and tenant
// (the subject's last token), so one tenant's flood of requests holds up no
// other tenant's; past LaneMax waiting in a lane, or QueuedMax in all, a
// request is refused at once (CodeBusy).
const (
	LaneMax   = 256
	QueuedMax = 8192
)

// Error codes of the service's replies (micro's error header).
const (
	CodeBadRequest = "400"
	CodeNotFound   = "404"
	CodeConflict   = "409" // a lease held or lost
	CodeInternal   = "500"
	CodeBusy       = "503" // the request's lane is full (LaneMax): ask again later
	CodeTooLarge   = "413" // the request is over RequestBytesMax: refused unread, nothing written
)

// RequestBytesMax bounds a request's body (a user's message, a plan of at
// most 64 KiB, their JSON escapes): past it the request is refused
// (CodeTooLarge) before it is read, so no run holds a message that its
// history could not answer within the server's max_payload.
const RequestBytesMax = 1 << 20

// AddTo registers the endpoints on svc.
func (s *Service) AddTo(svc micro.Service) error {
	if s.lanes == nil {
		s.lanes = lanes.New(LaneMax, QueuedMax)
	}
	for _, verb := range Verbs {
		if s.Leases == nil && slices.Contains(runsapi.LeaseVerbs, verb) {
			continue
		}
		verb := verb
		err := svc.AddEndpoint("runs-"+verb, micro.HandlerFunc(func(req micro.Request) {
			if n := len(req.Data()); n > RequestBytesMax {
				req.Error(CodeTooLarge, fmt.Sprintf("runs: request of %d bytes, over %d", n, RequestBytesMax), nil)
				return
			}
			tenant := req.Subject()[strings.LastIndexByte(req.Subject(), '.')+1:]
			if !s.lanes.Submit(verb+"."+tenant, func() { s.answer(req, verb, tenant) }) {
				req.Error(CodeBusy, "too many requests of this tenant waiting: ask again later", nil)
			}
		}), micro.WithEndpointSubject(ServicePrefix+"."+verb+".*"))
		if err != nil {
			return fmt.Errorf("runs: service endpoint %s: %w", verb, err)
		}
	}
	return nil
}

// answer answers one request of verb for tenant, in its lane.
func (s *Service) answer(req micro.Request, verb, tenant string) {
	var r Request
	if len(req.Data()) > 0 {
		if err := json.Unmarshal(req.Data(), &r); err != nil {
			req.Error(CodeBadRequest, "request is not a runs request: "+err.Error(), nil)
			return
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout())
	defer cancel()
	out, err := s.Handle(ctx, verb, tenant, &r)
	if err != nil {
		req.Error(codeOf(err), err.Error(), nil)
		return
	}
	req.RespondJSON(out)
}

func codeOf(err error) string {
	switch {
	case errors.Is(err, ErrNotFound):
		return CodeNotFound
	case errors.Is(err, ErrLeaseHeld), errors.Is(err, ErrLeaseLost):
		return CodeConflict
	case errors.Is(err, projector.ErrNoTenant), errors.Is(err, ErrInvalidRequest), errors.Is(err, ErrUnknownFormat), errors.Is(err, events.ErrBadInput):
		return CodeBadRequest
	}
	return CodeInternal
}

func (s *Service) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return 10 * time.Second
}

func (s *Service) now() time.Time {
	if s.Clock != nil {
		return s.Clock()
	}
	return time.Now()
}

// Handle answers one request of verb for tenant.
func (s *Service) Handle(ctx context.Context, verb, tenant string, r *Request) (any, error) {
	if err := validTenant(tenant); err != nil {
		return nil, err
	}
	if verb != "list" && r.Run == "" {
		return nil, fmt.Errorf("%w: %s needs a run", ErrInvalidRequest, verb)
	}
	switch verb {
	case "get", "list", "rounds", "history":
		if r.Current {
			// The tenant's messages only: a view behind on another
			// tenant's holds up no wait of this one's. The wait holds
			// this tenant's lane of the verb up to the request's timeout,
			// whether or not the asker is still there to read the answer.
			if err := s.Runner.WaitCurrentOf(ctx, tenant); err != nil {
				return nil, fmt.Errorf("runs: wait for the view to apply the log: %w", err)
			}
		}
		v := s.Runner.View()
		defer v.Close()
		switch verb {
		case "get":
			return Get(v, tenant, r.Run)
		case "list":
			return List(v, tenant)
		case "rounds":
			if r.From > 0 {
				return RoundsFrom(v, tenant, r.Run, r.From)
			}
			return Rounds(v, tenant, r.Run)
		default:
			if r.From > 0 {
				return BuildHistoryFrom(v, tenant, r.Run, r.From, r.HistoryOptions)
			}
			return BuildHistory(v, tenant, r.Run, r.HistoryOptions)
		}
	case "plan":
		return s.plan(ctx, tenant, r)
	case "message":
		return s.message(ctx, tenant, r)
	case "end":
		return s.end(ctx, tenant, r)
	case "lease":
		ls, err := s.Leases.Acquire(ctx, tenant, r.Run, r.Driver)
		if err != nil {
			return nil, err
		}
		out := LeaseReply{Lease: *ls}
		v := s.Runner.View()
		defer v.Close()
		if run, err := Get(v, tenant, r.Run); err == nil {
			out.Run = &run
		}
		return out, nil
	case "renew", "release":
		ls := &Lease{Tenant: tenant, Run: r.Run, Driver: r.Driver, Epoch: r.Epoch, Revision: r.Revision, Expires: s.now().Add(s.Leases.cfg.TTL)}
		if verb == "release" {
			return LeaseReply{Lease: *ls}, s.Leases.Release(ctx, ls)
		}
		// The service cannot know when the caller's lease expires by the
		// caller's clock: the compare-and-set on the revision decides.
		if err := s.Leases.Renew(ctx, ls); err != nil {
			return nil, err
		}
		return LeaseReply{Lease: *ls}, nil
	}
	return nil, fmt.Errorf("%w: unknown verb %q", ErrInvalidRequest, verb)
}

func (s *Service) plan(ctx context.Context, tenant string, r *Request) (*WriteReply, error) {
	if _, err := parsePlan(r.Plan); err != nil {
		return &WriteReply{Reason: RefusedInvalidPlan, Detail: err.Error()}, nil
	}
	sum := sha256.Sum256(r.Plan)
	ev := &events.Event{ID: events.PlanWriteID(tenant, r.Run, r.ExpectedVersion, hex.EncodeToString(sum[:12])), Tenant: tenant, User: r.User, Run: r.Run,
		At: s.now().UnixNano(), Body: &events.PlanWritten{Expected: r.ExpectedVersion, Plan: r.Plan, By: r.By}}
	seq, err := s.publish(ctx, tenant, r.Run, ev)
	if err != nil {
		return nil, err
	}
	v := s.Runner.View()
	defer v.Close()
	pv, err := PlanWrite(v, tenant, r.Run, seq)
	if errors.Is(err, ErrNotFound) {
		// Rejected by the projector (bad input) rather than decided.
		rj, rejected, rerr := s.Runner.Rejection(seq)
		if rerr == nil && rejected {
			return &WriteReply{Seq: seq, Reason: RefusedInvalidPlan, Detail: rj.Reason}, nil
		}
	}
	if err != nil {
		return nil, err
	}
	return &WriteReply{Seq: seq, Applied: pv.Applied, Reason: pv.Reason, Detail: pv.Detail, Version: pv.Version}, nil
}

func (s *Service) message(ctx context.Context, tenant string, r *Request) (*WriteReply, error) {
	if r.Format != "" && !KnownFormat(r.Format) {
		return nil, fmt.Errorf("%w: %q (want one of %v)", ErrUnknownFormat, r.Format, Formats)
	}
	at := s.now()
	if r.ID == "" {
		// A message without an id gets one: its time and a random part. A
		// client that retries gives the id, so that the log drops the
		// repeat.
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		r.ID = events.MessageID(at.UnixNano(), b)
	}
	ev := &events.Event{ID: events.RunMessageID(tenant, r.Run, r.ID), Tenant: tenant, User: r.User, Run: r.Run, At: at.UnixNano(),
		Body: &events.RunMessage{Role: "user", Text: r.Text, Format: r.Format, Parent: r.Parent}}
	seq, err := s.publish(ctx, tenant, r.Run, ev)
	if err != nil {
		return nil, err
	}
	if rj, rejected, err := s.Runner.Rejection(seq); err != nil {
		return nil, err
	} else if rejected {
		return &WriteReply{Seq: seq, Reason: string(rj.Code), Detail: rj.Reason}, nil
	}
	v := s.Runner.View()
	defer v.Close()
	run, err := Get(v, tenant, r.Run)
	if err != nil {
		return nil, err
	}
	return &WriteReply{Seq: seq, Applied: true, Version: run.Version}, nil
}

// end records that the driver holding the run's lease stopped driving it
// short of an answer (failed, cancelled): the run's status says so until
// its next turn. ErrLeaseLost when the caller does not hold the lease.
func (s *Service) end(ctx context.Context, tenant string, r *Request) (*WriteReply, error) {
	if r.Status != StatusFailed && r.Status != StatusCancelled {
		return nil, fmt.Errorf("%w: end with status %q (want failed or cancelled)", ErrInvalidRequest, r.Status)
	}
	if err := s.Leases.Holds(ctx, tenant, r.Run, r.Driver, r.Epoch); err != nil {
		return nil, err
	}
	v := s.Runner.View()
	run, err := Get(v, tenant, r.Run)
	v.Close()
	if err != nil {
		return nil, err
	}
	var nonce [12]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, err
	}
	ev := &events.Event{ID: events.RunEndedID(tenant, r.Run, hex.EncodeToString(nonce[:])), Tenant: tenant, User: run.User, Session: run.Session, Run: r.Run,
		At: s.now().UnixNano(), Body: &events.RunEnded{Status: string(r.Status), Reason: r.Reason, Detail: r.Detail, Driver: r.Driver}}
	seq, err := s.publish(ctx, tenant, r.Run, ev)
	if err != nil {
		return nil, err
	}
	if rj, rejected, err := s.Runner.Rejection(seq); err != nil {
		return nil, err
	} else if rejected {
		return &WriteReply{Seq: seq, Reason: string(rj.Code), Detail: rj.Reason}, nil
	}
	v = s.Runner.View()
	defer v.Close()
	if run, err = Get(v, tenant, r.Run); err != nil {
		return nil, err
	}
	return &WriteReply{Seq: seq, Applied: true, Version: run.Version}, nil
}

// publish writes a run event and waits until the projection applied it.
func (s *Service) publish(ctx context.Context, tenant, run string, ev *events.Event) (uint64, error) {
	subj, err := events.RunSubject(tenant, run)
	if err != nil {
		return 0, err
	}
	seq, err := s.Publish(ctx, subj, ev)
	if err != nil {
		return 0, fmt.Errorf("runs: publish %s: %w", ev.Kind, err)
	}
	if err := s.Runner.WaitFor(ctx, seq); err != nil {
		return 0, fmt.Errorf("runs: wait for the view: %w", err)
	}
	return seq, nil
}
