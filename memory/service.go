package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
)

// ServicePrefix is the subject prefix of the memory service's endpoints:
// tsv.memory.recall | list | history | correct | forget. Requests and
// replies are JSON; requests are Ops.
const ServicePrefix = "tsv.memory"

// Service answers memory requests over NATS request/reply (nats.go micro).
// Reads come from a snapshot of the live view; writes are published as
// events to the log and answered once the projection has applied them, with
// the typed rejection when it refused one (a stale correction gets
// "version_conflict": re-read and try again).
type Service struct {
	Engine  *Engine
	Runner  *projector.Runner
	Publish func(ctx context.Context, subject string, ev *events.Event) (seq uint64, err error)
	// Timeout bounds a write's wait for the projection; default 10s.
	Timeout time.Duration
}

// WriteReply answers a correct or forget.
type WriteReply struct {
	Seq      uint64 `json:"seq"`
	Applied  bool   `json:"applied"`
	Rejected string `json:"rejected,omitempty"`
}

// AddTo registers the endpoints on svc.
func (s *Service) AddTo(svc micro.Service) error {
	g := svc.AddGroup(ServicePrefix)
	for name, h := range map[string]func(context.Context, *Op) (any, error){
		"recall": s.recall, "list": s.list, "history": s.history, "correct": s.write, "forget": s.write,
	} {
		verb := name
		err := g.AddEndpoint(verb, micro.HandlerFunc(func(req micro.Request) {
			var op Op
			if err := json.Unmarshal(req.Data(), &op); err != nil {
				req.Error("400", "request is not an op: "+err.Error(), nil)
				return
			}
			if verb == "correct" || verb == "forget" {
				op.Op = verb
			}
			ctx, cancel := context.WithTimeout(context.Background(), s.timeout())
			defer cancel()
			out, err := h(ctx, &op)
			if err != nil {
				req.Error("400", err.Error(), nil)
				return
			}
			req.RespondJSON(out)
		}))
		if err != nil {
			return fmt.Errorf("memory: service endpoint %s: %w", verb, err)
		}
	}
	return nil
}

func (s *Service) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return 10 * time.Second
}

func (s *Service) recall(_ context.Context, o *Op) (any, error) {
	v := s.Runner.View()
	defer v.Close()
	return s.Engine.Answer(v, o), nil
}

func (s *Service) list(_ context.Context, o *Op) (any, error) {
	v := s.Runner.View()
	defer v.Close()
	return s.Engine.List(v, o.Tenant, o.User, o.History)
}

func (s *Service) history(_ context.Context, o *Op) (any, error) {
	v := s.Runner.View()
	defer v.Close()
	return s.Engine.History(v, o.Tenant, o.User, o.ID)
}

func (s *Service) write(ctx context.Context, o *Op) (any, error) {
	if o.Time == "" {
		o.Time = time.Now().UTC().Format(time.RFC3339Nano)
	}
	ev, err := o.Event(0)
	if err != nil {
		return nil, err
	}
	// The id names the request's content and time, so a retried request is
	// deduplicated by the log.
	ev.ID = events.MemoryRequestID(o.Tenant, o.User, o.Op, o.ID, ev.At)
	subj, err := events.MemorySubject(o.Tenant, o.User)
	if err != nil {
		return nil, err
	}
	seq, err := s.Publish(ctx, subj, ev)
	if err != nil {
		return nil, err
	}
	if err := s.Runner.WaitFor(ctx, seq); err != nil {
		return nil, err
	}
	rj, rejected, err := s.Runner.Rejection(seq)
	if err != nil {
		return nil, err
	}
	return WriteReply{Seq: seq, Applied: !rejected, Rejected: rj.Reason}, nil
}
