package keys

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lanes"
)

// The keys service is the one writer of the data keys: a request/reply
// service (nats.go micro) run under the keys role's identity, the only one
// besides the admin that may publish to the bucket or delete its messages.
// Every other identity asks it for keys (a Remote store). It is authorised
// by subject, tsv.keys.<verb>.<tenant>: the server lets a producer publish
// on its own tenant's user subject only, processors on any tenant's seal
// and open subjects, readers on open, and only the operator on erase. The
// service validates every token of what it is asked (the subject's tenant
// and each part of a scope), so a literal '*' or '>' is refused
// (ErrRefused), never matched. Replies go to the requester's own inbox
// prefix, which no other role may read.

// ServicePrefix is the subject prefix of the keys service:
// tsv.keys.<verb>.<tenant>.
const ServicePrefix = "tsv.keys"

// The service's verbs (endpoints).
const (
	// VerbUser answers a user's key ({"user":…}, or its scope
	// {"scope":"u/…"}; neither: the user without a name), made on first
	// use: a producer's only verb, on its own tenant's subject.
	VerbUser = "user"
	// VerbOpen answers an existing key of a scope ({"scope":…},
	// events.UserScope or events.RecordScope); 404 when there is none.
	VerbOpen = "open"
	// VerbSeal answers the key of a scope, made on first use.
	VerbSeal = "seal"
	// VerbErase destroys a user's keys ({"user":…}), one memory record's
	// ({"user":…,"record":…}) or the tenant's user-less scope's
	// ({"user_less":true}) and answers how many ({"erased":n}).
	VerbErase = "erase"
)

// Verbs are the service's endpoints.
var Verbs = []string{VerbUser, VerbOpen, VerbSeal, VerbErase}

// ServiceSubject is the subject of verb for tenant.
func ServiceSubject(verb, tenant string) string { return ServicePrefix + "." + verb + "." + tenant }

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
	CodeRefused = "400" // ErrRefused: not a tenant, scope or verb the service gives
	CodeNoKey   = "404" // no such key (open): never made, or erased
	CodeBadKey  = "422" // ErrBadKey: the stored value is not a key
	CodeFailed  = "500" // the bucket did not answer
	CodeBusy    = "503" // the request's lane is full (LaneMax): ask again later
	CodeTooMany = "507" // ErrTooManyKeys: the tenant holds Config.UserKeysMax user keys
)

// ErrRefused: the keys service refused a request: a tenant or scope that
// is not one (a wildcard, an empty or undecodable part), a verb it does
// not know. It wraps events.ErrBadInput.
var ErrRefused = fmt.Errorf("keys: request refused: %w", events.ErrBadInput)

// Request is a request to the keys service; each verb reads the fields it
// needs.
type Request struct {
	Scope  string `json:"scope,omitempty"`
	User   string `json:"user,omitempty"`
	Record string `json:"record,omitempty"`
	// UserLess (erase only, with no user or record): the tenant's
	// user-less scope, under which what its producers published without a
	// user is sealed.
	UserLess bool `json:"user_less,omitempty"`
}

// EraseReply answers VerbErase.
type EraseReply struct {
	Erased int `json:"erased"`
}

// Service answers the keys service from a store of the whole bucket. Its
// replies to VerbUser, VerbOpen and VerbSeal are the key as stored (48
// bytes, the request's reply is the key: replies go to the requester's own
// inbox).
type Service struct {
	store *Store // counts each tenant's user keys (bound.go)
	log   *slog.Logger
	lanes *lanes.Lanes
}

// NewService returns the service over store, which must reach the bucket
// (not Remote): ErrInvalidConfig otherwise.
func NewService(store *Store, log *slog.Logger) (*Service, error) {
	if store == nil || store.cfg.Remote || store.kv == nil {
		return nil, fmt.Errorf("%w: the keys service needs a store of the bucket", ErrInvalidConfig)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, log: log, lanes: lanes.New(LaneMax, QueuedMax)}, nil
}

// Serve adds the service to nc (its own micro service, "toolstream-keys")
// and returns it; Stop it when done.
func (v *Service) Serve(nc *nats.Conn) (micro.Service, error) {
	svc, err := micro.AddService(nc, micro.Config{Name: "toolstream-keys", Version: "0.1.0",
		Description: "Toolstream data keys: the one writer of the bucket ts_keys"})
	if err != nil {
		return nil, fmt.Errorf("keys: service: %w", err)
	}
	if err := v.AddTo(svc); err != nil {
		svc.Stop()
		return nil, err
	}
	return svc, nil
}

// AddTo registers the endpoints on svc.
func (v *Service) AddTo(svc micro.Service) error {
	for _, verb := range Verbs {
		verb := verb
		err := svc.AddEndpoint("keys-"+verb, micro.HandlerFunc(func(req micro.Request) {
			tenant := req.Subject()[strings.LastIndexByte(req.Subject(), '.')+1:]
			if !v.lanes.Submit(verb+"."+tenant, func() { v.answer(req, verb, tenant) }) {
				req.Error(CodeBusy, "too many requests of this tenant waiting: ask again later", nil)
			}
		}), micro.WithEndpointSubject(ServicePrefix+"."+verb+".*"))
		if err != nil {
			return fmt.Errorf("keys: service endpoint %s: %w", verb, err)
		}
	}
	return nil
}

// answer answers one request of verb for tenant, in its lane.
func (v *Service) answer(req micro.Request, verb, tenant string) {
	var r Request
	if err := json.Unmarshal(req.Data(), &r); err != nil {
		req.Error(CodeRefused, "request is not a keys request: "+err.Error(), nil)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), v.store.cfg.Timeout)
	defer cancel()
	out, err := v.Handle(ctx, verb, tenant, &r)
	if err != nil {
		v.log.Warn("keys request refused", "verb", verb, "tenant", tenant, "err", err)
		req.Error(codeOf(err), err.Error(), nil)
		return
	}
	if b, ok := out.([]byte); ok {
		req.Respond(b)
		return
	}
	req.RespondJSON(out)
}

func codeOf(err error) string {
	switch {
	case errors.Is(err, errKeyGone):
		return CodeNoKey
	case errors.Is(err, ErrBadKey):
		return CodeBadKey
	case errors.Is(err, ErrRefused):
		return CodeRefused
	case errors.Is(err, ErrTooManyKeys):
		return CodeTooMany
	}
	return CodeFailed
}

// Handle answers one request of verb for tenant: the key as stored (a
// []byte) or an EraseReply. It returns ErrRefused for a tenant, scope or
// verb it does not give, ErrBadKey for a stored value that is not a key,
// and errKeyGone (CodeNoKey) for VerbOpen of a key that does not exist.
func (v *Service) Handle(ctx context.Context, verb, tenant string, r *Request) (any, error) {
	if err := validToken(tenant); err != nil {
		return nil, fmt.Errorf("%w: tenant: %w", ErrRefused, err)
	}
	if err := events.ValidTenant(tenant); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRefused, err)
	}
	switch verb {
	case VerbUser:
		scope := r.Scope
		if scope == "" {
			scope = events.UserScope(r.User) // none: the user without a name
		}
		if err := validScope(scope); err != nil || !strings.HasPrefix(scope, "u/") || r.Record != "" {
			return nil, fmt.Errorf("%w: %s takes a user's scope (u/<user>) or a user", ErrRefused, verb)
		}
		return v.value(ctx, tenant, scope, true)
	case VerbOpen, VerbSeal:
		if err := validScope(r.Scope); err != nil {
			return nil, err
		}
		return v.value(ctx, tenant, r.Scope, verb == VerbSeal)
	case VerbErase:
		if r.UserLess {
			// The tenant's user-less scope: asked for by name, never by an
			// empty user (a request that forgot its user erases nothing).
			if r.User != "" || r.Record != "" {
				return nil, fmt.Errorf("%w: erase of the user-less scope names no user or record", ErrRefused)
			}
			n, err := v.store.EraseUserLess(ctx, tenant)
			return EraseReply{Erased: n}, err
		}
		if r.User == "" {
			return nil, fmt.Errorf("%w: erase needs a user", ErrRefused)
		}
		var n int
		var err error
		if r.Record != "" {
			n, err = v.store.EraseRecord(ctx, tenant, r.User, r.Record)
		} else {
			n, err = v.store.Erase(ctx, tenant, r.User)
		}
		if errors.Is(err, events.ErrBadInput) {
			err = fmt.Errorf("%w: %w", ErrRefused, err)
		}
		return EraseReply{Erased: n}, err
	}
	return nil, fmt.Errorf("%w: verb %q", ErrRefused, verb)
}

// value is the stored key of (tenant, scope), made first when there is
// none and mk says so (VerbUser, VerbSeal: a user's key within the
// tenant's Config.UserKeysMax, ErrTooManyKeys past it); ErrBadKey when
// what is stored is not a key (it is never replaced: only an operator's
// erasure removes it).
func (v *Service) value(ctx context.Context, tenant, scope string, mk bool) ([]byte, error) {
	n, err := name(tenant, scope)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRefused, err)
	}
	b, err := v.store.load(ctx, n)
	if errors.Is(err, errKeyGone) && mk {
		b, err = v.store.makeScoped(ctx, tenant, scope, n)
	}
	if err != nil {
		return nil, err
	}
	if _, _, err := parse(b); err != nil {
		return nil, err
	}
	return b, nil
}

// validToken refuses a subject token or scope part that a wildcard, a
// separator or a control character would make into something else.
func validToken(tok string) error {
	if tok == "" {
		return errors.New("empty")
	}
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; c <= ' ' || c >= 0x7f || c == '.' || c == '*' || c == '>' {
			return fmt.Errorf("%q holds %q", tok, c)
		}
	}
	return nil
}

// validScope refuses a scope that is not u/<user> or r/<user>/<record>
// with every part a token (events.UserScope, events.RecordScope).
func validScope(scope string) error {
	parts := strings.Split(scope, "/")
	if !(len(parts) == 2 && parts[0] == "u" || len(parts) == 3 && parts[0] == "r") {
		return fmt.Errorf("%w: key scope %q", ErrRefused, scope)
	}
	for _, p := range parts[1:] {
		if err := validToken(p); err != nil {
			return fmt.Errorf("%w: key scope: %w", ErrRefused, err)
		}
	}
	return nil
}

// askKey asks the service for the key r: VerbUser in a tenant's store,
// else VerbSeal with make, VerbOpen without.
func (s *Store) askKey(ctx context.Context, r ref, make bool) ([]byte, error) {
	verb, req := VerbOpen, Request{Scope: r.scope}
	switch {
	case s.cfg.Tenant != "":
		verb = VerbUser
	case make:
		verb = VerbSeal
	}
	m, err := s.ask(ctx, verb, r.tenant, req)
	if err != nil {
		return nil, err
	}
	return m.Data, nil
}

// askErase asks the service to erase a user's keys, or a record's.
func (s *Store) askErase(ctx context.Context, tenant, user, record string) (int, error) {
	return s.askEraseReq(ctx, tenant, Request{User: user, Record: record})
}

func (s *Store) askEraseReq(ctx context.Context, tenant string, req Request) (int, error) {
	user := req.User
	if err := events.ValidTenant(tenant); err != nil {
		return 0, err
	}
	m, err := s.ask(ctx, VerbErase, tenant, req)
	if err != nil {
		return 0, err
	}
	var out EraseReply
	if err := json.Unmarshal(m.Data, &out); err != nil {
		return 0, fmt.Errorf("%w: erase reply: %w", ErrUnavailable, err)
	}
	s.Forget(tenant, user)
	return out.Erased, nil
}

// askRetry is how long ask waits before asking again a service that has
// no responder yet (it is starting, or moving to another process).
const askRetry = 100 * time.Millisecond

// makeRetry is how long make waits before reading a key again that the
// bucket said exists but a replica did not yet return.
const makeRetry = 20 * time.Millisecond

// ask sends one request to the service, asking again while nobody answers
// and, after a wait (lanes.Wait), while the service is busy (CodeBusy: the
// request's lane was full and it did nothing), within ctx and
// Config.Timeout (a request the server refused is never answered); it
// reads a refusal from the reply's error header and never asks again after
// one of what was asked (4xx).
func (s *Store) ask(ctx context.Context, verb, tenant string, req Request) (*nats.Msg, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	data, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	subject := ServiceSubject(verb, tenant)
	for busy := 1; ; {
		m, err := s.cfg.JS.Conn().RequestWithContext(ctx, subject, data)
		if errors.Is(err, nats.ErrNoResponders) && ctx.Err() == nil {
			select {
			case <-ctx.Done():
			case <-time.After(askRetry):
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrUnavailable, subject, err)
		}
		code := m.Header.Get(micro.ErrorCodeHeader)
		desc := m.Header.Get(micro.ErrorHeader)
		switch code {
		case "":
			return m, nil
		case CodeNoKey:
			return nil, errKeyGone
		case CodeBadKey:
			return nil, fmt.Errorf("%w (the keys service: %s)", ErrBadKey, desc)
		case CodeRefused:
			return nil, fmt.Errorf("%w (the keys service: %s)", ErrRefused, desc)
		case CodeTooMany:
			return nil, fmt.Errorf("%w (the keys service: %s)", ErrTooManyKeys, desc)
		case CodeBusy:
			if err := lanes.Wait(ctx, busy); err == nil {
				busy++
				continue
			}
		}
		return nil, fmt.Errorf("%w: the keys service: %s %s", ErrUnavailable, code, desc)
	}
}

// StartService serves the keys service on nc, an identity of the keys role
// (or the admin), over the bucket's store cfg describes (cfg.JS is made of
// nc when nil; the bucket is waited for as Open does). Stop the returned
// service when done; nc stays the caller's.
func StartService(ctx context.Context, nc *nats.Conn, cfg Config) (micro.Service, error) {
	if cfg.JS == nil {
		js, err := jetstream.New(nc)
		if err != nil {
			return nil, fmt.Errorf("keys: service: %w", err)
		}
		cfg.JS = js
	}
	cfg.Remote, cfg.Tenant = false, ""
	store, err := Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	v, err := NewService(store, cfg.Logger)
	if err != nil {
		return nil, err
	}
	return v.Serve(nc)
}
