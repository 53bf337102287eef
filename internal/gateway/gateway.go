package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/telemetry"
)

// Config configures a Gateway.
type Config struct {
	// File is the upstreams, the clients' keys and the heartbeat interval.
	File File
	// RequestsMaxDefault is the Limits.RequestsMax in force when the file
	// leaves it 0, at start and for a reload's comparison (serve: its
	// connection cap); DefaultRequestsMax when 0.
	RequestsMaxDefault int
	// JS is the log; Keys seals what the gateway writes to it. Both are
	// required.
	JS   jetstream.JetStream
	Keys events.Keyring
	// Client sends the upstream requests; default a client with no overall
	// timeout (a stream lasts as long as the model writes).
	Client *http.Client
	// Runner serves requests carrying "Toolstream-Mode: run"; without one
	// they get a 501 in the provider's shape.
	Runner Runner
	// BodyMax bounds a client's request body; default 32 MiB.
	BodyMax int64
	// ClientStall bounds how long a write to a streaming client may wait
	// for it to read (DefaultClientStall): past it the client is dropped
	// and the upstream read goes on without it, logged to the end.
	ClientStall time.Duration
	// Logger; nil discards.
	Logger *slog.Logger
	// Now gives the events their time; default time.Now.
	Now func() time.Time
	// MsgIDKey tags the message ids of the model events the gateway
	// publishes (client.WithMsgIDKey): the bus's (bus.Bus.MsgIDKey). Nil:
	// a random key.
	MsgIDKey []byte
	// Telemetry traces each model request (a "chat {model}" span, otel.go)
	// and carries its trace context on the model events it publishes; nil
	// traces nothing.
	Telemetry *telemetry.Telemetry
	// OnReload, when set, is given every file Reload puts in force, once
	// its keys and prices are: what reads the rest of it while running
	// (run mode's run: and memory: settings, agent.Driver.SetSettings)
	// takes it from there.
	OnReload func(f *File)
}

// Runner serves run mode (docs/design.md, "Run mode"): ServeRun is called for a
// request carrying "Toolstream-Mode: run" once it is authenticated and
// its body read; it writes the whole response.
type Runner interface {
	ServeRun(w http.ResponseWriter, r *http.Request, req *Request)
}

// Request is an authenticated request to one of the gateway's APIs.
type Request struct {
	API API
	// Env is the envelope every event of the request carries: the key's
	// tenant, the user (the key's or Toolstream-User), Toolstream-Session,
	// -Run and -Step.
	Env Envelope
	// Body is the client's request body, unchanged.
	Body []byte
	// Stream reports whether the client asked for a stream ("stream": true).
	Stream bool
	// Model is the body's model, Upstream the upstream it routes to.
	Model    string
	Upstream string
	// RunName is the run the client named (Toolstream-Run), "" for none;
	// Env.Run is the run it is in the log (RunID: scoped by the user).
	RunName string
	// NoMemory: the key says memory: false (run mode neither recalls nor
	// writes its user's memory).
	NoMemory bool
	// NoPlans, NoDelegate: the key says plans: false, delegate: false
	// (run mode offers its runs no toolstream_plan, toolstream_delegate).
	NoPlans, NoDelegate bool

	slot *slot // the request's place in the gateway's limits
}

// Detach returns the release of the request's place in the gateway's
// limits for work that outlives ServeRun (a drive whose client went
// away): the place is held until both ServeRun returned and release was
// called. release may be called more than once.
func (r *Request) Detach() (release func()) { return r.slot.detach() }

// Envelope is the identity every event of a request carries.
type Envelope struct {
	Tenant, User, Session, Run, Step string
}

// Gateway serves the provider APIs over HTTP (ServeHTTP) and streams
// upstream (Stream). Safe for concurrent use.
type Gateway struct {
	cfg      Config
	log      *slog.Logger
	producer *client.Client         // publishes the model events, as any Go producer does
	keyset   atomic.Pointer[keySet] // the keys and prices in force (Reload)
	pool     *pool                  // the upstreams' circuits (pool.go)
	mux      *http.ServeMux
	detached sync.WaitGroup // upstream reads that outlive their client
	limits   *limiter       // requests under way, per key and in all

	mu   sync.Mutex          // guards live
	live map[string]Envelope // streams being relayed, by subject, until all is in the log

	spendMu sync.Mutex        // guards spends
	spends  map[string]*spend // what each key used, by hash; outlives reloads

	sseReaders sync.Pool // *sseReader of streams that ended (sseReader, putSSEReader)
}

// setLive records that the stream on subj is being relayed for env.
func (g *Gateway) setLive(subj string, env Envelope) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.live[subj] = env
}

// claimLive records the subject of env's user's stream named id as live
// unless this gateway relays one there now; it returns the subject. The
// log is not asked: the caller stores on the condition that the subject
// is empty (relay.keepWhole, relay.claimFirst).
func (g *Gateway) claimLive(env Envelope, api API, id string) (string, bool) {
	if id == "" {
		return "", false
	}
	subj, err := events.GatewaySubject(env.Tenant, string(api), scopedID(env.User, id))
	if err != nil {
		return "", false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.live[subj]; ok {
		return "", false
	}
	g.live[subj] = env
	return subj, true
}

// dropLive forgets a stream once it is all in the log.
func (g *Gateway) dropLive(subj string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.live, subj)
}

// liveEnv returns the envelope of a stream being relayed on subj.
func (g *Gateway) liveEnv(subj string) (Envelope, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	env, ok := g.live[subj]
	return env, ok
}

// New returns a gateway; ErrConfig for a configuration it cannot use.
func New(cfg Config) (*Gateway, error) {
	if cfg.JS == nil || cfg.Keys == nil {
		return nil, fmt.Errorf("%w: JS and Keys are required", ErrConfig)
	}
	if err := cfg.File.Validate(); err != nil {
		return nil, err
	}
	if cfg.BodyMax <= 0 {
		cfg.BodyMax = 32 << 20
	}
	if cfg.ClientStall <= 0 {
		cfg.ClientStall = DefaultClientStall
	}
	cfg.File.startDefaults(cfg.RequestsMaxDefault)
	if cfg.Client == nil {
		cfg.Client = &http.Client{Transport: upstreamTransport(cfg.File.Limits.RequestsMax)}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	popts := []client.Option{client.WithConn(cfg.JS.Conn()), client.WithKeys(cfg.Keys), client.WithClock(cfg.Now), client.WithLogger(log)}
	if cfg.MsgIDKey != nil {
		popts = append(popts, client.WithMsgIDKey(cfg.MsgIDKey))
	}
	p, err := client.Connect(context.Background(), popts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	g := &Gateway{cfg: cfg, log: log, producer: p, live: map[string]Envelope{}, spends: map[string]*spend{},
		pool:   newPool(cfg.File.Routing, cfg.Now),
		limits: newLimiter(cfg.File.Limits.KeyRequestsMax, cfg.File.Limits.RequestsMax)}
	g.keyset.Store(newKeySet(&cfg.File))
	g.mux = g.routes()
	return g, nil
}

// Wait waits until every upstream read whose client went away has ended
// and been logged, or ctx ends.
func (g *Gateway) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() { g.detached.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// newStreamID names a request's stream until the provider names its
// response.
func newStreamID() string {
	var b [12]byte
	rand.Read(b[:])
	return "gw_" + hex.EncodeToString(b[:])
}

// upstreamTransport is the default Client's transport: http.DefaultTransport's
// settings, but keeping up to requestsMax idle connections to each
// upstream, the requests the gateway lets be under way at once (each holds
// at most one upstream connection). http.DefaultTransport keeps two a
// host: with more requests at once than that, every answer's connection
// was closed once read and the next request dialled a new one (a TCP and,
// to a provider, a TLS handshake before the request goes out; the dial was
// 4.5% of the process at 64 whole answers at once).
func upstreamTransport(requestsMax int) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = requestsMax
	t.MaxIdleConnsPerHost = requestsMax
	return t
}
