package memory

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lanes"
	"github.com/toolstream/toolstream/memory/embed"
	"github.com/toolstream/toolstream/memory/memapi"
	"github.com/toolstream/toolstream/projector"
)

// ServicePrefix is the subject prefix of the memory service's endpoints:
// tsv.memory.recall | list | history | message | observe | correct |
// forget. Requests and replies are JSON (package memapi); requests are
// Ops.
const ServicePrefix = memapi.ServicePrefix

// Service answers memory requests over NATS request/reply (nats.go micro).
// Reads come from a snapshot of the live view; writes are published as
// events to the log, each sealed under its data key (SealScope: a record's
// text under the record's own key), and answered once the projection has
// applied them, with the typed rejection when it refused one (a stale
// correction gets "version_conflict": re-read and try again).
//
// A message is read by the extractor here, at the writer: its statements
// are written as one observation each (Engine.MessageEvents).
//
// A forget tombstones the record in the view and answers with the ids
// whose data keys must be destroyed for its text to be unreadable in the
// log too (WriteReply.Erase). The service does not destroy them: only the
// operator may (auth), and `toolstream memory forget` does so (package
// erasure) and waits for the view's rebuild.
type Service struct {
	Engine *Engine
	Runner *projector.Runner
	// Publish writes ev to subject sealed under the data key of scope (""
	// the event's user's) and returns its stream sequence.
	Publish func(ctx context.Context, subject string, ev *events.Event, scope string) (seq uint64, err error)
	// Timeout bounds a write's wait for the projection; default 10s.
	Timeout time.Duration
	// Embedder, if set, embeds what a write applied (its records' current
	// versions, written as events.MemoryEmbedded under each record's key)
	// and each recall's query, which then ranks by words and vectors
	// (Query.Vector). A failing embedder fails neither: the write is
	// applied (WriteReply.EmbedError says why it has no vector) and the
	// recall is lexical. Nil: recall is lexical. An Embedder that is also a
	// Matcher (memory/embed/local, the shipped word vectors) records no
	// vectors: each recall scores the records' texts with it (Query.Matcher).
	Embedder embed.Embedder
	// Matcher, if set, scores the records' texts at each recall beside the
	// Embedder's vectors (Query.Matcher and Query.Vector together: a
	// sentence encoder, memory/embed/use, as the Embedder and the shipped
	// word vectors as the Matcher). Nil: an Embedder that is a Matcher is
	// the Matcher.
	Matcher Matcher
	// HitBatch is how many recall hits of one user the service gathers
	// before it records them as one events.MemoryRecalled; FlushHits (and
	// RunHits, every so often) records the rest. Hits feed decay: a record
	// recalled is a record in use. 0 means 32; negative, hits are not
	// recorded.
	HitBatch int
	// Trace, when set, is called as each request begins with its verb
	// (recall, list, history, constraints, message, observe, correct, forget), its
	// headers and op: it returns the context the request runs under (its
	// span's, a child of a traceparent the headers carry) and the function
	// that ends the span with the answer. Nil: not traced. The stack sets
	// it when tracing is on (search_memory, delete_memory spans).
	Trace func(ctx context.Context, verb string, header micro.Headers, op *Op) (context.Context, func(out any, err error))

	lanes *lanes.Lanes // AddTo's: one per verb and tenant

	mu      sync.Mutex
	pending map[[2]string]map[hitRef]int // by tenant and user
	bg      [][]float32                  // the Embedder's background vectors (background.go), once embedded; guarded by mu
	bgModel string                       // the model bg is of; guarded by mu
}

type hitRef struct {
	id string
	v  int
}

// WriteReply answers a write: message, observe, correct or forget;
// RecordReply is one record a message wrote (package memapi).
type (
	WriteReply  = memapi.WriteReply
	RecordReply = memapi.RecordReply
)

// The service answers in lanes (package lanes), one per verb and the
// tenant a request names (its Op's), so one tenant's slow recalls or flood
// of writes holds up no other tenant's; past LaneMax waiting in a lane, or
// QueuedMax in all, a request is refused at once (CodeBusy), which the Go
// client asks again after a wait.
const (
	LaneMax   = 256
	QueuedMax = 8192
	CodeBusy  = "503"
)

// RequestBytesMax bounds a request's body: past it the request is
// refused (CodeTooLarge) before it is read, and nothing is written. A
// message's or observation's text is at most TextBytesMax; the bound
// leaves room for its JSON escapes and the other fields.
const (
	RequestBytesMax = 1 << 20
	CodeTooLarge    = "413"
)

// CodeTooMany answers a write whose record's data key was refused: its
// user holds as many memory record keys as it may, or its tenant as many
// users (events.ErrKeyQuota; keys.Config.RecordKeysMax, UserKeysMax).
// Forgetting a record frees its key.
const CodeTooMany = "507"

// AddTo registers the endpoints on svc.
func (s *Service) AddTo(svc micro.Service) error {
	if s.lanes == nil {
		s.lanes = lanes.New(LaneMax, QueuedMax)
	}
	g := svc.AddGroup(ServicePrefix)
	for name, h := range map[string]func(context.Context, *Op) (any, error){
		"recall": s.recall, "list": s.list, "history": s.history, "message": s.message, "constraints": s.constraints,
		"observe": s.write, "correct": s.write, "forget": s.write,
	} {
		verb := name
		err := g.AddEndpoint(verb, micro.HandlerFunc(func(req micro.Request) {
			if n := len(req.Data()); n > RequestBytesMax {
				req.Error(CodeTooLarge, fmt.Sprintf("memory: request of %d bytes, over %d", n, RequestBytesMax), nil)
				return
			}
			var op Op
			if err := json.Unmarshal(req.Data(), &op); err != nil {
				req.Error("400", "request is not an op: "+err.Error(), nil)
				return
			}
			switch verb {
			case "message", "observe", "correct", "forget":
				op.Op = verb
			}
			if err := events.ValidTenant(op.Tenant); err != nil {
				req.Error("400", "memory: "+err.Error(), nil) // a request without a tenant is an error, not "all tenants"
				return
			}
			if len(op.Query) > TextBytesMax {
				req.Error("400", fmt.Sprintf("memory: query of %d bytes, over %d", len(op.Query), TextBytesMax), nil)
				return
			}
			if !s.lanes.Submit(verb+"."+op.Tenant, func() { s.answer(req, verb, h, &op) }) {
				req.Error(CodeBusy, "too many requests of this tenant waiting: ask again later", nil)
			}
		}))
		if err != nil {
			return fmt.Errorf("memory: service endpoint %s: %w", verb, err)
		}
	}
	return nil
}

// answer answers one request of verb, in its lane.
func (s *Service) answer(req micro.Request, verb string, h func(context.Context, *Op) (any, error), op *Op) {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout())
	defer cancel()
	end := func(any, error) {}
	if s.Trace != nil {
		ctx, end = s.Trace(ctx, verb, req.Headers(), op)
	}
	out, err := h(ctx, op)
	end(out, err)
	if err != nil {
		req.Error(errorCode(err), err.Error(), nil)
		return
	}
	req.RespondJSON(out)
}

// errorCode is the code a refusal is answered with: 404 for a record
// the user never had, 410 for one that was forgotten (nothing of it is
// left either, but a forget of it asked again is done, not mistyped), 409
// for a correction of a version that is no longer the record's, 507 for a
// record key past its bound (CodeTooMany), 400 for anything else.
func errorCode(err error) string {
	switch {
	case errors.Is(err, ErrForgotten):
		return "410"
	case errors.Is(err, ErrNotFound):
		return "404"
	case errors.Is(err, ErrVersionConflict):
		return "409"
	case errors.Is(err, events.ErrKeyQuota):
		return CodeTooMany
	}
	return "400"
}

func (s *Service) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return 10 * time.Second
}

func (s *Service) recall(ctx context.Context, o *Op) (any, error) {
	m, vectors := s.matcher()
	var vec []float32
	if vectors && strings.TrimSpace(o.Query) != "" {
		if vs, err := s.Embedder.Embed(ctx, []string{o.Query}); err == nil && len(vs) == 1 {
			vec = vs[0] // on failure: lexical, or by the Matcher
		}
	}
	if strings.TrimSpace(o.Query) == "" {
		m = nil
	}
	v := s.Runner.View()
	var out RecallOut
	if vec != nil || m != nil {
		model := ""
		if vec != nil {
			model = s.Embedder.Model()
		}
		var bg [][]float32
		if vec != nil {
			bg = s.background(ctx)
		}
		out = s.Engine.answer(v, o, vec, model, m, bg)
	} else {
		out = s.Engine.Answer(v, o)
	}
	v.Close()
	if err := s.countHits(ctx, o.Tenant, o.User, out.Results); err != nil {
		return nil, err
	}
	return out, nil
}

// background returns the Embedder's vectors of the background sentences
// (Query.Background), embedded on the first recall that asks and kept;
// nil while the Embedder fails (the recall then judges cosines against
// the user's records alone, as without a background), asked again at
// the next recall. Safe for concurrent use: two first recalls may both
// embed, and either's vectors are kept.
func (s *Service) background(ctx context.Context) [][]float32 {
	model := s.Embedder.Model()
	s.mu.Lock()
	bg, ok := s.bg, s.bgModel == model && s.bg != nil
	s.mu.Unlock()
	if ok {
		return bg
	}
	bg, err := Background(ctx, s.Embedder)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	s.bg, s.bgModel = bg, model
	s.mu.Unlock()
	return bg
}

// matcher returns the Matcher recall scores texts with (nil: none) and
// whether the Embedder's vectors are recorded and asked for: not when
// the Embedder is itself the Matcher.
func (s *Service) matcher() (Matcher, bool) {
	if em, ok := s.Embedder.(Matcher); ok {
		if s.Matcher == nil {
			return em, false
		}
		return s.Matcher, false
	}
	return s.Matcher, s.Embedder != nil
}

func (s *Service) hitBatch() int {
	if s.HitBatch == 0 {
		return 32
	}
	return s.HitBatch
}

// countHits adds a recall's results to the user's pending hits, and
// records them once there are HitBatch of them.
func (s *Service) countHits(ctx context.Context, tenant, user string, rs []RecallHit) error {
	if s.hitBatch() < 0 || len(rs) == 0 {
		return nil
	}
	u := [2]string{tenant, user}
	s.mu.Lock()
	if s.pending == nil {
		s.pending = map[[2]string]map[hitRef]int{}
	}
	p := s.pending[u]
	if p == nil {
		p = map[hitRef]int{}
		s.pending[u] = p
	}
	for _, r := range rs {
		p[hitRef{r.ID, r.Version}]++
	}
	n := 0
	for _, c := range p {
		n += c
	}
	var flush map[hitRef]int
	if n >= s.hitBatch() {
		flush = p
		delete(s.pending, u)
	}
	s.mu.Unlock()
	if flush == nil {
		return nil
	}
	return s.publishHits(ctx, u, flush)
}

// FlushHits records every pending recall hit.
func (s *Service) FlushHits(ctx context.Context) error {
	s.mu.Lock()
	all := s.pending
	s.pending = nil
	s.mu.Unlock()
	users := make([][2]string, 0, len(all))
	for u := range all {
		users = append(users, u)
	}
	sort.Slice(users, func(i, j int) bool { return users[i][0]+"/"+users[i][1] < users[j][0]+"/"+users[j][1] })
	var errs []error
	for _, u := range users {
		errs = append(errs, s.publishHits(ctx, u, all[u]))
	}
	return errors.Join(errs...)
}

// RunHits records the pending recall hits every period until ctx ends,
// then once more.
func (s *Service) RunHits(ctx context.Context, every time.Duration) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.Background(), s.timeout())
			defer cancel()
			return s.FlushHits(fctx)
		case <-t.C:
			if err := s.FlushHits(ctx); err != nil && ctx.Err() == nil {
				return err
			}
		}
	}
}

func (s *Service) publishHits(ctx context.Context, u [2]string, p map[hitRef]int) error {
	hits := make([]events.MemoryHit, 0, len(p))
	for h, n := range p {
		hits = append(hits, events.MemoryHit{ID: h.id, Version: h.v, N: n})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].ID != hits[j].ID {
			return hits[i].ID < hits[j].ID
		}
		return hits[i].Version < hits[j].Version
	})
	subj, err := events.MemorySubject(u[0], u[1])
	if err != nil {
		return err
	}
	for start := 0; start < len(hits); start += HitsMax {
		batch := hits[start:min(start+HitsMax, len(hits))]
		at := time.Now().UnixNano()
		ev := &events.Event{ID: events.MemoryRequestID(u[0], u[1], "recalled", batch[0].ID, at), Tenant: u[0], User: u[1], At: at,
			Body: &events.MemoryRecalled{Hits: batch}}
		if _, err := s.Publish(ctx, subj, ev, SealScope(ev)); err != nil {
			return fmt.Errorf("memory: record recall hits of tenant %s: %w", u[0], err)
		}
	}
	return nil
}

// embed writes the vectors of the current versions of records ids (those
// a write applied) and waits for the projection to apply them; it returns
// why it could not, or "".
func (s *Service) embed(ctx context.Context, tenant, user string, ids []string) string {
	if _, vectors := s.matcher(); !vectors || len(ids) == 0 {
		return "" // a Matcher reads the records' texts at the query: no vectors to record
	}
	v := s.Runner.View()
	var recs []Record
	for _, id := range ids {
		if r, err := s.Engine.Get(v, tenant, user, id); err == nil {
			recs = append(recs, r)
		}
	}
	v.Close()
	at := time.Now().UnixNano()
	evs, err := EmbedEvents(ctx, s.Embedder, tenant, user, recs, at)
	if err != nil {
		return err.Error()
	}
	subj, err := events.MemorySubject(tenant, user)
	if err != nil {
		return err.Error()
	}
	var last uint64
	for _, ev := range evs {
		if last, err = s.Publish(ctx, subj, ev, SealScope(ev)); err != nil {
			return err.Error()
		}
	}
	if last != 0 { // answered once the vectors are applied, as the write is
		if err := s.Runner.WaitFor(ctx, last); err != nil {
			return err.Error()
		}
	}
	return ""
}

func (s *Service) list(_ context.Context, o *Op) (any, error) {
	v := s.Runner.View()
	defer v.Close()
	return s.Engine.List(v, o.Tenant, o.User, o.History)
}

// constraints answers the user's constraints in force as of o.AsOf
// (Engine.InForce); without AsOf, now.
func (s *Service) constraints(_ context.Context, o *Op) (any, error) {
	at := time.Now().UnixNano()
	if o.AsOf != "" {
		t, err := time.Parse(time.RFC3339Nano, o.AsOf)
		if err != nil {
			return nil, fmt.Errorf("%w: as_of: %v", events.ErrBadInput, err)
		}
		at = t.UnixNano()
	}
	v := s.Runner.View()
	defer v.Close()
	return s.Engine.InForce(v, o.Tenant, o.User, at)
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
	if o.Op == "observe" && o.ID == "" {
		return nil, fmt.Errorf("observe: a record id is required")
	}
	ev, err := o.Event(0)
	if err != nil {
		return nil, err
	}
	// The id names the request's time and content, so a retried request is
	// deduplicated by the log and a different one at the same time is not.
	content, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	ev.ID = events.MemoryWriteID(o.Tenant, o.User, o.Op, o.ID, ev.At, content)
	subj, err := events.MemorySubject(o.Tenant, o.User)
	if err != nil {
		return nil, err
	}
	seq, err := s.Publish(ctx, subj, ev, SealScope(ev))
	if err != nil {
		return nil, err
	}
	reply, err := s.applied(ctx, seq)
	if err != nil || !reply.Applied {
		return reply, err
	}
	if o.Op != "forget" {
		reply.EmbedError = s.embed(ctx, o.Tenant, o.User, []string{o.ID})
		return reply, nil
	}
	v := s.Runner.View()
	defer v.Close()
	reply.Erase, err = s.Engine.Forgotten(v, o.Tenant, o.User, o.ID)
	return reply, err
}

// message writes a user's message: the extractor reads it here, and each
// record is written by an event of its own under its own key.
func (s *Service) message(ctx context.Context, o *Op) (any, error) {
	at := time.Now().UTC()
	if o.Time != "" {
		t, err := time.Parse(time.RFC3339Nano, o.Time)
		if err != nil {
			return nil, fmt.Errorf("time %q: want RFC 3339: %w", o.Time, err)
		}
		at = t
	}
	if o.ID == "" {
		// A message without an id gets one: its time and a random part (two
		// messages may be said at the same time). A client that retries
		// gives the id, so that the log drops the repeat.
		var r [4]byte
		if _, err := rand.Read(r[:]); err != nil {
			return nil, err
		}
		o.ID = events.MessageID(at.UnixNano(), r)
	}
	subj, err := events.MemorySubject(o.Tenant, o.User)
	if err != nil {
		return nil, err
	}
	evs, err := s.Engine.ReplyEvents(o.Tenant, o.User, o.ID, o.Text, o.ReplyTo, at.UnixNano())
	if err != nil {
		return nil, err
	}
	out := WriteReply{ID: o.ID, Applied: true}
	for _, ev := range evs {
		seq, err := s.Publish(ctx, subj, ev, SealScope(ev))
		if err != nil {
			return nil, err
		}
		obs, _ := events.As[*events.MemoryObserved](ev)
		out.Records = append(out.Records, RecordReply{ID: obs.ID, Seq: seq})
		out.Seq = seq
	}
	for i := range out.Records {
		r, err := s.applied(ctx, out.Records[i].Seq)
		if err != nil {
			return nil, err
		}
		out.Records[i].Applied, out.Records[i].Rejected = r.Applied, r.Rejected
		if !r.Applied {
			out.Applied = false
			out.Rejected = cmp.Or(out.Rejected, r.Rejected)
		}
	}
	var ids []string
	for _, r := range out.Records {
		if r.Applied {
			ids = append(ids, r.ID)
		}
	}
	out.EmbedError = s.embed(ctx, o.Tenant, o.User, ids)
	return out, nil
}

// applied waits until the projection has applied seq and says whether it
// refused it.
func (s *Service) applied(ctx context.Context, seq uint64) (WriteReply, error) {
	if err := s.Runner.WaitFor(ctx, seq); err != nil {
		return WriteReply{}, err
	}
	rj, rejected, err := s.Runner.Rejection(seq)
	if err != nil {
		return WriteReply{}, err
	}
	return WriteReply{Seq: seq, Applied: !rejected, Rejected: rj.Reason}, nil
}
